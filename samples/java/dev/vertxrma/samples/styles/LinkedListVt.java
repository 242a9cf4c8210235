// The MPI standard's distributed shared linked list (see LinkedList.java; ../shared/seeds/001),
// written in MPI's own blocking style: each rank runs on a virtual thread and the append loop
// reads like the C code, one awaited call per MPI call:
//
//     for (i = 0; i < NUM_ELEMS; i++) {
//       new_elem_ptr = { alloc_elem(value, win), procid };
//       do {
//         MPI_Compare_and_swap(&new_elem_ptr.rank, &nil.rank, &next_tail_ptr.rank, MPI_INT,
//                              tail_ptr.rank, tail_ptr.disp + LLIST_ELEM_NEXT_RANK, win);
//         MPI_Win_flush(tail_ptr.rank, win);
//         success = (next_tail_ptr.rank == nil.rank);
//         if (success) {
//           MPI_Accumulate(&new_elem_ptr.disp, 1, MPI_AINT, tail_ptr.rank,
//                          tail_ptr.disp + LLIST_ELEM_NEXT_DISP, 1, MPI_AINT, MPI_REPLACE, win);
//           MPI_Win_flush(tail_ptr.rank, win);
//           tail_ptr = new_elem_ptr;
//         } else {
//           do {
//             MPI_Get_accumulate(NULL, 0, MPI_AINT, &next_tail_ptr.disp, 1, MPI_AINT, tail_ptr.rank,
//                                tail_ptr.disp + LLIST_ELEM_NEXT_DISP, 1, MPI_AINT, MPI_NO_OP, win);
//             MPI_Win_flush(tail_ptr.rank, win);
//           } while (next_tail_ptr.disp == nil.disp);
//           tail_ptr = next_tail_ptr;
//         }
//       } while (!success);
//     }
//
// While a rank is parked in one of these awaits, its own elements keep serving the other ranks'
// compare-and-swaps and accumulates: MPI's progress rule. The verification is LinkedList's: rank
// 0 walks the list and checks every element, each rank's elements in append order.
//
// Usage: rmarun -np N --virtual-threads linked-list-vt [NUM_ELEMS]   (default 10; Java 21 or newer)
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
import dev.vertxrma.Win;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.List;
import net.openhft.chronicle.bytes.BytesStore;

/** The MPI standard's distributed linked list in the blocking style, on virtual threads. */
public final class LinkedListVt extends RankVerticle {

  private static final long NEXT_DISP = 0;
  private static final long NEXT_RANK = 8;
  private static final long VALUE = 12;
  private static final int ELEM_SIZE = 16;
  private static final long NIL_DISP = 0;
  private static final int NIL_RANK = -1;
  private static final int HEAD_VALUE = -1;

  private final List<BytesStore<?, ?>> myElems = new ArrayList<>();
  private final List<String> failures = new ArrayList<>();
  private Win win;
  private int numElems;

  @Override
  public Future<?> run(Comm world, List<String> args) {
    BlockingStyle.require("linked-list-vt");
    int nproc = world.size();
    int procid = world.rank();
    numElems = parse(args, nproc);
    win = Win.createDynamic(world, Info.NULL).await();

    long[] head = new long[1];
    if (procid == 0) {
      head[0] = allocElem(HEAD_VALUE);
    }
    world.bcast(Buf.of(head), 0, 1, Datatype.AINT, 0).await();

    // the buffers of the append loop: new_elem_ptr, nil, next_tail_ptr
    int[] newRank = {procid};
    int[] nilRank = {NIL_RANK};
    int[] nextTailRank = new int[1];
    long[] newDisp = new long[1];
    long[] nextTailDisp = new long[1];
    int tailRank = 0;
    long tailDisp = head[0];
    long staleTails = 0;
    long chasePolls = 0;

    win.lockAll().await();
    for (int i = 0; i < numElems; i++) {
      newDisp[0] = allocElem(procid * numElems + i);
      boolean success;
      do {
        nextTailRank[0] = NIL_RANK;
        win.compareAndSwap(Buf.of(newRank), 0, Buf.of(nilRank), 0, Buf.of(nextTailRank), 0, Datatype.INT,
            tailRank, tailDisp + NEXT_RANK).await();
        win.flush(tailRank).await();
        success = nextTailRank[0] == NIL_RANK;
        if (success) {
          win.accumulate(Buf.of(newDisp), 0, 1, Datatype.AINT, tailRank, tailDisp + NEXT_DISP, Op.REPLACE).await();
          win.flush(tailRank).await();
          tailRank = procid;
          tailDisp = newDisp[0];
        } else {
          staleTails++;
          do {
            chasePolls++;
            nextTailDisp[0] = NIL_DISP;
            win.getAccumulate(null, 0, 0, Datatype.AINT, Buf.of(nextTailDisp), 0, 1, Datatype.AINT, tailRank,
                tailDisp + NEXT_DISP, 1, Datatype.AINT, Op.NO_OP).await();
            win.flush(tailRank).await();
          } while (nextTailDisp[0] == NIL_DISP);
          tailRank = nextTailRank[0];
          tailDisp = nextTailDisp[0];
        }
      } while (!success);
    }
    win.unlockAll().await();
    world.barrier().await();

    int walked = procid == 0 ? verify(0, head[0], nproc) : 0;
    world.barrier().await(); // rank 0 has read every element
    for (int k = myElems.size() - 1; k >= 0; k--) {
      win.detach(myElems.get(k)).await();
      myElems.get(k).releaseLast();
    }
    long[] stats = new long[2];
    world.allreduce(Buf.of(new long[] {staleTails, chasePolls}), 0, Buf.of(stats), 0, 2, Datatype.LONG, Op.SUM).await();
    win.free().await();
    long bad = world.allreduce((long) failures.size(), Op.SUM).await();
    if (bad != 0) {
      throw new RmaException(ErrorClass.OTHER, failures.isEmpty()
          ? "linked-list-vt: " + bad + " check(s) failed on other ranks"
          : "linked-list-vt: rank " + procid + ": " + failures.size() + " check(s) failed, first: " + failures.get(0));
    }
    if (procid == 0) {
      System.out.printf("linked-list-vt: verified %d ranks x %d elements appended concurrently on virtual threads: "
          + "the list holds the head and %d elements, each exactly once, each rank's in append order (%d stale tails "
          + "chased, %d next.disp polls); all elements detached and released%n", nproc, numElems, walked, stats[0],
          stats[1]);
    }
    return Future.succeededFuture();
  }

