package dev.vertxrma.bench;

import dev.vertxrma.impl.launch.RmaRun;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code rmabench}: OSU-style micro-benchmarks of vertx-rma, with native MPICH and Hazelcast
 * measured in the same run as baselines. Each configuration (a JVM count) runs the benches in a
 * fresh job started like {@code rmarun}; {@code --baseline mpich} runs the same benches with
 * {@code bench/native/rmabench_native} under {@code mpiexec} (shared memory for one JVM, TCP on
 * loopback for several), {@code --baseline hazelcast} runs {@link HazelcastProgram} over the same
 * JVMs. Output: a table (default) or CSV, and optionally a PNG chart.
 */
@Command(name = "rmabench", mixinStandardHelpOptions = true, version = "rmabench (vertx-rma 0.1.0)",
    sortOptions = false, usageHelpAutoWidth = true,
    description = {"OSU-style benchmarks of vertx-rma against native MPICH and Hazelcast, measured in the same run.",
        "Latencies are medians and 99th percentiles of individually timed iterations (HdrHistogram), after a warm-up.",
        "ratio = vertx-rma time / baseline time (below 1: vertx-rma is faster)."},
    footer = {"", "Benches: put-latency get-latency (with --sync) acc-latency get-acc-latency fop-latency cas-latency"
        + " (operation + flush under lockAll), put-bw get-bw (64 operations then one flush), barrier allreduce fence"
        + " (an empty epoch), net-latency (a bare Vert.x TCP round trip between the two ranks, beside MPICH's"
        + " MPI_Send/MPI_Recv there and back: the floor under every operation that needs a reply), notify-latency"
        + " (putNotify to the other rank's awaitNotify and back) and signal-latency (put + flush + a zero-byte"
        + " message and back; MPICH's row of both); 'all' runs every one of these. counter-next mutex-lock:"
        + " dev.vertxrma.sync's Counter.next() and uncontended Mutex lock+unlock, beside Vert.x's sharedData()"
        + " counter and lock and Hazelcast's IAtomicLong and FencedLock (sync column: who).",
        "", "Examples:", "  bin/rmabench --baseline mpich put-latency fop-latency put-bw",
        "  bin/rmabench --jvms 1,2 --baseline mpich,hazelcast --plot bench.png put-latency get-latency fop-latency",
        "  bin/rmabench --sync lockall,lock,fence,pscw --sizes 8,4096 --csv put-latency",
        "  bin/rmabench --virtual-threads --sizes 8 put-latency fop-latency"})
public final class RmaBench implements Callable<Integer> {

  @Option(names = {"-n", "--np"}, paramLabel = "N", description = "ranks per job (default ${DEFAULT-VALUE})")
  int np = 2;

  @Option(names = "--jvms", paramLabel = "K[,K...]", split = ",",
      description = "JVMs per job; a list measures each configuration (default 1: embedded)")
  List<Integer> jvms = new ArrayList<>(List.of(1));

  @Option(names = "--sizes", paramLabel = "BYTES,...",
      description = "message sizes in bytes (default 8,64,512,4096,65536,1048576,4194304)")
  String sizes;

  @Option(names = "--sync", paramLabel = "MODE[,MODE...]", split = ",",
      description = "synchronization of put-latency/get-latency: lockall, lock, fence, pscw (default lockall)")
  List<String> syncs = new ArrayList<>(List.of("lockall"));

  @Option(names = "--iterations", paramLabel = "N",
      description = "measured iterations per size (default: 5000, fewer above 8 KiB; bandwidth rounds 200)")
  int iterations;

  @Option(names = "--warmup", paramLabel = "N",
      description = "unmeasured iterations first, exactly (default: phases of 4 x the measured iterations until"
          + " --warmup-time has passed, so that the JIT has compiled the measured loop; MPICH: 4 x)")
  int warmup = -1;

  @Option(names = "--warmup-time", paramLabel = "SECONDS",
      description = "least warm-up time of the Java side per bench and size, without --warmup (default: 1;"
          + " the first point of a JVM at least 4, while the JIT still compiles the start-up code)")
  double warmupSeconds = BenchPlan.DEFAULT_WARMUP_MILLIS / 1000.0;

  @Option(names = "--baseline", paramLabel = "mpich|hazelcast", split = ",",
      description = "measure these in the same run: mpich (native, bench/native), hazelcast (IAtomicLong, IMap)")
  List<String> baselines = new ArrayList<>();

