// LinkedList written with RxJava: the MPI standard's distributed shared linked list over a dynamic
// window (MPI-5.0 section 13.8), the same appends, the same compare-and-swap / get-accumulate
// spins, and the same verification by rank 0 (see LinkedList.java for the algorithm, the element
// layout and what the walk checks).
//
// The Future chain becomes a Completable chain over RxWin and RxComm:
//   * the outer loop, for (i = 0; i < NUM_ELEMS; i++), is Flowable.range(...).concatMapCompletable;
//   * the do { ... } while spins (append, chase) and rank 0's walk down the list are
//     RxRma.repeatUntil loops, which yield to the event loop so that this rank keeps serving the
//     operations the other ranks aim at its elements; like Spin, a spin backs off to one poll per
//     millisecond (a Vert.x timer on the rank's context) after Spin.POLLS_BEFORE_BACKOFF polls.
// Calls are cold: what depends on state computed by an earlier step (the head's address, the
// elements to detach, the counters) is built in Completable.defer, when the chain reaches it.
//
// Usage: rmarun -np N linked-list-rx [NUM_ELEMS]     (default 10; any N >= 1)
package dev.vertxrma.samples.styles;

import dev.vertxrma.Buf;
import dev.vertxrma.Comm;
import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Info;
import dev.vertxrma.LockType;
import dev.vertxrma.Op;
import dev.vertxrma.RankVerticle;
import dev.vertxrma.RmaException;
import dev.vertxrma.rx.RxComm;
import dev.vertxrma.rx.RxRma;
import dev.vertxrma.rx.RxWin;
import dev.vertxrma.samples.Spin;
import io.reactivex.rxjava3.core.Completable;
import io.reactivex.rxjava3.core.Flowable;
import io.reactivex.rxjava3.core.Single;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import net.openhft.chronicle.bytes.BytesStore;

/** The MPI standard's distributed linked list over a dynamic window, with RxJava. */
public final class LinkedListRx extends RankVerticle {

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
  private Vertx vertx;
  private RxWin win;
  private int procid;
  private int numElems;
  /** Tail pointer of the append loop. */
  private Ptr tail;
  /** Failed compare-and-swaps (stale tail) and disp polls while chasing, on this rank. */
  private long staleTails;
  private long chasePolls;

  @Override
  public Future<?> run(Comm world, List<String> args) {
    return RxRma.program(this::run).run(world, args);
  }

