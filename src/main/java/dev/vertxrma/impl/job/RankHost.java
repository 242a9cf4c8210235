package dev.vertxrma.impl.job;

import dev.vertxrma.Comm;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.RankProgram;
import dev.vertxrma.RmaException;
import dev.vertxrma.impl.p2p.PointToPoint;
import dev.vertxrma.impl.transport.FrameType;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.ThreadingModel;
import io.vertx.core.VerticleBase;
import io.vertx.core.internal.ContextInternal;
import java.util.List;
import dev.vertxrma.impl.runtime.RankProcess;
import dev.vertxrma.impl.runtime.JobRuntime;
import dev.vertxrma.impl.runtime.Handshake;
import dev.vertxrma.impl.comm.CommImpl;

/**
 * The verticle that hosts one rank: joins the job (handshake), wires the rank's engines, runs its
 * program, finalizes (a barrier, like MPI_Finalize, so no rank tears down while others may still
 * access it) and releases everything on undeploy.
 */
public final class RankHost extends VerticleBase {

  private final JobRuntime job;
  private final int requestedRank;
  private final RankProgram program;
  private final List<String> args;
  private final boolean requireFreed;
  private RankProcess process;
  private CommImpl world;

  /**
   * @param requestedRank the rank to host, or {@code -1} to take one in the handshake
   */
  public RankHost(JobRuntime job, int requestedRank, RankProgram program, List<String> args) {
    this(job, requestedRank, program, args, false);
  }

  /**
   * @param requestedRank the rank to host, or {@code -1} to take one in the handshake
   * @param requireFreed  whether finalizing with windows not freed fails the rank
   *     ({@link dev.vertxrma.JobOptions#isRequireFreedWindows()})
   */
  public RankHost(JobRuntime job, int requestedRank, RankProgram program, List<String> args, boolean requireFreed) {
    this.job = job;
    this.requestedRank = requestedRank;
    this.program = program;
    this.args = List.copyOf(args);
    this.requireFreed = requireFreed;
  }

  /** The Java feature release that has virtual threads. */
  static final int VIRTUAL_THREADS_JAVA = 21;

  /**
   * How to deploy a rank: on an event loop, or on a virtual-thread context.
   *
   * @throws RmaException ARG for virtual threads on a JVM older than Java 21
   */
  public static DeploymentOptions deployment(boolean virtualThreads) {
    if (!virtualThreads) {
      return new DeploymentOptions();
    }
    int feature = Runtime.version().feature();
    if (feature < VIRTUAL_THREADS_JAVA) {
      throw RmaException.of(ErrorClass.ARG, "virtual-thread ranks need Java %d or newer, but this JVM is Java %s (%s);"
          + " run it with a newer JDK (bin/rmarun: JAVA=/path/to/jdk-21+/bin/java or RMA_VT_JAVA)",
          VIRTUAL_THREADS_JAVA, Runtime.version(), System.getProperty("java.home"));
    }
    return new DeploymentOptions().setThreadingModel(ThreadingModel.VIRTUAL_THREAD);
  }

  @Override
  public Future<?> start() {
    ContextInternal ctx = (ContextInternal) context;
    return new Handshake(job, ctx, requestedRank).run(rank -> {
      process = new RankProcess(job, rank, ctx);
      PointToPoint p2p = new PointToPoint(process, process.trace());
      process.handle(FrameType.SEND, p2p::onMessage);
      process.handle(FrameType.SSEND, p2p::onMessage);
      process.onFailure(p2p::fail);
      // receives still posted when the rank has finished (inner steps of a collective no other rank
      // will ever meet, which wait without a timeout) end, and whatever waits on them cleans up
      process.onClose(() -> p2p.fail(dev.vertxrma.RmaException.of(dev.vertxrma.ErrorClass.COMM,
          "rank %d of job %s has finished", rank, job.jobName())));
      world = CommImpl.world(process, p2p);
      return process.listen();
    });
  }

  /** The world communicator, once started. */
  public Comm world() {
    return world;
  }

  /** This host's rank, once started. */
  public int rank() {
    return process.rank();
  }

