package dev.vertxrma.impl.runtime;

import dev.vertxrma.FailurePolicy;
import dev.vertxrma.RmaException;
import dev.vertxrma.impl.transport.DataPlane;
import dev.vertxrma.impl.transport.Frame;
import dev.vertxrma.impl.transport.FrameCodec;
import dev.vertxrma.impl.transport.FrameType;
import dev.vertxrma.impl.transport.InboundBudget;
import dev.vertxrma.impl.transport.ReceivedPayload;
import dev.vertxrma.impl.transport.RejectedInput;

/**
 * What the job's data plane hands this JVM's part of one {@link JobRuntime}: each record from a
 * peer JVM decoded and checked (its destination is a rank of this JVM, its source a rank of the
 * sending JVM) before it reaches the rank, anything else rejected and counted; a peer JVM found
 * unreachable; whether the job has failed here. Called on the data plane's threads.
 */
final class DataPlaneIntake implements DataPlane.Job {

  /** JobRuntime's logger: what it logs is the job's, as before it had a class of its own. */
  private static final System.Logger LOG = System.getLogger(JobRuntime.class.getName());

  private final JobRuntime job;
  private final RejectedInput rejected;

  /** The intake of {@code job}, whose rejected input {@code rejected} counts. */
  DataPlaneIntake(JobRuntime job, RejectedInput rejected) {
    this.job = job;
    this.rejected = rejected;
  }

  @Override
  public void receive(String node, io.netty.buffer.ByteBuf record) {
    receive(node, record, null);
  }

  /**
   * A record from the data plane ({@code i32 destination rank | frame}), which this call owns and
   * releases (a payload left in it holds a reference of its own): decoded, checked, delivered.
   */
  @Override
  public void receive(String node, io.netty.buffer.ByteBuf record, InboundBudget budget) {
    Frame f;
    int dst;
    try {
      if (record.readableBytes() < 4) {
        rejected.reject("a data-plane record of " + record.readableBytes() + " bytes from JVM " + node);
        return;
      }
      dst = record.getInt(record.readerIndex());
      f = FrameCodec.decode(record, record.readerIndex() + 4, record.writerIndex());
    } catch (RmaException e) {
      rejected.reject("a malformed frame from JVM " + node + ": " + e.getMessage());
      return;
    } finally {
      record.release();
    }
    RankProcess p = job.localRank(dst);
    if (p == null) {
      ReceivedPayload.release(f);
      rejected.reject("a frame from JVM " + node + " for rank " + dst + ", which is not in this JVM: " + f);
      return;
    }
    if (f.src < 0 || f.src >= job.np() || !node.equals(job.nodeOf(f.src))) { // no nodes yet: nodeOf is null
      ReceivedPayload.release(f);
      rejected.reject("a frame from JVM " + node + " that claims to come from rank " + f.src + ", which is not "
          + "one of its ranks: " + f);
      return;
    }
    if (FrameType.isOperation(f.type)) {
      f.inbound = budget;
      p.inlineSink().accept(f);
    } else {
      p.fromNetwork(f);
    }
  }

  @Override
  public void unreachable(String node, String reason) {
    if (job.failurePolicy() == FailurePolicy.CONTINUE) {
      // only the cluster's membership declares ranks dead when the job goes on: every survivor
      // then learns of the same deaths (what agree and shrink build on), and a link that
      // failed while its node is alive (its connection reset during a proof) kills no rank
      LOG.log(System.Logger.Level.WARNING, "job " + job.jobName() + ": the data plane cannot reach node " + node
          + ": " + reason + "; its ranks are declared dead only if the node leaves the cluster");
      return;
    }
    job.nodeLost(node, "are unreachable: " + reason);
  }

  @Override
  public void reject(String what) {
    rejected.reject(what);
  }

  @Override
  public boolean failedHere() {
    boolean any = false;
    for (int r = 0; r < job.np(); r++) {
      RankProcess p = job.localRank(r);
      if (p != null) {
        if (p.failure() == null) {
          return false;
        }
        any = true;
      }
    }
    return any;
  }
}
