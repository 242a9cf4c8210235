package dev.vertxrma.impl.win;

import dev.vertxrma.impl.memory.SharedMapping;
import dev.vertxrma.impl.memory.WindowMemory;
import dev.vertxrma.impl.ops.RmaOperation;
import dev.vertxrma.impl.ops.RmaTarget;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * The origin side of the on-node path (ARCHITECTURE decision 16): the {@link HostSegment}s of a
 * window's ranks in other JVMs of this host, mapped here, so that an operation to one of them is
 * applied by the origin on its own thread, as a same-JVM one is. The target's epoch rules still
 * hold: the origin takes the target's owner word, and applies the operation only if the target's
 * block says the window is not freed and admits it (the fence epoch it belongs to is open there,
 * or its origin holds a lock there); otherwise it sends the operation over the data plane, where
 * the target holds or refuses it as usual. Post/start/complete/wait
 * epochs' post and complete go through the control blocks too ({@link PscwPages}).
 *
 * <p>Used on the origin rank's context only, but for {@link #close}.
 */
final class SegmentPeers {

  private static final System.Logger LOG = System.getLogger(SegmentPeers.class.getName());
  /** How long an origin spins for a target's owner word before it sends the operation instead. */
  static final long SPIN_NANOS = 5_000;
  /** How long an origin waits for a target that is about to open the fence epoch of its operation. */
  static final long FENCE_SPIN_NANOS = 20_000;

  /** A target's block and memory as this JVM maps them. */
  private record Peer(SharedMapping block, SharedMapping mapping, WindowControl control, WindowMemory memory,
      int dispUnit) {
  }

  private final Peer[] peers;
  private final int count;
  /** Whether the window has no more ranks than the machine has cores (then waiting for a peer may spin). */
  private final boolean spinForFences;
  /** Operations applied in a peer's segment so far (the origin's thread only). */
  private long applied;

  private SegmentPeers(Peer[] peers) {
    this.spinForFences = peers.length <= Runtime.getRuntime().availableProcessors();
    this.peers = peers;
    int n = 0;
    for (Peer p : peers) {
      n += p == null ? 0 : 1;
    }
    this.count = n;
  }

  /** No peer: every operation to another JVM takes the data plane. */
  static SegmentPeers none(int ranks) {
    return new SegmentPeers(new Peer[ranks]);
  }

