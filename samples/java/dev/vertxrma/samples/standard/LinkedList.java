// Follows the MPI standard's distributed shared linked list example (MPI-5.0 section 13.8, "The
// following example constructs a distributed shared linked list using dynamic windows";
// ../shared/seeds/001): process 0 creates the head of the list, attaches it to a dynamic window
// and broadcasts its address; every process then concurrently appends NUM_ELEMS elements:
//
//     new_elem_ptr = { alloc_elem(value, win), procid }       /* MPI_Alloc_mem, MPI_Win_attach,
//                                                                MPI_Get_address */
//     do {
//       MPI_Compare_and_swap(&new_elem_ptr.rank, &nil.rank, &next_tail_ptr.rank, MPI_INT,
//                            tail_ptr.rank, tail_ptr.disp + LLIST_ELEM_NEXT_RANK, win);
//       MPI_Win_flush(tail_ptr.rank, win);
//       success = (next_tail_ptr.rank == nil.rank);
//       if (success) {
//         MPI_Accumulate(&new_elem_ptr.disp, 1, MPI_AINT, tail_ptr.rank,
//                        tail_ptr.disp + LLIST_ELEM_NEXT_DISP, 1, MPI_AINT, MPI_REPLACE, win);
//         MPI_Win_flush(tail_ptr.rank, win);
//         tail_ptr = new_elem_ptr;
//       } else {                     /* tail pointer is stale: chase to the new tail */
//         do {
//           MPI_Get_accumulate(NULL, 0, MPI_AINT, &next_tail_ptr.disp, 1, MPI_AINT, tail_ptr.rank,
//                              tail_ptr.disp + LLIST_ELEM_NEXT_DISP, 1, MPI_AINT, MPI_NO_OP, win);
//           MPI_Win_flush(tail_ptr.rank, win);
//         } while (next_tail_ptr.disp == nil.disp);
//         tail_ptr = next_tail_ptr;
//       }
//     } while (!success);
//
// inside MPI_Win_lock_all / MPI_Win_unlock_all, then MPI_Barrier, then every process detaches and
// frees its elements and frees the window. An element is a native Chronicle store laid out like
// the C struct llist_elem_t { llist_ptr_t next { MPI_Aint disp; int rank; }; int value; }:
// next.disp at byte 0 (8-byte AINT), next.rank at byte 8, value at byte 12, 16 bytes in all;
// nil = { disp 0 (MPI_BOTTOM), rank -1 }. The loops are Spin loops: each pass (each poll of the
// spin on next.disp) is issued from the completion of the previous one, through the event loop.
//
// Verification (not in the standard's example): after the barrier, rank 0 walks the list from the
// head with gets under a shared lock of each element's owner, and checks that the list holds the
// head and then exactly np*NUM_ELEMS elements, each element of each rank exactly once, each rank's
// elements in the order it appended them, each stored at the rank its value names, and that the
// list ends in nil. A barrier then lets everyone detach and release.
//
// Usage: rmarun -np N linked-list [NUM_ELEMS]     (default 10; any N >= 1)
package dev.vertxrma.samples.standard;

import dev.vertxrma.Buf;
import dev.vertxrma.Comm;
import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Info;
import dev.vertxrma.LockType;
import dev.vertxrma.Op;
import dev.vertxrma.RankVerticle;
import dev.vertxrma.RmaException;
import dev.vertxrma.Win;
import dev.vertxrma.samples.Spin;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.util.ArrayList;
import java.util.List;
import net.openhft.chronicle.bytes.BytesStore;

/** The MPI standard's distributed linked list over a dynamic window. */
public final class LinkedList extends RankVerticle {

