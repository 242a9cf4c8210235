package dev.vertxrma.impl.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The port a launcher gives a job's first JVM ({@link LeaderPort#free}) is reserved
 * on the host until the launcher ends: no other launcher (another process) and no later job of the
 * same launcher is given it meanwhile, though nothing has bound it yet. Before, two jobs started
 * in the same second could both find a port free and both give it to their first JVM, and one of
 * them failed with Hazelcast's "Port [...] is already in use and auto-increment is disabled".
 * Each test reserves in a directory of its own, so that the launchers of concurrent tests keep
 * theirs.
 */
class LeaderPortTest {

  /** Ports this test's launcher reserves before the other process asks. */
  private static final int MINE = 20;

  @TempDir
  Path reservations;

  @AfterEach
  void release() {
    LeaderPort.releaseAll();
  }

  /** Every port {@code java Probe DIR} was given until none was left, one a line. */
  private List<Integer> portsOfAnotherProcess() throws Exception {
    List<String> cmd = List.of(System.getProperty("java.home") + File.separator + "bin" + File.separator + "java",
        "-cp", System.getProperty("java.class.path"), Probe.class.getName(), reservations.toString());
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the probe process ended");
    assertEquals(0, p.exitValue(), out);
    List<Integer> ports = new ArrayList<>();
    for (String line : out.strip().split("\n")) {
      ports.add(Integer.parseInt(line.strip()));
    }
    return ports;
  }

  @Test
  void aReservedPortIsGivenToNoOtherLauncherAndNoLaterJob() throws Exception {
    Set<Integer> mine = new HashSet<>();
    // many reservations, so that later calls meet earlier ones of this JVM: looking at such a port
    // again (opening and closing its lock file) dropped the reservation at the OS (a CI run: the
    // other process was given 5780, reserved here)
    for (int i = 0; i < MINE; i++) {
      int port = LeaderPort.free("127.0.0.1", reservations);
      assertTrue(port >= LeaderPort.FROM && port <= LeaderPort.TO, "in range: " + port);
      assertTrue(mine.add(port), "a later job of this launcher was given " + port + " again");
    }
    List<Integer> theirs = portsOfAnotherProcess();
    int range = LeaderPort.TO - LeaderPort.FROM + 1;
    assertEquals(-1, theirs.get(theirs.size() - 1), "the other process ran out: " + theirs);
    Set<Integer> given = new HashSet<>(theirs.subList(0, theirs.size() - 1));
    assertEquals(theirs.size() - 1, given.size(), "the other process was given a port twice: " + theirs);
    for (int port : mine) {
      assertTrue(!given.contains(port), "the other process was given " + port + ", reserved here: " + theirs);
    }
    // every port of the range it could bind, except this launcher's (some may be bound by
    // another program of the machine)
    assertTrue(given.size() <= range - MINE, theirs.toString());
    assertTrue(given.size() >= range - MINE - 10, "most of the range was free to it: " + theirs);
  }

  @Test
  void aPortIsFreeAgainOnceItsLauncherEnded() throws Exception {
    List<Integer> first = portsOfAnotherProcess();
    List<Integer> second = portsOfAnotherProcess();
    assertEquals(first.size(), second.size(), "the first process's reservations ended with it: " + first + " " + second);
    assertTrue(first.size() > 1, first.toString());
  }

  /** A launcher that asks for leader ports until none is left, printing each, then -1. */
  public static final class Probe {
    public static void main(String[] args) {
      Path dir = Path.of(args[0]);
      for (int port = 0; port >= 0; ) {
        port = LeaderPort.free("127.0.0.1", dir);
        System.out.println(port);
      }
    }
  }
}
