package dev.vertxrma.impl.transport;

import java.util.function.Consumer;
import java.util.function.IntFunction;

/**
 * Delivers frames to ranks. A rank in the same Vert.x instance gets the frame object directly on
 * its own event loop (no codec, no copy: the same-JVM fast path); any other rank gets it over the
 * job's {@link DataPlane}, encoded by {@link FrameCodec}.
 */
public final class Transport {

  /** Sends a frame to a rank of another JVM. */
  public interface Remote {
    /** Sends {@code frame} to rank {@code dst}, which is not in this JVM. */
    void send(int dst, Frame frame);
  }

  private final String jobName;
  private final IntFunction<Consumer<Frame>> localSinks;
  private final IntFunction<Consumer<Frame>> inlineSinks;
  private final Remote remote;

  /**
   * @param jobName the job
   * @param remote the way to ranks of other JVMs
   * @param localSinks for a rank, the sink that delivers on its event loop if it lives in this
   *     Vert.x instance, else {@code null}
   * @param inlineSinks for a rank in this Vert.x instance, the sink that handles an RMA operation
   *     frame on the calling thread (the target window applies it or queues it to its owner)
   */
  public Transport(String jobName, Remote remote, IntFunction<Consumer<Frame>> localSinks,
      IntFunction<Consumer<Frame>> inlineSinks) {
    this.jobName = jobName;
    this.remote = remote;
    this.localSinks = localSinks;
    this.inlineSinks = inlineSinks;
  }

  /** The job name this transport addresses. */
  public String jobName() {
    return jobName;
  }

  /** Whether {@code rank} is served in this Vert.x instance. */
  public boolean isLocal(int rank) {
    return localSinks.apply(rank) != null;
  }

  /**
   * Sends {@code frame} to {@code dst}. An RMA operation for a rank of this Vert.x instance is
   * applied right here on the origin's thread (no hop to the target's event loop and back: the
   * same-JVM fast path); other local frames go to the rank's event loop; the rest over the data plane.
   */
  public void send(int dst, Frame frame) {
    Consumer<Frame> local = FrameType.isOperation(frame.type) ? inlineSinks.apply(dst) : localSinks.apply(dst);
    if (local != null) {
      local.accept(frame);
    } else {
      remote.send(dst, frame);
    }
  }
}