  private static final int DEFAULT_NUM_ELEMS = 10;
  /** offsetof(llist_elem_t, next) + offsetof(llist_ptr_t, disp): an MPI_Aint. */
  private static final long NEXT_DISP = 0;
  /** offsetof(llist_elem_t, next) + offsetof(llist_ptr_t, rank): an int. */
  private static final long NEXT_RANK = 8;
  /** offsetof(llist_elem_t, value): an int. */
  private static final long VALUE = 12;
  /** sizeof(llist_elem_t). */
  private static final int ELEM_SIZE = 16;
  /** nil = { (MPI_Aint) MPI_BOTTOM, -1 }. */
  private static final long NIL_DISP = 0;
  private static final int NIL_RANK = -1;
  /** The head's value. */
  private static final int HEAD_VALUE = -1;

  /** A list pointer, llist_ptr_t. */
  private record Ptr(int rank, long disp) {
    @Override
    public String toString() {
      return "(rank " + rank + ", disp 0x" + Long.toHexString(disp) + ")";
    }
  }

  /** Checks that failed on this rank. */
  private final List<String> failures = new ArrayList<>();
  /** The elements this rank allocated (my_elems), in allocation order. */
  private final List<BytesStore<?, ?>> myElems = new ArrayList<>();
  private Win win;
  private int procid;
  private int numElems;
  /** Tail pointer of the append loop. */
  private Ptr tail;
  /** Failed compare-and-swaps (stale tail) and disp polls while chasing, on this rank. */
  private long staleTails;
  private long chasePolls;

  @Override
  public Future<?> run(Comm world, List<String> args) {
    try {
      numElems = args.isEmpty() ? DEFAULT_NUM_ELEMS : Integer.parseInt(args.get(0));
    } catch (NumberFormatException e) {
      return Future.failedFuture(RmaException.of(ErrorClass.ARG, "linked-list: NUM_ELEMS must be an integer, got '%s'",
          args.get(0)));
    }
    int nproc = world.size();
    if (args.size() > 1 || numElems < 0 || (long) numElems * nproc > Integer.MAX_VALUE - 1) {
      return Future.failedFuture(RmaException.of(ErrorClass.ARG,
          "linked-list: usage linked-list [NUM_ELEMS] with NUM_ELEMS >= 0 and NUM_ELEMS*np < 2^31; got %s, np=%d",
          args, nproc));
    }
    procid = world.rank();
    long[] headDisp = new long[1];
    long[] stats = new long[2];
    int[] walked = new int[1];
    return Win.createDynamic(world, Info.NULL).compose(w -> {
      win = w;
      // process 0 creates the head node
      Future<Void> head = procid == 0
          ? allocElem(HEAD_VALUE).map(disp -> {
            headDisp[0] = disp;
            return null;
          })
          : Future.succeededFuture();
      return head
          .compose(v -> world.bcast(Buf.of(headDisp), 0, 1, Datatype.AINT, 0)) // the head pointer to everyone
          .compose(v -> {
            tail = new Ptr(0, headDisp[0]);
            return win.lockAll();
          })
          .compose(v -> appendAll())
          .compose(v -> win.unlockAll())
          .compose(v -> world.barrier())
          .compose(v -> procid == 0 ? verify(new Ptr(0, headDisp[0]), nproc, walked) : Future.succeededFuture())
          .compose(v -> world.barrier()) // rank 0 has finished reading every element
          .compose(v -> freeElems())
          .compose(v -> world.allreduce(Buf.of(new long[] {staleTails, chasePolls}), 0, Buf.of(stats), 0, 2, Datatype.LONG, Op.SUM))
          .compose(v -> win.free());
    })
        .compose(v -> world.allreduce((long) failures.size(), Op.SUM))
        .compose(bad -> {
          if (bad == 0) {
            if (procid == 0) {
              System.out.printf("linked-list: verified %d ranks x %d elements appended concurrently: the list holds "
                  + "the head and %d elements, each exactly once, each rank's in append order (%d stale tails "
                  + "chased, %d next.disp polls); all elements detached and released%n", nproc, numElems,
                  walked[0], stats[0], stats[1]);
            }
            return Future.succeededFuture();
          }
          return Future.failedFuture(new RmaException(ErrorClass.OTHER, failures.isEmpty()
              ? "linked-list: " + bad + " check(s) failed on other ranks"
              : "linked-list: rank " + procid + ": " + failures.size() + " check(s) failed, first: "
                  + failures.get(0)));
        });
  }

