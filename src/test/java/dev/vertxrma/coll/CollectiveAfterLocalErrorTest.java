package dev.vertxrma.coll;

import dev.vertxrma.junit.RmaJob;
import dev.vertxrma.junit.RmaTest;
import dev.vertxrma.testing.Jobs;
import dev.vertxrma.testing.Jobs.Mode;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A rank whose own argument check fails a collective call (a bad count, root, buffer or vector
 * counts) still takes the call's place in the communicator's order, and the call fails promptly
 * at every rank that waits for it, with that rank's error class and a message naming it and the
 * reason (not at the wait's timeout, 20 s here); the next collectives then match and give the
 * right values everywhere ({@link LocalArgumentErrorProgram}: bcast, allreduce, reduce with a bad
 * root, gatherv, alltoallv, scatter, allgatherv, scan). In one JVM (embedded, and two clustered
 * nodes), and over two JVMs of this host, whose small broadcasts and allreduces meet in shared
 * memory.
 */
class CollectiveAfterLocalErrorTest {

  @ParameterizedTest
  @EnumSource(Mode.class)
  void theCallFailsEverywhereAtOnceAndTheNextOneMatches(Mode mode) {
    Jobs.await(Jobs.start(mode, Jobs.options(LocalArgumentErrorProgram.NP).setWaitTimeoutMs(20_000),
        new LocalArgumentErrorProgram()), 120);
  }

  @Tag("multijvm")
  @RmaTest(ranks = LocalArgumentErrorProgram.NP, jvms = 2, timeoutSeconds = 120)
  void overTwoJvmsWhoseCollectivesMeetInSharedMemory(RmaJob job) {
    job.run(LocalArgumentErrorProgram.class);
  }
}