  /**
   * Runs the program on the rank's context, then finalizes. A failure of the program aborts the
   * job, so that no other rank waits forever for this one.
   */
  public Future<Void> runProgram() {
    return world.callRaw(() -> {
      // anything thrown on the rank's context and not caught (an Error in a callback, a stack
      // overflow while a long chain of futures completes) fails the program by name instead of
      // being logged and leaving the job waiting forever
      Promise<Object> outcome = Promise.promise();
      context.exceptionHandler(t -> outcome.tryFail(t));
      Future<?> body;
      try {
        body = program.run(world, args);
        if (body == null) {
          body = Future.failedFuture(new RmaException(ErrorClass.ARG, "rank program returned null instead of a future"));
        }
      } catch (Throwable e) {
        // an AssertionError in a rank program must fail the job, not escape the event loop; on a
        // virtual thread, await() rethrows a failure's cause as it is, checked exceptions included
        body = Future.failedFuture(e);
      }
      body.onComplete(ar -> {
        if (ar.succeeded()) {
          outcome.tryComplete(ar.result());
        } else {
          outcome.tryFail(ar.cause());
        }
      });
      return outcome.future().compose(v -> finalizeCheck()).transform(ar -> {
        if (ar.failed()) {
          RmaException cause = ar.cause() instanceof RmaException ? (RmaException) ar.cause()
              : awaitedOnEventLoop(ar.cause()) ? new RmaException(ErrorClass.ARG, "rank " + process.rank()
                  + " called await() on its event loop, which must never wait: run the ranks on virtual threads "
                  + "(bin/rmarun --virtual-threads, JobOptions.setVirtualThreads(true)) or chain the calls with "
                  + "compose (" + ar.cause() + ")", ar.cause())
              : new RmaException(ErrorClass.OTHER, "rank " + process.rank() + " failed: " + describe(ar.cause()),
                  ar.cause());
          if (process.failure() == null) {
            process.abortJob(new RmaException(ErrorClass.COMM, "job " + job.jobName() + " aborted because rank "
                + process.rank() + " failed: " + cause.getMessage(), cause));
          }
          return Future.failedFuture(cause);
        }
        return finalBarrier();
      });
    });
  }

  /** Whether {@code t} is Vert.x's refusal of {@code Future.await()} on an event-loop thread. */
  static boolean awaitedOnEventLoop(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof IllegalStateException && String.valueOf(c.getMessage()).contains("event-loop thread")) {
        return true;
      }
    }
    return false;
  }

  /** MPI_Finalize for a rank that ran no program (a world's rank): the final barrier, on the rank's context. */
  public Future<Void> finish() {
    return world.callRaw(() -> finalizeCheck().transform(ar -> {
      if (ar.failed()) {
        if (process.failure() == null) {
          process.abortJob(new RmaException(ErrorClass.COMM, "job " + job.jobName() + " aborted because rank "
              + process.rank() + " failed: " + ar.cause().getMessage(), ar.cause()));
        }
        return Future.failedFuture(ar.cause());
      }
      return finalBarrier();
    }));
  }

  /**
   * A rank program's failure in words: the message alone of Vert.x's
   * {@code Future.failedFuture(String)} (a stackless throwable whose class says nothing to the
   * user), else the throwable's class and message.
   */
  static String describe(Throwable t) {
    String type = t.getClass().getSimpleName();
    boolean bare = type.equals("NoStackTraceThrowable") || type.equals("NoStackTraceException");
    return bare && t.getMessage() != null ? t.getMessage() : t.toString();
  }

  /**
   * MPI_Finalize's synchronization: a barrier of the world, or, when the job goes on after a
   * rank's death ({@link dev.vertxrma.FailurePolicy#CONTINUE}), an agreement of the survivors
   * (a barrier would fail once a rank is dead; ULFM's finalize completes among the survivors).
   */
  private Future<Void> finalBarrier() {
    return job.failurePolicy() == dev.vertxrma.FailurePolicy.CONTINUE ? world.agree(1).mapEmpty() : world.finalizeBarrier();
  }

  /**
   * When the job requires it, fails if this rank finalizes with windows (or anything else that
   * registered a finalize check) not released: MPI_Finalize with windows not freed is erroneous.
   */
  private Future<Void> finalizeCheck() {
    String left = requireFreed ? process.unreleased() : null;
    if (left == null) {
      return Future.succeededFuture();
    }
    return Future.failedFuture(new RmaException(ErrorClass.WIN, "rank " + process.rank() + " of job " + job.jobName()
        + " finalized with " + left));
  }

  @Override
  public Future<?> stop() {
    return process == null ? Future.succeededFuture() : process.close();
  }
}
