package dev.vertxrma.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The native MPICH baseline: {@code bench/native/rmabench_native} (built by {@code bin/rmabench}
 * with {@code mpicc.mpich}) started with {@code mpiexec.mpich -n NP}, once per bench and size
 * with the same iteration counts as the vertx-rma side. One JVM, or several JVMs of this host
 * sharing memory (the on-node path, the default), compare with MPICH over shared memory (what an
 * MPI user gets between processes of one host); several JVMs with the on-node path off
 * ({@code -Drma.shm=false}) with MPICH over TCP on loopback ({@link #TCP}), as both then cross a network.
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
      rows.addAll(MeasuringProcess.run("mpich", cmd, plan.jvms() > 1 && !onNode() ? TCP : Map.of(), timeoutSeconds, 1, progress));
    }
    return rows;
  }

  /** Whether this JVM's jobs share memory between JVMs of the host ({@code -Drma.shm}), as rmabench's JVMs do. */
  static boolean onNode() {
    return new dev.vertxrma.TransportOptions().isSharedMemory();
  }

  /** How the baseline reached the target in a configuration of {@code jvms} JVMs. */
  static String transport(int jvms) {
    return jvms > 1 && !onNode() ? "MPICH over TCP loopback" : "MPICH over shared memory";
  }
}
