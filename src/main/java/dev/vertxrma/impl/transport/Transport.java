package dev.vertxrma.impl.transport;

import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.EventBus;
import java.util.function.Consumer;
import java.util.function.IntFunction;

/**
 * Delivers frames to ranks. A rank in the same Vert.x instance gets the frame object directly on
 * its own event loop (no event bus, no codec, no copy: the same-JVM fast path); any other rank
 * gets it over the (clustered) event bus at its address, encoded by {@link FrameCodec}.
 */
public final class Transport {

  private static final DeliveryOptions FRAME_DELIVERY = new DeliveryOptions().setCodecName(FrameCodec.NAME);

  private final EventBus bus;
  private final String jobName;
  private final IntFunction<Consumer<Frame>> localSinks;
  private final IntFunction<Consumer<Frame>> inlineSinks;
  private final String[] addresses;

  /**
   * @param bus the event bus of this Vert.x instance
   * @param jobName the job, part of every rank address
   * @param size number of ranks
   * @param localSinks for a rank, the sink that delivers on its event loop if it lives in this
   *     Vert.x instance, else {@code null}
   * @param inlineSinks for a rank in this Vert.x instance, the sink that handles an RMA operation
   *     frame on the calling thread (the target window applies it or queues it to its owner)
   */
  public Transport(EventBus bus, String jobName, int size, IntFunction<Consumer<Frame>> localSinks,
      IntFunction<Consumer<Frame>> inlineSinks) {
    this.bus = bus;
    this.jobName = jobName;
    this.localSinks = localSinks;
    this.inlineSinks = inlineSinks;
    this.addresses = new String[size];
    for (int r = 0; r < size; r++) {
      addresses[r] = address(jobName, r);
    }
  }

  /** The event-bus address of a rank of a job. */
  public static String address(String jobName, int rank) {
    return "rma." + jobName + ".r" + rank;
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
   * same-JVM fast path); other local frames go to the rank's event loop; the rest over the bus.
   */
  public void send(int dst, Frame frame) {
    Consumer<Frame> local = FrameType.isOperation(frame.type) ? inlineSinks.apply(dst) : localSinks.apply(dst);
    if (local != null) {
      local.accept(frame);
    } else {
      bus.send(addresses[dst], frame, FRAME_DELIVERY);
    }
  }
}
