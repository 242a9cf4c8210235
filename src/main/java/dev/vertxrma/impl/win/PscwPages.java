package dev.vertxrma.impl.win;

import dev.vertxrma.Group;
import dev.vertxrma.RmaException;
import dev.vertxrma.impl.sync.PscwEpoch;
import dev.vertxrma.impl.transport.Endpoint;
import dev.vertxrma.impl.transport.Frame;
import dev.vertxrma.impl.transport.FrameType;
import io.vertx.core.Future;
import java.lang.invoke.VarHandle;

/**
 * Post/start/complete/wait between ranks of different JVMs of one host without a message on the
 * fast path (ARCHITECTURE decision 16), as Open MPI's {@code osc/sm} keeps its post and complete
 * counters in the shared segment: a post is a count the target raises in the origin's
 * {@link WindowControl} block, a complete a word the origin writes into the target's (how many
 * completes it made, and how many of its operations crossed the data plane, which the target still
 * counts as they arrive). Each slot has one writer. Ranks of this JVM, and ranks whose block is not
 * mapped here, keep POST and COMPLETE frames; a withdrawn post (its wait timed out) still travels
 * as a POST_WITHDRAWN frame, and its receiver reads its block before it handles it.
 *
 * <p>Waiting: a rank whose start or waitFor is not satisfied at once reads its block in place for
 * {@link #SPIN_NANOS}, then from tasks of its own event loop until {@link #POLL_NANOS} (when the
 * window's ranks have a core each and a member's block is mapped here), then parks: it sets its page-waiter word, fences, and reads
 * once more. A writer stores its slot, fences, and reads the word: if set, it takes it back with a
 * compare-and-set and sends one {@link FrameType#PAGE_WAKE} frame, whose receiver reads its block
 * (and parks again if it still waits). So one of the two always sees the other (Dekker), and a
 * wake frame that arrives late only makes the rank read its block once more.
 *
 * <p>The counts in this rank's block are untrusted input: a count that goes back or jumps by more
 * than {@link #MAX_NEW_POSTS}, or a complete announcing a negative number of operations, is
 * rejected (logged) and changes nothing else. Used on the rank's context; the block is read only
 * as the target window's owner, never once the window is freed there (its block may be unmapped).
 */
final class PscwPages {

  /** How long a waiting rank reads its block from tasks before it parks. */
  static final long POLL_NANOS = 50_000;
  /** How long a waiting rank first reads its block in place (its event loop held that long at most). */
  static final long SPIN_NANOS = 3_000;
  /** More new posts from one rank than can be outstanding: a peer can post again only after its wait. */
  static final long MAX_NEW_POSTS = 1 << 10;
  private static final int CORES = Runtime.getRuntime().availableProcessors();

  private final Endpoint rp;
  private final int windowId;
  private final int rank;
  /** This rank's block, where peers write; {@code null} when its window is not in a host segment. */
  private final WindowControl own;
  private final SegmentPeers peers;
  private final PscwEpoch pscw;
  private final long[] postsSeen;
  private final long[] postsSent;
  private final int[] completesSeen;
  private final int[] completesSent;
  /** Runs a task as the target window's owner, unless the window is freed (its block may be unmapped). */
  private final java.util.function.Consumer<Runnable> asOwner;
  /** Runs a task as the owner only if it can at once, never queuing it; true if it ran. */
  private final java.util.function.Predicate<Runnable> asOwnerNow;
  /** Futures of waits that watch the block and have not completed. */
  private int watched;
  /** What the last read in place found: the wait it was for satisfied (set as the owner). */
  private boolean satisfiedInPlace;
  private boolean polling;
  /** Posts and completes written into peers' blocks (tests, diagnostics). */
  private long written;

  PscwPages(Endpoint rp, int windowId, WindowControl own, SegmentPeers peers, PscwEpoch pscw,
      java.util.function.Consumer<Runnable> asOwner, java.util.function.Predicate<Runnable> asOwnerNow) {
    this.rp = rp;
    this.windowId = windowId;
    this.rank = rp.rank();
    this.own = own;
    this.peers = peers;
    this.pscw = pscw;
    this.asOwner = asOwner;
    this.asOwnerNow = asOwnerNow;
    int n = rp.size();
    this.postsSeen = new long[n];
    this.postsSent = new long[n];
    this.completesSeen = new int[n];
    this.completesSent = new int[n];
  }

  /** Whether a post or complete to rank {@code r} is written into its block (it is mapped here). */
  boolean writesTo(int r) {
    return peers.control(r) != null;
  }

  /** Posts and completes this rank has written into peers' blocks so far. */
  long written() {
    return written;
  }

  /** MPI_Win_post's notice to member {@code r}: raises this rank's post count in its block. */
  void post(int r) {
    WindowControl c = peers.control(r);
    c.putPostsFromOrdered(rank, ++postsSent[r]);
    written++;
    ring(c, r);
  }

