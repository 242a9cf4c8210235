package dev.vertxrma.impl.comm;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.RmaException;
import dev.vertxrma.impl.transport.Endpoint;
import dev.vertxrma.impl.transport.Frame;
import dev.vertxrma.impl.transport.PendingReplies;
import io.vertx.core.Future;
import io.vertx.core.internal.ContextInternal;
import java.util.Arrays;
import dev.vertxrma.impl.runtime.RankProcess;

/**
 * A communicator's view of its rank: the one place where a communicator's rank numbering meets
 * the job's. Ranks given to it are the communicator's; frames leave with job ranks (the wire and
 * the data plane's peer checks know only those) and replies go back to the job rank of the
 * request's source. Frames arriving for a communicator's engine are turned back into its
 * numbering by the engine with {@link #rankOf}. Everything else is the rank's own.
 */
final class CommEndpoint implements Endpoint {

  private final RankProcess process;
  /** Job rank of each member, in communicator order. */
  private final int[] members;
  /** Communicator rank of each job rank, {@code -1} for a job rank that is not a member. */
  private final int[] index;
  private final int rank;
  private final String name;
  /** What this communicator knows of its members' failures and its revocation. */
  private final dev.vertxrma.impl.runtime.GroupFaults faults;

  /**
   * @param members the job ranks of the members in communicator order; the calling rank is one of them
   * @param name the communicator's name, for messages
   */
  CommEndpoint(RankProcess process, int[] members, String name) {
    this.process = process;
    this.members = members.clone();
    this.index = new int[process.size()];
    Arrays.fill(index, -1);
    for (int i = 0; i < members.length; i++) {
      index[members[i]] = i;
    }
    this.rank = index[process.rank()];
    this.name = name;
    this.faults = new dev.vertxrma.impl.runtime.GroupFaults(process, members, name);
  }

  /** What this communicator knows of its members' failures and its revocation. */
  dev.vertxrma.impl.runtime.GroupFaults faults() {
    return faults;
  }

  @Override
  public RmaException peerFailure(int r) {
    return faults.peerFailure(r);
  }

  @Override
  public RmaException groupFailure() {
    return faults.groupFailure();
  }

  @Override
  public RmaException revocation() {
    return faults.revocation();
  }

  @Override
  public RmaException anySourceFailure() {
    return faults.anySourceFailure();
  }

  @Override
  public int rank() {
    return rank;
  }

  @Override
  public int size() {
    return members.length;
  }

  @Override
  public int jobRank(int r) {
    return members[r];
  }

  @Override
  public int rankOf(int jobRank) {
    return jobRank >= 0 && jobRank < index.length ? index[jobRank] : -1;
  }

  @Override
  public ContextInternal context() {
    return process.context();
  }

  @Override
  public boolean isLocal(int r) {
    return process.isLocal(members[r]);
  }

  @Override
  public void send(int dst, Frame frame) {
    frame.src = process.rank();
    process.send(members[dst], frame);
  }

  @Override
  public Future<Frame> request(int dst, Frame frame) {
    frame.src = process.rank();
    return process.request(members[dst], frame);
  }

  @Override
  public void withdraw(long corr) {
    process.withdraw(corr);
  }

  @Override
  public void reply(Frame request, ErrorClass error, String message) {
    process.send(members[request.src], PendingReplies.replyTo(request, process.rank(), error, message));
  }

  @Override
  public void replyWith(Frame request, byte[] payload) {
    Frame r = PendingReplies.replyTo(request, process.rank(), null, null);
    r.payload = payload;
    process.send(members[request.src], r);
  }

  @Override
  public void replyWith(Frame request, dev.vertxrma.impl.transport.PayloadSource payload) {
    Frame r = PendingReplies.replyTo(request, process.rank(), null, null);
    r.payloadSource = payload;
    process.send(members[request.src], r);
  }

  @Override
  public void replyError(Frame request, RmaException e) {
    reply(request, e.errorClass(), PendingReplies.messageOf(e));
  }

  @Override
  public void rejectInput(String what) {
    process.rejectInput(what);
  }

  @Override
  public void rejectInput(String what, Throwable bug) {
    process.rejectInput(what, bug);
  }

  @Override
  public long waitTimeoutMs() {
    return process.waitTimeoutMs();
  }

  @Override
  public RmaException failure() {
    return process.failure();
  }

  @Override
  public <T> Future<T> withTimeout(Future<T> f, String what) {
    return f.isComplete() ? f : process.withTimeout(f, () -> what + " on " + name + " (rank " + rank + " there)");
  }

  @Override
  public <T> Future<T> withTimeout(Future<T> f, java.util.function.Supplier<String> what) {
    return f.isComplete() ? f : process.withTimeout(f, () -> what.get() + " on " + name + " (rank " + rank + " there)");
  }

  @Override
  public <T> void failAtDeadline(io.vertx.core.Promise<T> p, java.util.function.Supplier<String> what) {
    process.failAtDeadline(p, () -> what.get() + " on " + name + " (rank " + rank + " there)");
  }

  @Override
  public void atDeadline(java.util.function.BooleanSupplier ended, Runnable onExpiry) {
    process.atDeadline(ended, onExpiry);
  }

  @Override
  public String toString() {
    return name + Arrays.toString(members);
  }
}