  /** Value of the seq-th element appended by rank r (decoded by {@link #rankOf}, {@link #seqOf}). */
  private int value(int r, int seq) {
    return r * numElems + seq;
  }

  private int rankOf(int value) {
    return value / numElems;
  }

  private int seqOf(int value) {
    return value % numElems;
  }

  /**
   * alloc_elem: a new element {nil, value} in native memory, attached to the window; completes with
   * its address (MPI_Get_address).
   */
  private Future<Long> allocElem(int value) {
    BytesStore<?, ?> elem = BytesStore.nativeStoreWithFixedCapacity(ELEM_SIZE);
    elem.writeLong(NEXT_DISP, NIL_DISP);
    elem.writeInt(NEXT_RANK, NIL_RANK);
    elem.writeInt(VALUE, value);
    myElems.add(elem);
    return win.attach(elem).map(v -> Win.address(elem, 0));
  }

  /** The outer loop: for (i = 0; i < NUM_ELEMS; i++) append element i. */
  private Future<Void> appendAll() {
    return Spin.times(numElems, i -> allocElem(value(procid, i)).compose(disp -> append(new Ptr(procid, disp))));
  }

  /** The do { ... } while (!success) loop for one element. */
  private Future<Void> append(Ptr newElem) {
    return Spin.until(() -> {
      int[] nextRank = {NIL_RANK};
      Ptr t = tail;
      return win.compareAndSwap(Buf.of(new int[] {newElem.rank()}), 0, Buf.of(new int[] {NIL_RANK}), 0, Buf.of(nextRank), 0, Datatype.INT,
              t.rank(), t.disp() + NEXT_RANK)
          .compose(v -> win.flush(t.rank()))
          .compose(v -> {
            if (nextRank[0] == NIL_RANK) { // success: link the displacement too
              return win.accumulate(Buf.of(new long[] {newElem.disp()}), 0, 1, Datatype.AINT, t.rank(),
                  t.disp() + NEXT_DISP, Op.REPLACE)
                  .compose(x -> win.flush(t.rank()))
                  .map(x -> {
                    tail = newElem;
                    return true;
                  });
            }
            // tail pointer is stale: fetch the displacement, may take several tries while it is being set
            staleTails++;
            return chase(t).map(nextDisp -> {
              tail = new Ptr(nextRank[0], nextDisp);
              return false;
            });
          });
    });
  }

  /** do { Get_accumulate(NO_OP, next.disp); flush } while (next.disp == nil.disp). */
  private Future<Long> chase(Ptr t) {
    long[] nextDisp = {NIL_DISP};
    return Spin.until(() -> {
      nextDisp[0] = NIL_DISP;
      chasePolls++;
      return win.getAccumulate(null, 0, 0, Datatype.AINT, Buf.of(nextDisp), 0, 1, Datatype.AINT, t.rank(),
              t.disp() + NEXT_DISP, 1, Datatype.AINT, Op.NO_OP)
          .compose(v -> win.flush(t.rank()))
          .map(v -> nextDisp[0] != NIL_DISP);
    }).map(v -> nextDisp[0]);
  }

  // ------------------------------------------------------------------ verification (rank 0)

  /** Walks the list from the head, one element per step, checking it as described at the top. */
  private Future<Void> verify(Ptr head, int nproc, int[] walked) {
    int expected = nproc * numElems;
    int[] nextSeq = new int[nproc]; // per rank: the sequence number its next element must have
    Promise<Void> done = Promise.promise();
    walk(head, 0, expected, nextSeq, walked, done);
    return done.future().map(v -> {
      if (walked[0] != expected) {
        failures.add(String.format("the list holds %d elements after the head, expected np*NUM_ELEMS = %d",
            walked[0], expected));
      }
      for (int r = 0; r < nproc; r++) {
        if (nextSeq[r] != numElems) {
          failures.add(String.format("only %d of rank %d's %d elements are in the list", nextSeq[r], r, numElems));
          break;
        }
      }
      return null;
    });
  }

