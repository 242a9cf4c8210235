package dev.vertxrma.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The native MPICH baseline: {@code bench/native/rmabench_native} (built by {@code bin/rmabench}
 * with {@code mpicc.mpich}) started with {@code mpiexec.mpich -n NP}, once per bench and size
 * with the same iteration counts as the vertx-rma side. One JVM compares with MPICH over shared
 * memory; several JVMs with MPICH over TCP on loopback ({@link #TCP}).
 */
final class NativeBaseline {

  /** Forces MPICH (ch4:ucx) onto TCP over loopback, also between processes of one host. */
  static final Map<String, String> TCP = Map.of("MPIR_CVAR_NOLOCAL", "1", "UCX_TLS", "tcp,self", "UCX_NET_DEVICES", "lo");

  private final Path binary;
  private final int timeoutSeconds;

  NativeBaseline(Path home, int timeoutSeconds) {
    this.binary = home.resolve("bench/native/build/rmabench_native");
    this.timeoutSeconds = timeoutSeconds;
  }

  List<Row> run(BenchPlan plan, int np, Progress progress) throws RmaBench.BenchFailure {
    if (!Files.isExecutable(binary)) {
      throw new RmaBench.BenchFailure(binary + " is missing: run rmabench through bin/rmabench, which builds it"
          + " (it needs Debian's mpich and libmpich-dev)");
    }
    String mpiexec = System.getenv().getOrDefault("MPIEXEC", "mpiexec.mpich");
    List<Row> rows = new ArrayList<>();
    for (BenchPlan.Point p : plan.points()) {
      int iters = plan.iterations(p.bench(), p.bytes());
      List<String> cmd = List.of(mpiexec, "-n", String.valueOf(np), binary.toString(), "-b", p.bench().id,
          "-s", p.sync().id, "-z", String.valueOf(p.bytes()), "-i", String.valueOf(iters),
          "-w", String.valueOf(plan.warmup(iters)), "-j", String.valueOf(plan.jvms()));
      rows.addAll(MeasuringProcess.run("mpich", cmd, plan.jvms() > 1 ? TCP : Map.of(), timeoutSeconds, 1, progress));
    }
    return rows;
  }

  /** How the baseline reached the target in a configuration of {@code jvms} JVMs. */
  static String transport(int jvms) {
    return jvms > 1 ? "MPICH over TCP loopback" : "MPICH over shared memory";
  }
}
