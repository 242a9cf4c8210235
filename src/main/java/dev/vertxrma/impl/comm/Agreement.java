package dev.vertxrma.impl.comm;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.RmaException;
import dev.vertxrma.impl.runtime.GroupFaults;
import dev.vertxrma.impl.transport.Endpoint;
import dev.vertxrma.impl.transport.Frame;
import dev.vertxrma.impl.transport.FrameType;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;

/**
 * ULFM's fault-tolerant agreement ({@code MPI_Comm_agree}) on one communicator of a rank: every
 * survivor decides the same value (the AND of the flags, the largest proposal, the set of members
 * that failed) even when members, the coordinator among them, die during the call.
 *
 * <p>A rotating coordinator over a perfect failure detector (the cluster's membership, which
 * tells every survivor of the same deaths): each member sends its contribution to the lowest
 * member it believes alive; that coordinator decides once it holds the contribution of every
 * member it believes alive, and sends the decision to them. When a member learns that the
 * coordinator it sent to died, it sends its contribution again to the next one, with the decision
 * it already holds, if any. A new coordinator adopts a decision any survivor holds (the one made
 * by the highest coordinator), so a decision some survivor returned is never contradicted: a
 * survivor that held it reported it, and once a rank has learned of a coordinator's death it
 * drops whatever that coordinator still sends ({@code RankProcess} drops a dead rank's frames).
 * Every member that is not in the decided failed set contributed, so the survivors of a shrink
 * are the same everywhere.
 *
 * <p>One agreement of a rank runs at a time (the next starts when this rank has decided the
 * previous): a rank that decided agreement {@code k + 1} knows every survivor decided {@code k},
 * so a rank keeps the last {@link #KEPT} agreements' state to answer a late coordinator.
 * On the rank's context.
 */
final class Agreement {

  /** How many decided agreements a rank keeps for a coordinator that takes over late. */
  static final int KEPT = 8;
  private static final int CONTRIBUTION = 1;
  private static final int DECISION = 2;

  /** What the survivors agreed on. */
  static final class Decision {
    final int flag;
    final int max;
    /** The member that decided it (a later coordinator's decision wins). */
    final int coordinator;
    /** Communicator ranks of the members that failed. */
    final BitSet failed;

    Decision(int flag, int max, int coordinator, BitSet failed) {
      this.flag = flag;
      this.max = max;
      this.coordinator = coordinator;
      this.failed = failed;
    }
  }

  /** What one member brings to an agreement. */
  private static final class Contribution {
    final int flag;
    final int proposal;
    final BitSet failed;
    final Decision held;

    Contribution(int flag, int proposal, BitSet failed, Decision held) {
      this.flag = flag;
      this.proposal = proposal;
      this.failed = failed;
      this.held = held;
    }
  }

  /** One agreement, as this rank sees it. */
  private final class Round {
    final int number;
    Contribution mine;
    Decision decided;
    Promise<Decision> result;
    /** The coordinator this rank sent its contribution to last, or -1. */
    int sentTo = -1;
    /** At a coordinator: the contributions received, by communicator rank. */
    final Map<Integer, Contribution> received = new HashMap<>();

    Round(int number) {
      this.number = number;
    }
  }

  private final Endpoint ep;
  private final GroupFaults faults;
  private final int ctx;
  private final String name;
  private final Map<Integer, Round> rounds = new HashMap<>();
  private int nextNumber;
  private Future<Decision> last;

  /**
   * @param ep the communicator's view of the rank (its numbering)
   * @param ctx the communicator's context id, which its agreement frames carry
   */
  Agreement(Endpoint ep, GroupFaults faults, int ctx, String name) {
    this.ep = ep;
    this.faults = faults;
    this.ctx = ctx;
    this.name = name;
    this.last = ep.context().succeededFuture();
  }

  /**
   * This rank's part of the next agreement: {@code flag} to AND, {@code proposal} to take the
   * largest of. Completes with the decision, or fails with TIMEOUT, or the job's failure.
   */
  Future<Decision> agree(int flag, int proposal) {
    Round round = round(nextNumber++);
    Promise<Decision> result = ep.context().promise();
    Future<Decision> previous = last;
    last = result.future();
    previous.onComplete(ar -> start(round, flag, proposal, result));
    return ep.withTimeout(result.future(), () -> "agree (number " + round.number + ")");
  }