  /** Reads element {@code at} (position {@code index}, 0 = head) and moves on to its successor. */
  private void walk(Ptr at, int index, int expected, int[] nextSeq, int[] walked, Promise<Void> done) {
    long[] disp = new long[1];
    int[] rankAndValue = new int[2]; // next.rank and value are adjacent ints
    win.lock(LockType.SHARED, at.rank())
        .compose(v -> win.get(Buf.of(disp), 0, 1, Datatype.AINT, at.rank(), at.disp() + NEXT_DISP))
        .compose(v -> win.get(Buf.of(rankAndValue), 0, 2, Datatype.INT, at.rank(), at.disp() + NEXT_RANK))
        .compose(v -> win.unlock(at.rank()))
        .onComplete(ar -> {
          if (ar.failed()) { // a corrupt pointer led outside every attached element
            failures.add(String.format("reading element %d at %s failed: %s", index, at, ar.cause().getMessage()));
            done.complete();
            return;
          }
          Ptr next = new Ptr(rankAndValue[0], disp[0]);
          int value = rankAndValue[1];
          String where = "element " + index + " at " + at;
          if (index == 0) {
            if (value != HEAD_VALUE) {
              failures.add(String.format("the head %s holds value %d, expected %d", at, value, HEAD_VALUE));
            }
          } else {
            walked[0] = index;
            int r = numElems == 0 || value < 0 ? -1 : rankOf(value);
            if (r < 0 || r >= nextSeq.length) {
              failures.add(String.format("%s holds value %d, which no rank appended", where, value));
              done.complete();
              return;
            }
            if (r != at.rank()) {
              failures.add(String.format("%s holds rank %d's value %d but lives at rank %d", where, r, value,
                  at.rank()));
            }
            int seq = seqOf(value);
            if (seq != nextSeq[r]) {
              failures.add(String.format("%s is rank %d's element %d, but rank %d's next element in append order "
                  + "is %d (%s)", where, r, seq, r, nextSeq[r], seq < nextSeq[r] ? "a repeat" : "some are missing"));
              done.complete();
              return;
            }
            nextSeq[r]++;
          }
          if (next.rank() == NIL_RANK) {
            if (next.disp() != NIL_DISP) {
              failures.add(String.format("%s ends the list with next.rank nil but next.disp 0x%x, not nil", where,
                  next.disp()));
            }
            done.complete();
            return;
          }
          if (next.rank() < 0 || next.rank() >= nextSeq.length || next.disp() == NIL_DISP) {
            failures.add(String.format("%s has next pointer %s, neither nil nor a valid element", where, next));
            done.complete();
            return;
          }
          if (index >= expected) {
            failures.add(String.format("the list goes on past %d elements after the head (a cycle or extra "
                + "elements): %s points to %s", expected, where, next));
            done.complete();
            return;
          }
          walk(next, index + 1, expected, nextSeq, walked, done);
        });
  }

  // ------------------------------------------------------------------ cleanup

  /**
   * for (; my_elems_count > 0; my_elems_count--) { MPI_Win_detach; MPI_Free_mem }: the detaches are
   * issued newest first; each element is released once its own detach has completed (no operation
   * can touch it then).
   */
  private Future<Void> freeElems() {
    List<Future<Void>> detached = new ArrayList<>(myElems.size());
    for (int k = myElems.size() - 1; k >= 0; k--) {
      BytesStore<?, ?> elem = myElems.get(k);
      detached.add(win.detach(elem).map(v -> {
        elem.releaseLast();
        return null;
      }));
    }
    return Future.all(detached).map(v -> {
      myElems.clear();
      return null;
    });
  }
}