  private Completable run(RxComm world, List<String> args) {
    try {
      numElems = args.isEmpty() ? DEFAULT_NUM_ELEMS : Integer.parseInt(args.get(0));
    } catch (NumberFormatException e) {
      return Completable.error(RmaException.of(ErrorClass.ARG,
          "linked-list-rx: NUM_ELEMS must be an integer, got '%s'", args.get(0)));
    }
    int nproc = world.size();
    if (args.size() > 1 || numElems < 0 || (long) numElems * nproc > Integer.MAX_VALUE - 1) {
      return Completable.error(RmaException.of(ErrorClass.ARG, "linked-list-rx: usage linked-list-rx [NUM_ELEMS] "
          + "with NUM_ELEMS >= 0 and NUM_ELEMS*np < 2^31; got %s, np=%d", args, nproc));
    }
    procid = world.rank();
    vertx = world.vertx();
    long[] headDisp = new long[1];
    long[] stats = new long[2];
    int[] walked = new int[1];
    return RxWin.createDynamic(world, Info.NULL).flatMapCompletable(w -> {
      win = w;
      // process 0 creates the head node
      Completable head = procid == 0
          ? allocElem(HEAD_VALUE).doOnSuccess(disp -> headDisp[0] = disp).ignoreElement()
          : Completable.complete();
      return head
          .andThen(world.bcast(Buf.of(headDisp), 0, 1, Datatype.AINT, 0)) // the head pointer to everyone
          .andThen(Completable.defer(() -> {
            tail = new Ptr(0, headDisp[0]);
            return win.lockAll();
          }))
          .andThen(appendAll())
          .andThen(win.unlockAll())
          .andThen(world.barrier())
          .andThen(Completable.defer(() -> procid == 0 ? verify(new Ptr(0, headDisp[0]), nproc, walked)
              : Completable.complete()))
          .andThen(world.barrier()) // rank 0 has finished reading every element
          .andThen(Completable.defer(this::freeElems))
          .andThen(Completable.defer(() -> world.allreduce(Buf.of(new long[] {staleTails, chasePolls}), 0, Buf.of(stats), 0, 2,
              Datatype.LONG, Op.SUM)))
          .andThen(win.free());
    })
        .andThen(Single.defer(() -> world.allreduce((long) failures.size(), Op.SUM)))
        .flatMapCompletable(bad -> {
          if (bad == 0) {
            if (procid == 0) {
              System.out.printf("linked-list-rx: verified %d ranks x %d elements appended concurrently: the list "
                  + "holds the head and %d elements, each exactly once, each rank's in append order (%d stale tails "
                  + "chased, %d next.disp polls); all elements detached and released%n", nproc, numElems,
                  walked[0], stats[0], stats[1]);
            }
            return Completable.complete();
          }
          return Completable.error(new RmaException(ErrorClass.OTHER, failures.isEmpty()
              ? "linked-list-rx: " + bad + " check(s) failed on other ranks"
              : "linked-list-rx: rank " + procid + ": " + failures.size() + " check(s) failed, first: "
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
   * alloc_elem: a new element {nil, value} in native memory, attached to the window; emits its
   * address (MPI_Get_address).
   */
  private Single<Long> allocElem(int value) {
    return Single.defer(() -> {
      BytesStore<?, ?> elem = BytesStore.nativeStoreWithFixedCapacity(ELEM_SIZE);
      elem.writeLong(NEXT_DISP, NIL_DISP);
      elem.writeInt(NEXT_RANK, NIL_RANK);
      elem.writeInt(VALUE, value);
      myElems.add(elem);
      return win.attach(elem).toSingle(() -> RxWin.address(elem, 0));
    });
  }

  /** The outer loop: for (i = 0; i < NUM_ELEMS; i++) append element i. */
  private Completable appendAll() {
    return Flowable.range(0, numElems).concatMapCompletable(i -> allocElem(value(procid, i))
        .flatMapCompletable(disp -> append(new Ptr(procid, disp))));
  }

  /** The do { ... } while (!success) loop for one element. */
  private Completable append(Ptr newElem) {
    return spin(() -> {
      int[] nextRank = {NIL_RANK};
      Ptr t = tail;
      return win.compareAndSwap(Buf.of(new int[] {newElem.rank()}), 0, Buf.of(new int[] {NIL_RANK}), 0, Buf.of(nextRank), 0, Datatype.INT,
              t.rank(), t.disp() + NEXT_RANK)
          .andThen(win.flush(t.rank()))
          .andThen(Single.defer(() -> {
            if (nextRank[0] == NIL_RANK) { // success: link the displacement too
              return win.accumulate(Buf.of(new long[] {newElem.disp()}), 0, 1, Datatype.AINT, t.rank(),
                      t.disp() + NEXT_DISP, Op.REPLACE)
                  .andThen(win.flush(t.rank()))
                  .toSingle(() -> {
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
          }));
    });
  }

  /** do { Get_accumulate(NO_OP, next.disp); flush } while (next.disp == nil.disp). */
  private Single<Long> chase(Ptr t) {
    long[] nextDisp = {NIL_DISP};
    return spin(() -> {
      nextDisp[0] = NIL_DISP;
      chasePolls++;
      return win.getAccumulate(null, 0, 0, Datatype.AINT, Buf.of(nextDisp), 0, 1, Datatype.AINT, t.rank(),
              t.disp() + NEXT_DISP, 1, Datatype.AINT, Op.NO_OP)
          .andThen(win.flush(t.rank()))
          .toSingle(() -> nextDisp[0] != NIL_DISP);
    }).toSingle(() -> nextDisp[0]);
  }

  /**
   * The MPI spin: subscribes to {@code step.get()} until it emits true, yielding to the event loop
   * ({@link RxRma#repeatUntil}) and, after {@link Spin#POLLS_BEFORE_BACKOFF} polls, waiting a
   * millisecond before each poll.
   */
  private Completable spin(Supplier<Single<Boolean>> step) {
    int[] polls = {0};
    return RxRma.repeatUntil(() -> polls[0]++ < Spin.POLLS_BEFORE_BACKOFF ? step.get()
        : Completable.fromCompletionStage(vertx.timer(1).toCompletionStage()).andThen(Single.defer(step::get)));
  }

  // ------------------------------------------------------------------ verification (rank 0)

  /** Walks the list from the head, one element per step, checking it as described in LinkedList. */
  private Completable verify(Ptr head, int nproc, int[] walked) {
    int expected = nproc * numElems;
    int[] nextSeq = new int[nproc]; // per rank: the sequence number its next element must have
    Ptr[] at = {head};
    int[] index = {0};
    return RxRma.repeatUntil(() -> visit(at, index, expected, nextSeq, walked))
        .andThen(Completable.fromAction(() -> {
          if (walked[0] != expected) {
            failures.add(String.format("the list holds %d elements after the head, expected np*NUM_ELEMS = %d",
                walked[0], expected));
          }
          for (int r = 0; r < nproc; r++) {
            if (nextSeq[r] != numElems) {
              failures.add(String.format("only %d of rank %d's %d elements are in the list", nextSeq[r], r,
                  numElems));
              break;
            }
          }
        }));
  }

  /**
   * Reads element {@code at[0]} (position {@code index[0]}, 0 = head), checks it and moves
   * {@code at} and {@code index} on to its successor; emits true when the walk is over.
   */
  private Single<Boolean> visit(Ptr[] at, int[] index, int expected, int[] nextSeq, int[] walked) {
    Ptr here = at[0];
    long[] disp = new long[1];
    int[] rankAndValue = new int[2]; // next.rank and value are adjacent ints
    return win.lock(LockType.SHARED, here.rank())
        .andThen(win.get(Buf.of(disp), 0, 1, Datatype.AINT, here.rank(), here.disp() + NEXT_DISP))
        .andThen(win.get(Buf.of(rankAndValue), 0, 2, Datatype.INT, here.rank(), here.disp() + NEXT_RANK))
        .andThen(win.unlock(here.rank()))
        .toSingle(() -> {
          Ptr next = new Ptr(rankAndValue[0], disp[0]);
          boolean over = check(here, index[0], next, rankAndValue[1], expected, nextSeq, walked);
          at[0] = next;
          index[0]++;
          return over;
        })
        .onErrorReturn(e -> { // a corrupt pointer led outside every attached element
          failures.add(String.format("reading element %d at %s failed: %s", index[0], here, e.getMessage()));
          return true;
        });
  }

  /** The checks of one element; true when the walk ends here. */
  private boolean check(Ptr at, int index, Ptr next, int value, int expected, int[] nextSeq, int[] walked) {
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
        return true;
      }
      if (r != at.rank()) {
        failures.add(String.format("%s holds rank %d's value %d but lives at rank %d", where, r, value, at.rank()));
      }
      int seq = seqOf(value);
      if (seq != nextSeq[r]) {
        failures.add(String.format("%s is rank %d's element %d, but rank %d's next element in append order is %d "
            + "(%s)", where, r, seq, r, nextSeq[r], seq < nextSeq[r] ? "a repeat" : "some are missing"));
        return true;
      }
      nextSeq[r]++;
    }
    if (next.rank() == NIL_RANK) {
      if (next.disp() != NIL_DISP) {
        failures.add(String.format("%s ends the list with next.rank nil but next.disp 0x%x, not nil", where,
            next.disp()));
      }
      return true;
    }
    if (next.rank() < 0 || next.rank() >= nextSeq.length || next.disp() == NIL_DISP) {
      failures.add(String.format("%s has next pointer %s, neither nil nor a valid element", where, next));
      return true;
    }
    if (index >= expected) {
      failures.add(String.format("the list goes on past %d elements after the head (a cycle or extra elements): "
          + "%s points to %s", expected, where, next));
      return true;
    }
    return false;
  }

  // ------------------------------------------------------------------ cleanup

  /**
   * for (; my_elems_count > 0; my_elems_count--) { MPI_Win_detach; MPI_Free_mem }: the detaches are
   * issued newest first (merge subscribes in list order); each element is released once its own
   * detach has completed (no operation can touch it then).
   */
  private Completable freeElems() {
    List<Completable> detached = new ArrayList<>(myElems.size());
    for (int k = myElems.size() - 1; k >= 0; k--) {
      BytesStore<?, ?> elem = myElems.get(k);
      detached.add(win.detach(elem).andThen(Completable.fromAction(elem::releaseLast)));
    }
    return Completable.merge(detached).andThen(Completable.fromAction(myElems::clear));
  }
}