  /**
   * Maps the segments of the ranks of other JVMs that this JVM can open and whose token matches
   * their descriptor (the same host: the same segment directory); the others stay on the data
   * plane. Blocking file I/O: a worker's job. A descriptor is untrusted input: a malformed one, a
   * file that is missing, too short or holds another token only leaves that rank on the data plane.
   *
   * @param descriptors each rank's {@link HostSegment#descriptor()}, empty for none
   * @param local whether a rank lives in this JVM (its window is reached directly anyway)
   * @param sizes each rank's window size, as agreed
   * @param units each rank's displacement unit, as agreed
   */
  static SegmentPeers map(byte[][] descriptors, boolean[] local, long[] sizes, int[] units) {
    int ranks = descriptors.length;
    Peer[] peers = new Peer[ranks];
    Path dir = null;
    for (int r = 0; r < ranks; r++) {
      byte[] d = descriptors[r];
      if (local[r] || d == null || d.length <= 8 || d.length > 8 + 255) {
        continue;
      }
      long token = ByteBuffer.wrap(d).getLong();
      String name = new String(d, 8, d.length - 8, StandardCharsets.UTF_8);
      if (!name.startsWith(HostSegment.PREFIX) || name.contains("/") || name.contains("\\")) { // one file name of the directory
        continue;
      }
      try {
        if (dir == null) {
          dir = SharedMapping.directory();
        }
        Path path = dir.resolve(name);
        if (!java.nio.file.Files.isRegularFile(path, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
          continue; // another host, or a JVM that does not share this directory
        }
        long ctrl = HostSegment.controlBytes(ranks);
        SharedMapping block = SharedMapping.map(path, 0, ctrl);
        WindowControl c = WindowControl.ofPeer(block.segment(0, ctrl).addressForWrite(0), ranks, token);
        if (c == null) {
          block.unmap();
          continue;
        }
        SharedMapping m;
        try {
          m = SharedMapping.map(path, ctrl, Math.max(sizes[r], 8));
        } catch (RuntimeException e) {
          block.unmap();
          throw e;
        }
        WindowMemory mem = WindowMemory.segment(m.segment(0, Math.max(sizes[r], 8)), sizes[r], () -> { });
        peers[r] = new Peer(block, m, c, mem, units[r]);
      } catch (RuntimeException e) {
        LOG.log(System.Logger.Level.DEBUG, "rank " + r + "'s window segment stays on the data plane: " + e);
      }
    }
    return new SegmentPeers(peers);
  }

  /** Whether rank {@code r}'s window is mapped here. */
  boolean reaches(int r) {
    return count > 0 && peers[r] != null;
  }

  /** Rank {@code r}'s window memory as mapped here, or {@code null} (MPI_Win_shared_query). */
  WindowMemory memory(int r) {
    Peer p = peers[r];
    return p == null ? null : p.memory;
  }

  /** Rank {@code r}'s control block as mapped here, or {@code null}. */
  WindowControl control(int r) {
    Peer p = peers[r];
    return p == null ? null : p.control;
  }

  /** Whether rank {@code r}'s window is mapped here and its control block says it has entered fence epoch {@code epoch}. */
  boolean fenceReached(int r, long epoch) {
    Peer p = count > 0 ? peers[r] : null;
    return p != null && p.control.fenceReached(epoch);
  }

  /** Operations this origin has applied in its peers' segments (read on the origin's context). */
  long applied() {
    return applied;
  }

  /** How many ranks' windows are mapped here. */
  int count() {
    return count;
  }

  /**
   * Applies {@code op} (built in place: it reads and writes the origin's buffers directly) to rank
   * {@code r}'s window if its owner word is free and its block admits the operation now. True if
   * applied; false if the caller must send it over the data plane.
   *
   * @throws dev.vertxrma.RmaException as the target would refuse the operation (a range or type
   *     error the origin's checks did not catch); the window is then left as it was
   */
  boolean tryApply(int r, RmaOperation op) {
    Peer p = peers[r];
    if (p == null) {
      return false;
    }
    if (op.syncMode == RmaOperation.SYNC_FENCE) {
      awaitFenceAdvance(p.control, op.fenceEpoch);
    }
    if (!acquire(p.control)) {
      return false;
    }
    try {
      if (p.control.freed()) {
        return false;
      }
      switch (op.syncMode) {
        case RmaOperation.SYNC_FENCE:
          if (!p.control.admitsFence(op.fenceEpoch)) {
            return false;
          }
          break;
        case RmaOperation.SYNC_PASSIVE:
          if (!p.control.holdsLock(op.origin)) {
            return false;
          }
          break;
        case RmaOperation.SYNC_PSCW:
          if (!p.control.exposedTo(op.origin)) {
            return false;
          }
          break;
        default:
          return false;
      }
      if (op.notifyIndex == RmaOperation.NO_NOTIFY) {
        RmaTarget.apply(op, p.memory, p.dispUnit, r);
      } else if (op.notifyIndex >= 0 && op.notifyIndex < NotifyCounters.pageCapacity(peers.length)) {
        // notified: the data, then (release fence, atomic add) the counter in the target's page
        RmaTarget.apply(op, p.memory, p.dispUnit, r);
        NotifyCounters.inPage(p.control, op.notifyIndex + 1).increment(op.notifyIndex);
      } else {
        return false;
      }
      applied++;
      return true;
    } finally {
      p.control.release();
    }
  }

  /**
   * MPI_Win_lock of rank {@code r}'s window by {@code origin}, taken in its segment: granted at once
   * if the window takes locks, no request waits in its queue (FIFO fairness) and the lock is
   * compatible with those held; the target is not involved. False if the caller must request it
   * over the data plane (queued there, or refused with the error the target gives).
   */
  boolean tryLock(int r, int origin, dev.vertxrma.LockType type) {
    Peer p = peers[r];
    if (p == null || !acquire(p.control)) {
      return false;
    }
    try {
      WindowControl c = p.control;
      if (c.freed() || c.noLocks() || c.queued() != 0 || c.holdsLock(origin) || c.exclusive() >= 0) {
        return false;
      }
      if (type == dev.vertxrma.LockType.SHARED) {
        c.shared(origin, true);
      } else if (c.sharedCount() == 0) {
        c.exclusive(origin);
      } else {
        return false;
      }
      c.setHoldsLock(origin, true);
      return true;
    } finally {
      p.control.release();
    }
  }

  /**
   * MPI_Win_unlock of rank {@code r}'s window by {@code origin} (its operations complete), given
   * back in its segment if no request waits for it (a waiter needs the target to grant it: the
   * caller then unlocks over the data plane). False if the caller must send the unlock.
   */
  boolean tryUnlock(int r, int origin) {
    Peer p = peers[r];
    if (p == null || !acquire(p.control)) {
      return false;
    }
    try {
      WindowControl c = p.control;
      if (c.freed() || c.queued() != 0) {
        return false;
      }
      if (c.exclusive() == origin) {
        c.exclusive(-1);
      } else if (c.shared(origin)) {
        c.shared(origin, false);
      } else {
        return false; // a NOCHECK lock, or none: the target records or refuses it
      }
      c.setHoldsLock(origin, false);
      return true;
    } finally {
      p.control.release();
    }
  }

  /**
   * Takes {@code c}'s owner word, spinning at most {@link #SPIN_NANOS} while another thread (of any
   * JVM) holds it for its one operation: cheaper than the data plane, and an origin that sent one
   * operation over it must send the next ones after it too until it completes.
   */
  /**
   * Gives a target that is about to open fence epoch {@code epoch} (it has reached the barrier
   * this origin passed, and its own completion of the fence has not run yet) up to
   * {@link #FENCE_SPIN_NANOS} to do so, when the machine has a core for each of the window's
   * ranks: an operation sent over the data plane instead would be held there until then, and the
   * next fence would wait for its acknowledgement.
   */
  private void awaitFenceAdvance(WindowControl c, long epoch) {
    if (!spinForFences || !c.fenceOneBehind(epoch)) {
      return;
    }
    long deadline = System.nanoTime() + FENCE_SPIN_NANOS;
    do {
      Thread.onSpinWait();
    } while (c.fenceOneBehind(epoch) && System.nanoTime() - deadline < 0);
  }

  private static boolean acquire(WindowControl c) {
    if (c.tryAcquire()) {
      return true;
    }
    long deadline = System.nanoTime() + SPIN_NANOS;
    do {
      Thread.onSpinWait();
      if (c.tryAcquire()) {
        return true;
      }
    } while (System.nanoTime() - deadline < 0);
    return false;
  }

  /**
   * Unmaps every peer's segment (the window is freed here); {@code true} if that may block long
   * enough to belong on a worker ({@link #unmapMayBlock}). Idempotent.
   */
  void close() {
    for (int r = 0; r < peers.length; r++) {
      Peer p = peers[r];
      if (p != null) {
        peers[r] = null;
        p.memory.release();
        p.mapping.unmap();
        p.block.unmap();
      }
    }
  }

  /** Whether {@link #close} may take long enough to belong on a worker thread. */
  boolean unmapMayBlock() {
    for (Peer p : peers) {
      if (p != null && p.mapping.unmapMayBlock()) {
        return true;
      }
    }
    return false;
  }
}
