package dev.vertxrma.sync;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.testing.Rmarun;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A JVM that holds a mutex, and waits in another, killed ({@code kill -9}) or stopped
 * ({@code kill -STOP}) under {@code --on-failure continue}: {@link SyncFaults} over 4 ranks in 2
 * JVMs, the JVM of ranks 2 and 3 the victim, with the JVMs sharing window memory (the on-node
 * path) or not ({@code -Drma.shm=false}: every operation crosses the data plane). The next live
 * waiter must get the dead holder's mutex saying so within the failure-detection bound of
 * docs/failure-and-security.md (2 s after a kill, 10 s after a stop: heartbeats), the dead waiter
 * must be skipped without it, tokens must keep increasing, the counters must fail or count as
 * {@link SyncFaults} says, and rmarun must report the lost JVM once.
 */
@Tag("multijvm")
class SyncFaultsTest {

  /** docs/failure-and-security.md: every survivor sees a killed JVM within 2 s (FaultsTest.KILLED_MS). */
  private static final long KILLED_MS = 2_000;
  /** A stopped JVM is found by its missing heartbeats (4 s in conf/cluster.xml); FaultsTest.HUNG_MS. */
  private static final long STOPPED_MS = 10_000;

  @ParameterizedTest(name = "kill -{0} of the holder's JVM, shared memory {1}")
  @CsvSource({"KILL, true", "KILL, false", "STOP, true"})
  void aLostHoldersMutexGoesToTheNextLiveWaiterSayingSo(String signal, boolean sharedMemory) throws Exception {
    try (Rmarun run = Rmarun.startWith(sharedMemory ? "" : "-Drma.shm=false", "-np", "4", "--jvms", "2",
        "--on-failure", "continue", SyncFaults.class.getName())) {
      run.await(run.line(SyncFaults.IN_PLACE), 120, "every rank in its place");
      ProcessHandle victim = run.await(run.rankJvm(2, 2), 10, "finding the JVM of ranks 2..3");
      long lost = System.nanoTime();
      Rmarun.signal(victim, signal);
      Rmarun.Line got = run.await(run.line(SyncFaults.GOT_A), 30, "rank 1 getting the dead holder's mutex");
      run.await(run.line("sync-faults: verified"), 60, "rank 0's checks");
      if ("STOP".equals(signal)) {
        // rmarun would kill it 10 s after the survivors ended (FaultsTest checks that): not waited for here
        Rmarun.signal(victim, "KILL");
      }
      int status = run.await(run.exit(), 60, "rmarun's exit");
      String out = run.output();
      assertEquals(0, status, out);
      assertTrue(out.contains("JVM 1 (ranks 2..3"), "rmarun names the lost JVM\n" + out);
      long ms = TimeUnit.NANOSECONDS.toMillis(got.nanos() - lost);
      long bound = "KILL".equals(signal) ? KILLED_MS : STOPPED_MS;
      assertTrue(ms <= bound, "rank 1 got the mutex " + ms + " ms after SIG" + signal + " (bound " + bound + " ms)\n"
          + out);
      System.out.printf("SyncFaultsTest: SIG%s, shared memory %s: the next live waiter got the mutex after %d ms%n",
          signal, sharedMemory, ms);
    }
  }
}
