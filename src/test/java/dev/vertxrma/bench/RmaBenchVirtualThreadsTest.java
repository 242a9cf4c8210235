package dev.vertxrma.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.testing.VirtualThreadsAvailable;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@code rmabench --virtual-threads}: every bench and sync also measured on virtual-thread ranks
 * in the blocking style, beside the future-chained rows, in CSV ({@code vt/} rows) and in the table
 * (a {@code vt await} column with the ratio to the future-chained median). Java 21+.
 */
@Tag("vt")
class RmaBenchVirtualThreadsTest {

  @BeforeAll
  static void needsJava21() {
    VirtualThreadsAvailable.assume(RmaBenchVirtualThreadsTest.class);
  }

  @Test
  void blockingStyleRowsBesideTheFutureChainedOnes() throws Exception {
    List<String[]> rows = RmaBenchTest.csv(RmaBenchTest.rmabench("--csv", "--virtual-threads", "--iterations", "30",
        "--warmup", "5", "--sizes", "8", "--sync", "lockall,lock,fence,pscw", "put-latency", "fop-latency",
        "put-bw", "barrier"));
    Set<String> keys = new TreeSet<>();
    rows.forEach(f -> keys.add(f[0] + "|" + f[1]));
    Set<String> expected = new TreeSet<>();
    for (String impl : List.of("", "vt/")) {
      for (String sync : List.of("lockall", "lock", "fence", "pscw")) {
        expected.add(impl + "put-latency|" + sync);
      }
      expected.add(impl + "fop-latency|lockall");
      expected.add(impl + "put-bw|lockall");
      expected.add(impl + "barrier|-");
    }
    assertEquals(expected, keys);

    RmaBenchTest.Outcome table = RmaBenchTest.rmabench("--virtual-threads", "--iterations", "30", "--warmup", "5",
        "--sizes", "8", "put-latency");
    assertEquals(0, table.status(), table.err());
    assertTrue(table.out().contains("vt await"), table.out());
    assertTrue(table.out().lines().anyMatch(l -> l.startsWith("put-latency ") && l.split("\\|").length == 2),
        table.out());
  }
}