  private void start(Round round, int flag, int proposal, Promise<Decision> result) {
    RmaException failure = ep.failure();
    if (failure != null) {
      result.tryFail(failure);
      return;
    }
    round.result = result;
    round.mine = new Contribution(flag, proposal, failedNow(), null);
    if (round.decided != null) {
      result.tryComplete(round.decided);
      return;
    }
    contribute(round);
  }

  private BitSet failedNow() {
    BitSet b = new BitSet();
    for (int r : faults.failed()) {
      b.set(r);
    }
    return b;
  }

  /** The lowest member this rank believes alive. */
  private int coordinator() {
    for (int r = 0; r < ep.size(); r++) {
      if (r == ep.rank() || ep.peerFailure(r) == null) {
        return r;
      }
    }
    return ep.rank();
  }

  private void contribute(Round round) {
    int c = coordinator();
    round.sentTo = c;
    Contribution mine = new Contribution(round.mine.flag, round.mine.proposal, failedNow(), round.decided);
    if (c == ep.rank()) {
      onContribution(round, ep.rank(), mine);
    } else {
      Frame f = Frame.of(FrameType.AGREE, ep.rank(), ctx);
      f.tag = round.number;
      f.code = CONTRIBUTION;
      f.payload = encode(mine);
      ep.send(c, f);
    }
  }

  /** An agreement frame from member {@code src}. */
  void onFrame(Frame f, int src) {
    if (f.tag >= 0 && f.tag < nextNumber - 2 * KEPT) {
      return; // of an agreement every survivor has long decided
    }
    if (f.tag < 0 || f.tag > nextNumber + KEPT || f.payload == null) {
      throw RmaException.of(ErrorClass.OTHER, "agreement frame %d from rank %d on %s is out of range", f.tag, src, name);
    }
    Round round = round(f.tag);
    ByteBuffer in = ByteBuffer.wrap(f.payload);
    if (f.code == CONTRIBUTION) {
      int flag = in.getInt();
      int proposal = in.getInt();
      BitSet failed = bits(in);
      Decision held = in.get() == 1 ? decision(in) : null;
      onContribution(round, src, new Contribution(flag, proposal, failed, held));
    } else if (f.code == DECISION) {
      decide(round, decision(in));
    } else {
      throw RmaException.of(ErrorClass.OTHER, "agreement frame of kind %d from rank %d on %s", f.code, src, name);
    }
    prune();
  }

  private void onContribution(Round round, int src, Contribution c) {
    if (round.decided != null) {
      if (src != ep.rank()) {
        sendDecision(src, round);
      }
      return;
    }
    round.received.put(src, c);
    tryDecide(round);
  }

  private void tryDecide(Round round) {
    if (round.decided != null || round.mine == null || coordinator() != ep.rank()) {
      return;
    }
    for (int r = 0; r < ep.size(); r++) {
      if (ep.peerFailure(r) == null && !round.received.containsKey(r)) {
        return;
      }
    }
    Decision adopted = null;
    for (Contribution c : round.received.values()) {
      if (c.held != null && (adopted == null || c.held.coordinator > adopted.coordinator)) {
        adopted = c.held;
      }
    }
    if (adopted == null) {
      int flag = -1;
      int max = Integer.MIN_VALUE;
      BitSet failed = failedNow();
      for (Map.Entry<Integer, Contribution> e : round.received.entrySet()) {
        flag &= e.getValue().flag;
        max = Math.max(max, e.getValue().proposal);
        failed.or(e.getValue().failed);
      }
      for (int r = 0; r < ep.size(); r++) {
        if (ep.peerFailure(r) != null) {
          failed.set(r);
        }
      }
      adopted = new Decision(flag, max, ep.rank(), failed);
    }
    decide(round, adopted);
    for (int r = 0; r < ep.size(); r++) {
      if (r != ep.rank() && ep.peerFailure(r) == null) {
        sendDecision(r, round);
      }
    }
  }

  private void decide(Round round, Decision d) {
    if (round.decided != null) {
      return;
    }
    round.decided = d;
    round.received.clear();
    if (round.result != null) {
      round.result.tryComplete(d);
    }
    prune();
  }