  private static int parse(List<String> args, int nproc) {
    int n;
    try {
      n = args.isEmpty() ? 10 : Integer.parseInt(args.get(0));
    } catch (NumberFormatException e) {
      throw RmaException.of(ErrorClass.ARG, "linked-list-vt: NUM_ELEMS must be an integer, got '%s'", args.get(0));
    }
    if (args.size() > 1 || n < 0 || (long) n * nproc > Integer.MAX_VALUE - 1) {
      throw RmaException.of(ErrorClass.ARG,
          "linked-list-vt: usage linked-list-vt [NUM_ELEMS] with NUM_ELEMS >= 0 and NUM_ELEMS*np < 2^31; got %s, np=%d",
          args, nproc);
    }
    return n;
  }

  /** alloc_elem: a new element {nil, value} attached to the window; returns its address. */
  private long allocElem(int value) {
    BytesStore<?, ?> elem = BytesStore.nativeStoreWithFixedCapacity(ELEM_SIZE);
    elem.writeLong(NEXT_DISP, NIL_DISP);
    elem.writeInt(NEXT_RANK, NIL_RANK);
    elem.writeInt(VALUE, value);
    myElems.add(elem);
    win.attach(elem).await();
    return Win.address(elem, 0);
  }

  /**
   * Rank 0 walks the list from the head under a shared lock of each element's owner and checks it:
   * np*NUM_ELEMS elements after the head, each rank's exactly once and in append order, each at the
   * rank its value names, nil at the end. Returns the number of elements after the head.
   */
  private int verify(int headRank, long headDisp, int nproc) {
    int expected = nproc * numElems;
    int[] nextSeq = new int[nproc];
    long[] disp = new long[1];
    int[] rankAndValue = new int[2];
    int rank = headRank;
    long at = headDisp;
    int index = 0;
    while (true) {
      win.lock(LockType.SHARED, rank).await();
      win.get(Buf.of(disp), 0, 1, Datatype.AINT, rank, at + NEXT_DISP).await();
      win.get(Buf.of(rankAndValue), 0, 2, Datatype.INT, rank, at + NEXT_RANK).await();
      win.unlock(rank).await();
      int value = rankAndValue[1];
      String where = "element " + index + " at (rank " + rank + ", disp 0x" + Long.toHexString(at) + ")";
      if (index == 0) {
        check(value == HEAD_VALUE, "the head holds value %d, expected %d", value, HEAD_VALUE);
      } else {
        int r = numElems == 0 || value < 0 ? -1 : value / numElems;
        if (!check(r >= 0 && r < nproc, "%s holds value %d, which no rank appended", where, value)) {
          return index;
        }
        check(r == rank, "%s holds rank %d's value %d but lives at rank %d", where, r, value, rank);
        if (!check(value % numElems == nextSeq[r], "%s is rank %d's element %d, expected its element %d", where, r,
            value % numElems, nextSeq[r])) {
          return index;
        }
        nextSeq[r]++;
      }
      if (rankAndValue[0] == NIL_RANK) {
        check(disp[0] == NIL_DISP, "%s ends the list with next.rank nil but next.disp 0x%x", where, disp[0]);
        check(index == expected, "the list holds %d elements after the head, expected %d", index, expected);
        return index;
      }
      if (!check(rankAndValue[0] >= 0 && rankAndValue[0] < nproc && disp[0] != NIL_DISP && index < expected,
          "%s has next pointer (rank %d, disp 0x%x): not nil, not a valid element, or past %d elements", where,
          rankAndValue[0], disp[0], expected)) {
        return index;
      }
      rank = rankAndValue[0];
      at = disp[0];
      index++;
    }
  }

  private boolean check(boolean ok, String format, Object... args) {
    if (!ok) {
      failures.add(String.format(format, args));
    }
    return ok;
  }
}