  @Option(names = "--virtual-threads", description = "also run vertx-rma with virtual-thread ranks in the blocking"
      + " style (each call awaited), beside the future-chained run; needs a Java 21+, found like bin/rmarun does")
  boolean virtualThreads;

  @Option(names = "--csv", description = "print CSV: " + Row.CSV_HEADER)
  boolean csv;

  @Option(names = "--plot", paramLabel = "FILE.png", description = "draw latency and bandwidth against size")
  Path plot;

  @Option(names = "--input", paramLabel = "FILE.csv",
      description = "measure nothing: read the results of an earlier --csv run, to print or --plot them")
  Path input;

  @Option(names = "--timeout", paramLabel = "SECONDS", description = "limit of one measuring job (default ${DEFAULT-VALUE})")
  int timeoutSeconds = 900;

  @Parameters(paramLabel = "BENCH", arity = "0..*", description = "benches to run (see below)")
  List<String> benches = new ArrayList<>();

  /** Command-line entry point of {@code bin/rmabench}. */
  public static void main(String[] args) {
    System.exit(new CommandLine(new RmaBench()).execute(args));
  }

  @Override
  public Integer call() {
    if (input != null) {
      Results earlier = readCsv(input);
      int ranks = earlier.rows().isEmpty() ? np : earlier.rows().get(0).ranks();
      return report(earlier, baselinesIn(input), "# rmabench results read from " + input + ", " + ranks + " ranks");
    }
    BenchPlan template;
    Set<String> which;
    try {
      template = plan();
      which = baselines();
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(new CommandLine(this), e.getMessage());
    }
    Path home = Paths.get(System.getProperty("rma.home", "."));
    Progress progress = new Progress(total(template, which), Boolean.getBoolean("rmabench.tty"));
    Results results = new Results();
    try {
      for (int k : jvms) {
        BenchPlan plan = new BenchPlan(template.specs(), template.sizes(), template.iterations(), template.warmup(),
            template.warmupMillis(), k);
        boolean coordination = plan.specs().stream().anyMatch(sp -> sp.bench().kind == Bench.Kind.COORDINATION);
        if (!coordination || plan.specs().stream().anyMatch(sp -> sp.bench().kind != Bench.Kind.COORDINATION)) {
          results.addAll(runJob(BenchProgram.class, plan, Row.OURS, progress));
        }
        if (coordination) {
          results.addAll(runJob(CoordinationProgram.class, plan, Row.OURS, progress));
        }
        if (virtualThreads) {
          results.addAll(runJob(BenchProgram.class, plan, Row.VT, progress));
        }
        if (which.contains("mpich")) {
          results.addAll(new NativeBaseline(home, timeoutSeconds).run(plan, np, progress));
        }
        if (which.contains("hazelcast") && plan.specs().stream().anyMatch(s -> HazelcastProgram.PAIRS.containsKey(s.bench().id))) {
          results.addAll(runJob(HazelcastProgram.class, plan, "hazelcast", progress));
        }
      }
    } catch (BenchFailure e) {
      progress.clear();
      System.err.println("rmabench: " + e.getMessage());
      return 1;
    }
    progress.clear();
    if (virtualThreads) {
      which.add(Row.VT);
    }
    return report(results, which, Results.measuredHere(np));
  }

  private Integer report(Results results, Set<String> which, String firstLine) {
    PrintStream out = System.out;
    if (csv) {
      results.printCsv(out);
    } else {
      results.printTable(out, firstLine, which);
    }
    if (plot != null) {
      try {
        new Plot(results).write(plot);
        System.err.println("rmabench: chart written to " + plot);
      } catch (IOException | RuntimeException e) {
        System.err.println("rmabench: cannot draw " + plot + ": " + e);
        return 1;
      }
    }
    return 0;
  }

  private Results readCsv(Path file) {
    Results results = new Results();
    try {
      List<String> lines = java.nio.file.Files.readAllLines(file);
      if (lines.isEmpty() || !lines.get(0).equals(Row.CSV_HEADER)) {
        throw new CommandLine.ParameterException(new CommandLine(this), file + " is not the CSV of rmabench --csv"
            + " (its first line must be " + Row.CSV_HEADER + ")");
      }
      List<Row> rows = new ArrayList<>();
      for (String line : lines.subList(1, lines.size())) {
        rows.add(Row.parseCsv(line));
      }
      results.addAll(rows);
    } catch (IOException | IllegalArgumentException e) {
      throw new CommandLine.ParameterException(new CommandLine(this), "cannot read " + file + ": " + e.getMessage());
    }
    return results;
  }

