package dev.vertxrma.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.vertxrma.junit.RingProgram;
import dev.vertxrma.testing.LaunchClassPath;
import dev.vertxrma.testing.Rmarun;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/rmarun PROGRAM} without {@code -np} in processes started by a process manager (on the
 * test class path through {@code RMA_CLASSPATH}): under MPICH's Hydra {@code mpiexec} (the one
 * Debian's {@code mpich} installs, which {@code .ci/run} installs; skipped, saying so, where there
 * is none) a 4-rank job of one JVM per process whose every process exits 0, and a failing rank
 * that makes {@code mpiexec} fail instead of hang; under Slurm's {@code srun}, two processes
 * started by the test with the variables {@code srun} sets, made up (there is no Slurm controller
 * here, so {@code srun} itself never runs): they form the job from {@code SLURM_PROCID},
 * {@code SLURM_NTASKS} and {@code SLURM_JOB_NODELIST} and take its secret from the user's key,
 * which the first run makes with mode 0600.
 */
@Tag("multijvm")
class ProcessManagerTest {

  private static final long WAIT_SECONDS = 120;

  @TempDir
  Path tmp;

  /** Exit status and output (stdout and stderr together) of one process. */
  record Outcome(int exit, String output) {
    @Override
    public String toString() {
      return "exit " + exit + "\n--- output ---\n" + output;
    }
  }