  /** MPI_Win_complete's notice to target {@code r}, which is to expect {@code ops} operations over the data plane. */
  void complete(int r, int ops) {
    WindowControl c = peers.control(r);
    int n = ++completesSent[r] == 0 ? ++completesSent[r] : completesSent[r]; // 0 is "none yet"
    c.putCompleteFromOrdered(rank, ((long) n << 32) | (ops & 0xFFFF_FFFFL));
    written++;
    ring(c, r);
  }

  /** After a write into {@code c}: wakes its rank if it is parked (one frame per park). */
  private void ring(WindowControl c, int r) {
    VarHandle.fullFence();
    if (c.pageWaiterVolatile() != 0 && c.casPageWaiter(1, 0)) {
      rp.send(r, Frame.of(FrameType.PAGE_WAKE, rank, windowId));
    }
  }

  /**
   * Reads the posts and completes peers wrote into this rank's block since the last read, as if
   * their POST and COMPLETE frames had arrived. Only as the target window's owner, before it is freed.
   */
  void readOwned() {
    if (own == null) {
      return;
    }
    for (int r = 0; r < postsSeen.length; r++) {
      if (r == rank || rp.isLocal(r)) {
        continue;
      }
      long posts = own.postsFromVolatile(r);
      long fresh = posts - postsSeen[r];
      if (fresh != 0) {
        postsSeen[r] = posts;
        if (fresh < 0 || fresh > MAX_NEW_POSTS) {
          rp.rejectInput("window " + windowId + ": rank " + r + "'s post count in this rank's block went from "
              + (posts - fresh) + " to " + posts);
        } else {
          for (long i = 0; i < fresh; i++) {
            pscw.onPost(r);
          }
        }
      }
      long complete = own.completeFromVolatile(r);
      int number = (int) (complete >>> 32);
      if (number != completesSeen[r]) {
        completesSeen[r] = number;
        int ops = (int) complete;
        try {
          if (ops < 0) {
            throw new RmaException(dev.vertxrma.ErrorClass.OTHER, "a complete announcing " + ops + " operations", false);
          }
          pscw.onComplete(r, ops);
        } catch (RmaException e) {
          rp.rejectInput("window " + windowId + ": complete from rank " + r + " in this rank's block: "
              + e.getMessage());
        }
      }
    }
  }

  /**
   * Reads this rank's block until {@code wait} (a start or waitFor on {@code group}) completes:
   * first in place for {@link #SPIN_NANOS} (when a member's block is mapped here and the ranks
   * have a core each), until {@code satisfied} (read as the window's owner) says the wait has what
   * it needs; then polls, then parks (see the class comment). Nothing to do when no member can
   * write here.
   */
  void watch(Future<?> wait, Group group, java.util.function.BooleanSupplier satisfied) {
    if (own == null || wait.isComplete()) {
      return;
    }
    boolean anyWriter = false;
    boolean mapped = false;
    for (int m : group.ranks()) {
      if (m != rank && !rp.isLocal(m)) {
        anyWriter = true;
        mapped |= peers.control(m) != null;
      }
    }
    if (!anyWriter) {
      return;
    }
    if (mapped && rp.size() <= CORES && spunUntil(satisfied)) {
      return; // its completion is under way
    }
    watched++;
    wait.onComplete(ar -> {
      if (--watched == 0) {
        asOwner.accept(() -> own.putPageWaiterVolatile(0));
      }
    });
    if (!polling) {
      polling = true;
      long deadline = System.nanoTime() + (mapped && rp.size() <= CORES ? POLL_NANOS : 0);
      rp.context().runOnContext(v -> poll(deadline));
    }
  }

  /** Reads the block in place until {@code satisfied} or {@link #SPIN_NANOS} have passed; true if satisfied. */
  private boolean spunUntil(java.util.function.BooleanSupplier satisfied) {
    long until = System.nanoTime() + SPIN_NANOS;
    satisfiedInPlace = false;
    Runnable look = () -> {
      readOwned();
      satisfiedInPlace = satisfied.getAsBoolean();
    };
    do {
      if (asOwnerNow.test(look) && satisfiedInPlace) {
        return true;
      }
      Thread.onSpinWait();
    } while (System.nanoTime() - until < 0);
    return false;
  }

  private void poll(long deadline) {
    if (watched == 0) {
      polling = false;
      return;
    }
    asOwnerNow.test(this::readOwned); // when the state is busy, the next poll reads (nothing queues up)
    if (System.nanoTime() - deadline < 0) {
      rp.context().runOnContext(v -> poll(deadline));
      return;
    }
    polling = false;
    park();
  }

  /** Parks: sets the page-waiter word, then reads once more (a writer sees the word or this read sees its write). */
  private void park() {
    asOwner.accept(() -> {
      own.putPageWaiterVolatile(1);
      VarHandle.fullFence();
      readOwned();
    });
  }

  /** A peer wrote into this rank's block while it was parked ({@link FrameType#PAGE_WAKE}). */
  void onWake() {
    if (own == null) {
      return;
    }
    asOwner.accept(this::readOwned);
    if (watched > 0 && !polling) {
      park();
    }
  }
}