  private Set<String> baselinesIn(Path file) {
    Set<String> set = new LinkedHashSet<>();
    readCsv(file).rows().forEach(r -> {
      if (!r.impl().equals(Row.OURS)) {
        set.add(r.impl());
      }
    });
    return set;
  }

  private BenchPlan plan() {
    if (np < 1) {
      throw new IllegalArgumentException("--np must be at least 1");
    }
    for (int k : jvms) {
      if (k < 1 || k > np) {
        throw new IllegalArgumentException("--jvms " + k + " must be between 1 and --np " + np);
      }
    }
    if (iterations < 0) {
      throw new IllegalArgumentException("--iterations must not be negative");
    }
    if (!(warmupSeconds >= 0 && warmupSeconds <= 600)) {
      throw new IllegalArgumentException("--warmup-time must be between 0 and 600 seconds");
    }
    List<BenchPlan.Spec> specs = new ArrayList<>();
    if (benches.isEmpty()) {
      throw new IllegalArgumentException("no BENCH given; the benches are " + Bench.ids() + " (or all)");
    }
    List<String> names = benches.contains("all") ? allBenchIds() : benches;
    for (String b : names) {
      Bench bench = Bench.of(b);
      if (bench.takesSync) {
        for (String s : syncs) {
          specs.add(new BenchPlan.Spec(bench, Bench.Sync.of(s)));
        }
      } else {
        specs.add(new BenchPlan.Spec(bench, Bench.Sync.LOCKALL));
      }
      if (bench.oneSided() && np < 2) {
        throw new IllegalArgumentException(bench.id + " needs at least 2 ranks (--np 2)");
      }
    }
    List<Long> s = sizes == null ? BenchPlan.defaultSizes() : BenchPlan.parseSizes(sizes);
    return new BenchPlan(specs.stream().distinct().toList(), s, iterations, warmup, Math.round(warmupSeconds * 1000), 1);
  }

  private static List<String> allBenchIds() {
    List<String> ids = new ArrayList<>();
    for (Bench b : Bench.values()) {
      if (b.kind != Bench.Kind.COORDINATION) { // not OSU benches: no MPICH twin; named to run
        ids.add(b.id);
      }
    }
    return ids;
  }

  private Set<String> baselines() {
    Set<String> set = new LinkedHashSet<>();
    for (String b : baselines) {
      String name = b.trim().toLowerCase(Locale.ROOT);
      if (!name.equals("mpich") && !name.equals("hazelcast")) {
        throw new IllegalArgumentException("unknown baseline '" + b + "'; choose mpich or hazelcast");
      }
      set.add(name);
    }
    return set;
  }

  private int total(BenchPlan plan, Set<String> which) {
    int points = plan.points().size() * (virtualThreads ? 2 : 1);
    long hz = plan.points().stream().filter(p -> HazelcastProgram.PAIRS.containsKey(p.bench().id)).count();
    return jvms.size() * (points + (which.contains("mpich") ? points : 0) + (which.contains("hazelcast") ? (int) hz : 0));
  }

  /** Runs {@code program} as a job of {@code np} ranks over the plan's JVMs and collects its rows. */
  private List<Row> runJob(Class<?> program, BenchPlan plan, String impl, Progress progress) throws BenchFailure {
    List<String> cmd = RmaRun.javaCommand(RmaRun.class.getName());
    if (Row.VT.equals(impl)) {
      // a Java 21+ for virtual threads, with the flags that Java needs (bin/vt-jdk/bin/java)
      cmd.set(0, Paths.get(System.getProperty("rma.home", "."), "bin", "vt-jdk", "bin", "java").toString());
      cmd.add("--virtual-threads");
    }
    // --quiet: rmabench draws its own progress
    cmd.addAll(List.of("--quiet", "-np", String.valueOf(np), "--jvms", String.valueOf(plan.jvms()),
        "--job", "rmabench-" + UUID.randomUUID().toString().substring(0, 8), "--timeout", "120", program.getName()));
    cmd.addAll(plan.toArgs());
    return MeasuringProcess.run(impl, cmd, java.util.Map.of(), timeoutSeconds, progress);
  }

  /** A measuring job or program that failed: its message says which and why. */
  static final class BenchFailure extends Exception {
    private static final long serialVersionUID = 1L;

    BenchFailure(String message) {
      super(message);
    }
  }
}