  private void sendDecision(int dst, Round round) {
    Frame f = Frame.of(FrameType.AGREE, ep.rank(), ctx);
    f.tag = round.number;
    f.code = DECISION;
    ByteBuffer b = ByteBuffer.allocate(12 + bitsLength(round.decided.failed));
    putDecision(b, round.decided);
    f.payload = b.array();
    ep.send(dst, f);
  }

  /**
   * Members died: a contribution sent to a dead coordinator goes to the next one (with the
   * decision this rank holds, if any), a new coordinator passes on the decisions it holds, and a
   * coordinator stops waiting for the dead.
   */
  void membersFailed() {
    int c = coordinator();
    for (Round round : rounds.values()) {
      if (round.mine == null) {
        continue;
      }
      if (round.sentTo >= 0 && round.sentTo != c && ep.peerFailure(round.sentTo) != null) {
        if (c == ep.rank() && round.decided != null) {
          for (int r = 0; r < ep.size(); r++) {
            if (r != ep.rank() && ep.peerFailure(r) == null) {
              sendDecision(r, round);
            }
          }
          round.sentTo = c;
        } else {
          contribute(round);
        }
      } else {
        tryDecide(round);
      }
    }
  }

  /** The job failed: every agreement of this rank fails with it. */
  void fail(RmaException cause) {
    for (Round round : rounds.values()) {
      if (round.result != null) {
        round.result.tryFail(cause);
      }
    }
  }

  private Round round(int number) {
    return rounds.computeIfAbsent(number, Round::new);
  }

  /** Forgets agreements decided long enough ago that no survivor can still ask for them. */
  private void prune() {
    int keepFrom = nextNumber - KEPT;
    for (Iterator<Map.Entry<Integer, Round>> it = rounds.entrySet().iterator(); it.hasNext(); ) {
      Map.Entry<Integer, Round> e = it.next();
      if (e.getKey() < keepFrom && e.getValue().decided != null) {
        it.remove();
      }
    }
  }

  // ------------------------------------------------------------------ encoding

  private static byte[] encode(Contribution c) {
    int size = 8 + bitsLength(c.failed) + 1 + (c.held == null ? 0 : 12 + bitsLength(c.held.failed));
    ByteBuffer b = ByteBuffer.allocate(size).putInt(c.flag).putInt(c.proposal);
    putBits(b, c.failed);
    b.put((byte) (c.held == null ? 0 : 1));
    if (c.held != null) {
      putDecision(b, c.held);
    }
    return b.array();
  }

  private static void putDecision(ByteBuffer b, Decision d) {
    b.putInt(d.flag).putInt(d.max).putInt(d.coordinator);
    putBits(b, d.failed);
  }

  private Decision decision(ByteBuffer in) {
    int flag = in.getInt();
    int max = in.getInt();
    int coordinator = in.getInt();
    if (coordinator < 0 || coordinator >= ep.size()) {
      throw RmaException.of(ErrorClass.OTHER, "agreement decision names coordinator %d on %s", coordinator, name);
    }
    return new Decision(flag, max, coordinator, bits(in));
  }

  private static int bitsLength(BitSet b) {
    return 4 + 8 * b.toLongArray().length;
  }

  private static void putBits(ByteBuffer b, BitSet bits) {
    long[] words = bits.toLongArray();
    b.putInt(words.length);
    for (long w : words) {
      b.putLong(w);
    }
  }

  private BitSet bits(ByteBuffer in) {
    int n = in.getInt();
    if (n < 0 || n > (ep.size() + 63) / 64 || n * 8 > in.remaining()) {
      throw RmaException.of(ErrorClass.OTHER, "agreement frame with %d words of ranks on %s of %d ranks", n, name,
          ep.size());
    }
    long[] words = new long[n];
    for (int i = 0; i < n; i++) {
      words[i] = in.getLong();
    }
    BitSet b = BitSet.valueOf(words);
    if (b.length() > ep.size()) {
      throw RmaException.of(ErrorClass.OTHER, "agreement frame names rank %d on %s of %d ranks", b.length() - 1, name,
          ep.size());
    }
    return b;
  }

  /** The members of a decision's failed set, as a sorted array of communicator ranks. */
  static int[] failedRanks(Decision d) {
    return d.failed.stream().toArray();
  }

  @Override
  public String toString() {
    return "agreement on " + name + " " + Arrays.toString(rounds.keySet().toArray());
  }
}