  /** The installed MPICH mpiexec (Hydra), or null. */
  static String mpiexec() throws Exception {
    for (String name : List.of("mpiexec.mpich", "mpiexec.hydra", "mpiexec")) {
      for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin").split(File.pathSeparator)) {
        File f = new File(dir, name);
        if (f.canExecute() && isHydra(f)) {
          return f.getAbsolutePath();
        }
      }
    }
    return null;
  }

  private static boolean isHydra(File mpiexec) throws Exception {
    Process p = new ProcessBuilder(mpiexec.getAbsolutePath(), "--version").redirectErrorStream(true).start();
    String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    return p.waitFor(30, TimeUnit.SECONDS) && text.contains("HYDRA");
  }

  /** Starts {@code cmd} with the test class path for bin/rmarun and {@code vars} added, no manager's variables inherited. */
  private Process start(List<String> cmd, Map<String, String> vars, Path output) throws Exception {
    ProcessBuilder pb = new ProcessBuilder(cmd).directory(Rmarun.home()).redirectErrorStream(true)
        .redirectOutput(output.toFile());
    Map<String, String> env = pb.environment();
    env.keySet().removeIf(k -> k.startsWith("SLURM_") || k.startsWith("PMI_") || k.startsWith("MPI_")
        || k.equals("RMA_JOB_SECRET_FILE"));
    LaunchClassPath.into(env);
    env.putAll(vars);
    return pb.start();
  }

  private Outcome finish(Process p, Path output) throws Exception {
    boolean finished = p.waitFor(WAIT_SECONDS, TimeUnit.SECONDS);
    if (!finished) {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
      p.waitFor(30, TimeUnit.SECONDS);
    }
    Outcome o = new Outcome(finished ? p.exitValue() : -1, Files.readString(output, StandardCharsets.UTF_8));
    assertTrue(finished, "did not end within " + WAIT_SECONDS + " s\n" + o);
    return o;
  }

  private Outcome underMpiexec(int n, String... rmarunArgs) throws Exception {
    String mpiexec = mpiexec();
    assumeTrue(mpiexec != null, "no MPICH mpiexec (Hydra) on the PATH: apt-get install mpich (.ci/run does)");
    List<String> cmd = new ArrayList<>(List.of(mpiexec, "-n", String.valueOf(n),
        new File(Rmarun.home(), "bin/rmarun").getAbsolutePath()));
    cmd.addAll(List.of(rmarunArgs));
    Path out = Files.createTempFile(tmp, "mpiexec", ".out");
    return finish(start(cmd, Map.of(), out), out);
  }

  /** The command: {@code mpiexec -n 4 bin/rmarun twisted}, one rank per process, every process exits 0. */
  @Test
  void mpiexecRunsAFourRankJobOneRankPerProcess() throws Exception {
    Outcome o = underMpiexec(4, "--tag-output", "twisted");
    assertEquals(0, o.exit(), "mpiexec's status is 0 only when every process exited 0\n" + o);
    assertTrue(o.output().lines().anyMatch(l -> l.startsWith("[0] twisted: verified") && l.contains("nprocs=4")), o.toString());
    // each process is the JVM of its rank: rmarun starts no JVMs of its own
    assertFalse(o.output().contains("rmarun: starting"), o.toString());
    assertFalse(o.output().contains("BAD TERMINATION"), o.toString());
  }

  /**
   * Rank 1 fails after the first fence: the job aborts, every process says why and exits 1 (a
   * failed one without PMI's finalize, upon which Hydra stops whatever still runs).
   */
  @Test
  void aFailingRankUnderMpiexecFailsTheJobInsteadOfHanging() throws Exception {
    Outcome o = underMpiexec(2, RingProgram.class.getName(), "fail");
    assertNotEquals(0, o.exit(), o.toString());
    // each process says why it failed (the failing one ends without finalize after the others' grace)
    assertTrue(o.output().contains(" failed: RMA_RANGE: " + RingProgram.FAILURE), o.toString());
    assertTrue(o.output().contains("aborted because rank 1 failed: RMA_RANGE: " + RingProgram.FAILURE), o.toString());
    assertTrue(o.output().contains("rmarun: job mpiexec-kvs_"), "the job's name comes from Hydra's key-value space\n" + o);
    // not hanging is finish's: every process ended by itself within WAIT_SECONDS. Ended by the
    // abort, not by a wait that timed out (what "< 60 s" stood for, measuring the loaded machine):
    assertFalse(o.output().contains("TIMEOUT"), "no rank waited for its wait timeout\n" + o);
  }

  /**
   * Two processes with srun's variables (made up: no Slurm controller here): rank 0 and 1 of a
   * job of 2 on node list {@code localhost}, the secret from the user's key in {@code $HOME}.
   */
  @Test
  void srunsVariablesFormTheJob() throws Exception {
    Path home = Files.createDirectories(tmp.resolve("home"));
    String jobId = String.valueOf(Math.abs(UUID.randomUUID().getLeastSignificantBits() % 1_000_000_000L));
    List<Process> processes = new ArrayList<>();
    List<Path> outputs = new ArrayList<>();
    for (int r = 0; r < 2; r++) {
      Path out = Files.createTempFile(tmp, "srun" + r, ".out");
      outputs.add(out);
      processes.add(start(List.of(new File(Rmarun.home(), "bin/rmarun").getAbsolutePath(), "--tag-output", "twisted"),
          Map.of("HOME", home.toString(), "SLURM_PROCID", String.valueOf(r), "SLURM_LOCALID", String.valueOf(r),
              "SLURM_NTASKS", "2", "SLURM_JOB_ID", jobId, "SLURM_STEP_ID", "0", "SLURM_JOB_NODELIST", "localhost",
              "SLURM_STEP_NODELIST", "localhost", "SLURMD_NODENAME", "localhost"), out));
    }
    Outcome rank0 = finish(processes.get(0), outputs.get(0));
    Outcome rank1 = finish(processes.get(1), outputs.get(1));
    assertEquals(0, rank0.exit(), rank0 + "\n" + rank1);
    assertEquals(0, rank1.exit(), rank0 + "\n" + rank1);
    assertTrue(rank0.output().lines().anyMatch(l -> l.startsWith("[0] twisted: verified") && l.contains("nprocs=2")),
        rank0.toString());
    Path key = home.resolve(".vertx-rma/job.key");
    assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(key)));
    assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(key.getParent())));
  }
}
