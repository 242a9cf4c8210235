package dev.vertxrma.impl.runtime;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.RmaException;
import dev.vertxrma.impl.transport.FrameCodec;
import io.vertx.core.Closeable;
import io.vertx.core.Completable;
import io.vertx.core.Vertx;
import io.vertx.core.internal.VertxInternal;
import io.vertx.core.shareddata.LocalMap;
import io.vertx.core.shareddata.Shareable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The jobs that run on one Vert.x instance, by name, each with the number of its users (the
 * ranks and worlds that obtained it). It lives in that instance, in its local shared data, and
 * dies with it: a close hook of the instance releases the jobs still there (their cluster
 * watch, their data plane) and empties it. Nothing is kept per JVM, so that two Vert.x instances
 * of one JVM run their jobs apart, each with its own settings; one instance's jobs are guarded
 * by one monitor, never held across I/O or callbacks.
 */
final class JobRegistry implements Shareable, Closeable {

  /** The local map of a Vert.x instance that holds its registry. */
  private static final String MAP = "dev.vertxrma.jobs";
  private static final String KEY = "registry";

  /** A job and its number of users. */
  private static final class Held {
    final JobRuntime job;
    int users;

    Held(JobRuntime job) {
      this.job = job;
    }
  }

  private final Map<String, Held> jobs = new HashMap<>();
  private boolean closed;

  private JobRegistry() {
  }

  /**
   * The registry of {@code vertx}, made on first use: the event bus learns the frame codec then,
   * and the instance's close hook closes it.
   */
  static JobRegistry of(Vertx vertx) {
    LocalMap<String, JobRegistry> map = vertx.sharedData().getLocalMap(MAP);
    JobRegistry registry = map.get(KEY);
    if (registry != null) {
      return registry;
    }
    return map.computeIfAbsent(KEY, k -> {
      try {
        vertx.eventBus().registerCodec(new FrameCodec());
      } catch (IllegalStateException alreadyRegistered) {
        // by an earlier registry of this instance
      }
      JobRegistry created = new JobRegistry();
      ((VertxInternal) vertx).addCloseHook(created);
      return created;
    });
  }

  /** The registry of {@code vertx} if a job ever started there, else {@code null}. */
  static JobRegistry find(Vertx vertx) {
    return (JobRegistry) vertx.sharedData().getLocalMap(MAP).get(KEY);
  }

  /**
   * Job {@code name} with one user more, made by {@code create} if it does not run here.
   *
   * @throws RmaException ARG when it runs here with another {@code np}, or the instance is closed
   */
  synchronized JobRuntime obtain(String name, int np, Supplier<JobRuntime> create) {
    if (closed) {
      throw RmaException.of(ErrorClass.ARG, "cannot start job %s: its Vert.x instance is closed", name);
    }
    Held held = jobs.get(name);
    if (held == null) {
      held = new Held(create.get());
      jobs.put(name, held);
    } else if (held.job.np() != np) {
      throw RmaException.of(ErrorClass.ARG, "job %s already runs here with np=%d, cannot join it with np=%d", name,
          held.job.np(), np);
    }
    held.users++;
    return held.job;
  }

  /**
   * One user of {@code job} less; the last one removes it and closes its resources.
   *
   * @return whether it was the last one (also when the instance's close removed it before)
   */
  boolean release(JobRuntime job) {
    synchronized (this) {
      Held held = jobs.get(job.jobName());
      if (held != null && held.job == job && --held.users > 0) {
        return false;
      }
      if (held != null && held.job == job) {
        jobs.remove(job.jobName());
      }
    }
    job.closeResources();
    return true;
  }

  /** Job {@code name} if it runs here, else {@code null}. */
  synchronized JobRuntime get(String name) {
    Held held = jobs.get(name);
    return held == null ? null : held.job;
  }

  /** The jobs that run here. */
  synchronized java.util.List<JobRuntime> all() {
    java.util.List<JobRuntime> list = new java.util.ArrayList<>();
    for (Held h : jobs.values()) {
      list.add(h.job);
    }
    return list;
  }

  /** The number of jobs that run here. */
  synchronized int size() {
    return jobs.size();
  }

  /** The Vert.x instance closes: the jobs still here are released, and no job starts any more. */
  @Override
  public void close(Completable<Void> completion) {
    List<JobRuntime> left = new ArrayList<>();
    synchronized (this) {
      closed = true;
      for (Held held : jobs.values()) {
        left.add(held.job);
      }
      jobs.clear();
    }
    for (JobRuntime job : left) {
      job.closeResources();
    }
    completion.succeed();
  }
}
