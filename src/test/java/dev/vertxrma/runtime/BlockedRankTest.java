package dev.vertxrma.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.JobOptions;
import dev.vertxrma.Rma;
import dev.vertxrma.RmaException;
import io.vertx.core.Future;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A rank whose program blocks its event loop (a CompletableFuture.get() on it), in a job the
 * library runs on a Vert.x instance of its own (as rmarun's JVMs do): the job ends with TIMEOUT
 * once the loop has been blocked longer than the wait timeout, naming the rank, where it waits and
 * the fix. Before (issue 42), nothing ended it before rmarun's own limit (141 s for --timeout 10)
 * and Vert.x logged a stack trace every second naming no rank.
 */
class BlockedRankTest {

  @Test
  void aRankThatBlocksItsEventLoopEndsTheJobWithTimeoutNamingItAndTheFix() throws Exception {
    CompletableFuture<Void> release = new CompletableFuture<>();
    JobOptions options = new JobOptions().setNp(2).setWaitTimeoutMs(2_000);
    Future<Void> job = Rma.run(options, (world, args) -> {
      if (world.rank() == 1) {
        try {
          release.get(); // blocks the rank's event loop until the test has seen the job end
        } catch (InterruptedException | ExecutionException e) {
          throw new IllegalStateException(e);
        }
      }
      return world.barrier();
    });
    Throwable failure;
    try {
      job.toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
      failure = null;
    } catch (ExecutionException e) {
      failure = e.getCause();
    } finally {
      release.complete(null);
    }
    assertInstanceOf(RmaException.class, failure, String.valueOf(failure));
    RmaException e = (RmaException) failure;
    assertEquals(ErrorClass.TIMEOUT, e.errorClass(), e.getMessage());
    for (String part : new String[] {"rank 1 of job", "blocked for", "CompletableFuture.get", "called from "
        + BlockedRankTest.class.getName(), "--virtual-threads", "compose"}) {
      assertTrue(e.getMessage().contains(part), "'" + part + "' in: " + e.getMessage());
    }
  }
}
