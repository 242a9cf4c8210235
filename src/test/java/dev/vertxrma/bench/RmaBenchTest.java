package dev.vertxrma.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.impl.launch.RmaRun;
import dev.vertxrma.testing.LaunchClassPath;
import java.awt.image.BufferedImage;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code rmabench} end to end, as a user runs it: the CLI in a JVM of its own, its measuring jobs
 * and the native MPICH twin in theirs; the CSV checked column by column, the PNG decoded, the
 * refusals of bad arguments checked for their message and status.
 */
class RmaBenchTest {

  private static final Path HOME = Path.of(System.getProperty("rma.home", "."));

  record Outcome(int status, String out, String err) {
  }

  @BeforeAll
  static void buildNativeTwin() throws Exception {
    // the same script bin/rmabench uses: installs mpich when missing, builds bench/native
    Process p = new ProcessBuilder("bash", HOME.resolve("bench/native/build.sh").toString())
        .redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(300, TimeUnit.SECONDS), "bench/native/build.sh did not finish");
    assertEquals(0, p.exitValue(), "bench/native/build.sh failed:\n" + out);
  }

  static Outcome rmabench(String... args) throws Exception {
    return rmabench(true, args);
  }

  /** rmabench, with the on-node path on or off ({@code -Drma.shm}) for itself and the job's JVMs. */
  static Outcome rmabench(boolean onNode, String... args) throws Exception {
    List<String> cmd = RmaRun.javaCommand(RmaBench.class.getName());
    // this JVM's flags, on the tests' one-jar class path with the client compiler (LaunchClassPath)
    cmd.set(cmd.indexOf("-cp") + 1, LaunchClassPath.jar());
    cmd.addAll(cmd.indexOf("-cp"), LaunchClassPath.jvmFlags());
    cmd.add(cmd.size() - 1, "-Drma.home=" + HOME.toAbsolutePath());
    cmd.add(cmd.size() - 1, "-Djava.awt.headless=true");
    if (!onNode) {
      cmd.add(cmd.size() - 1, "-Drma.shm=false");
    }
    cmd.addAll(Arrays.asList(args));
    Path err = Files.createTempFile("rmabench", ".err");
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(err.toFile());
    if (!onNode) {
      pb.environment().put("RMA_JAVA_OPTS", (System.getenv().getOrDefault("RMA_JAVA_OPTS", "") + " -Drma.shm=false")
          .trim());
    }
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(600, TimeUnit.SECONDS), "rmabench did not finish");
    String errText = Files.readString(err);
    Files.delete(err);
    return new Outcome(p.exitValue(), out, errText);
  }

  /** The CSV rows of a successful run, after checking the header and each row's shape. */
  static List<String[]> csv(Outcome o) {
    assertEquals(0, o.status(), "rmabench failed:\n" + o.err());
    List<String> lines = o.out().lines().toList();
    assertEquals(Row.CSV_HEADER, lines.get(0));
    List<String[]> rows = new ArrayList<>();
    for (String line : lines.subList(1, lines.size())) {
      String[] f = line.split(",", -1);
      assertEquals(9, f.length, "row " + line);
      double median = Double.parseDouble(f[6]);
      double p99 = Double.parseDouble(f[7]);
      assertTrue(median > 0 && p99 >= median, "median and p99 of " + line);
      boolean bw = f[0].endsWith("put-bw") || f[0].endsWith("get-bw");
      assertEquals(bw, !f[8].isEmpty(), "mb_per_s is filled exactly for bandwidth benches: " + line);
      if (bw) {
        double expected = 64.0 * Long.parseLong(f[4]) / median;
        assertEquals(expected, Double.parseDouble(f[8]), expected * 0.01 + 0.1, "MB/s from the median: " + line);
      }
      rows.add(f);
    }
    return rows;
  }

  private static Set<String> keys(List<String[]> rows) {
    return rows.stream().map(f -> f[0] + "|" + f[1] + "|" + f[2] + "|" + f[3] + "|" + f[4])
        .collect(Collectors.toCollection(TreeSet::new));
  }

  @Test
  void everyBenchAndSyncEmbeddedBesideMpich(@TempDir Path dir) throws Exception {
    Outcome run = rmabench("--csv", "--iterations", "40", "--warmup", "5", "--sizes", "8,4096",
        "--sync", "lockall,lock,fence,pscw", "--baseline", "mpich", "all");
    List<String[]> rows = csv(run);
    Set<String> expected = new TreeSet<>();
    for (String impl : List.of("", "mpich/")) {
      for (String sync : List.of("lockall", "lock", "fence", "pscw")) {
        for (String bench : List.of("put-latency", "get-latency")) {
          for (String bytes : List.of("8", "4096")) {
            expected.add(impl + bench + "|" + sync + "|2|1|" + bytes);
          }
        }
      }
      for (String bench : List.of("acc-latency", "get-acc-latency", "put-bw", "get-bw")) {
        expected.add(impl + bench + "|lockall|2|1|8");
        expected.add(impl + bench + "|lockall|2|1|4096");
      }
      expected.add(impl + "fop-latency|lockall|2|1|8");
      expected.add(impl + "cas-latency|lockall|2|1|8");
      expected.add(impl + "barrier|-|2|1|0");
      expected.add(impl + "fence|-|2|1|0");
      expected.add(impl + "allreduce|-|2|1|8");
      expected.add(impl + "allreduce|-|2|1|4096");
      expected.add(impl + "net-latency|-|2|1|8");
      expected.add(impl + "net-latency|-|2|1|4096");
      for (String bench : List.of("notify-latency", "signal-latency")) {
        expected.add(impl + bench + "|-|2|1|8");
        expected.add(impl + bench + "|-|2|1|4096");
      }
    }
    assertEquals(expected, keys(rows));
    rows.forEach(f -> assertEquals("40", f[5], "iterations of " + String.join(",", f)));

    // the CSV read back: the same table and a chart, without measuring again
    Path saved = dir.resolve("run.csv");
    Files.writeString(saved, run.out());
    Path png = dir.resolve("run.png");
    Outcome replay = rmabench("--input", saved.toString(), "--plot", png.toString());
    assertEquals(0, replay.status(), replay.err());
    assertTrue(replay.out().startsWith("# rmabench results read from " + saved), replay.out());
    long tableRows = replay.out().lines().filter(l -> l.matches("^[a-z-]+ +(lockall|lock|fence|pscw|-) .*")).count();
    assertEquals(rows.size() / 2, tableRows, "one table row per vertx-rma row, its MPICH twin beside it\n" + replay.out());
    assertTrue(replay.out().lines().filter(l -> l.startsWith("put-latency ")).allMatch(l -> l.split("\\|").length == 2),
        replay.out());
    assertEquals(800, ImageIO.read(png.toFile()).getWidth());
  }

  @Test
  void twoJvmsBesideMpichOverTcpAndHazelcastWithAChart(@TempDir Path dir) throws Exception {
    Path png = dir.resolve("sub/bench.png");
    Outcome o = rmabench(false, "--jvms", "2", "--iterations", "30", "--warmup", "5", "--sizes", "8,65536",
        "--baseline", "mpich,hazelcast", "--plot", png.toString(), "put-latency", "fop-latency", "put-bw", "net-latency");
    assertEquals(0, o.status(), "rmabench failed:\n" + o.err());
    String table = o.out();
    assertTrue(table.contains("## 2 JVMs (clustered, loopback, on-node path off: data plane); MPICH over TCP loopback; "
        + "Hazelcast with 2 members"), table);
    // every vertx-rma row has its MPICH ratio; put and fop rows also a Hazelcast one
    List<String> data = table.lines().filter(l -> l.matches("^(put-latency|fop-latency|put-bw|net-latency) .*")).toList();
    assertEquals(7, data.size(), table);
    for (String l : data) {
      String[] sides = l.split("\\|");
      assertEquals(3, sides.length, l);
      assertTrue(sides[1].trim().matches("[0-9.]+ +[0-9.]+ +([0-9]+ +)?[0-9.]+"), "MPICH side of " + l);
      boolean paired = l.startsWith("put-latency") || l.startsWith("fop-latency");
      assertEquals(paired, sides[2].trim().matches("[0-9.]+ +[0-9.]+ +[0-9.]+"), "Hazelcast side of " + l);
    }
    BufferedImage image = ImageIO.read(png.toFile());
    // three charts one above the other: latency against size, bandwidth against size, single-size benches
    assertEquals(800, image.getWidth());
    assertEquals(3 * 640, image.getHeight());
  }

  @Test
  void badArgumentsAreRefusedWithAReason() throws Exception {
    Outcome unknown = rmabench("put-latency", "no-such-bench");
    assertEquals(2, unknown.status());
    assertTrue(unknown.err().contains("unknown bench 'no-such-bench'; the benches are put-latency"), unknown.err());
    Outcome size = rmabench("--sizes", "8,0", "put-latency");
    assertEquals(2, size.status());
    assertTrue(size.err().contains("size 0 out of range"), size.err());
    Outcome sync = rmabench("--sync", "nope", "put-latency");
    assertEquals(2, sync.status());
    assertTrue(sync.err().contains("unknown sync 'nope'"), sync.err());
    Outcome ranks = rmabench("--np", "1", "fop-latency");
    assertEquals(2, ranks.status());
    assertTrue(ranks.err().contains("fop-latency needs at least 2 ranks"), ranks.err());
    Outcome baseline = rmabench("--baseline", "openmpi", "barrier");
    assertEquals(2, baseline.status());
    assertTrue(baseline.err().contains("unknown baseline 'openmpi'"), baseline.err());
    Outcome jvms = rmabench("--jvms", "3", "barrier");
    assertEquals(2, jvms.status());
    assertTrue(jvms.err().contains("--jvms 3 must be between 1 and --np 2"), jvms.err());
    Outcome warmupTime = rmabench("--warmup-time", "-1", "barrier");
    assertEquals(2, warmupTime.status());
    assertTrue(warmupTime.err().contains("--warmup-time must be between 0 and 600 seconds"), warmupTime.err());
  }

  /**
   * Without --warmup, every point warms up for at least --warmup-time, the ranks agreeing on the
   * number of rounds: under each synchronization (the target of lockall/lock takes part only in
   * the agreement) the run finishes, and it cannot take less than four warm-ups.
   */
  @Test
  void theWarmUpLastsAtLeastItsTimeUnderEverySync() throws Exception {
    long t0 = System.nanoTime();
    Outcome o = rmabench("--csv", "--iterations", "20", "--warmup-time", "1.5", "--sizes", "8",
        "--sync", "lockall,lock,fence,pscw", "put-latency");
    double seconds = (System.nanoTime() - t0) / 1e9;
    assertEquals(0, o.status(), "rmabench failed:\n" + o.err());
    assertEquals(Set.of("put-latency|lockall|2|1|8", "put-latency|lock|2|1|8", "put-latency|fence|2|1|8",
        "put-latency|pscw|2|1|8"), keys(csv(o)));
    assertTrue(seconds >= 4 * 1.5, "four points warmed up for 1.5 s each, yet the run took " + seconds + " s");
  }

  @Test
  void helpListsTheBenches() throws Exception {
    Outcome help = rmabench("--help");
    assertEquals(0, help.status());
    for (Bench b : Bench.values()) {
      assertTrue(help.out().contains(b.id), b.id + " in\n" + help.out());
    }
    assertTrue(help.out().contains("--baseline"), help.out());
  }
}
