package dev.vertxrma.impl.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.impl.runtime.ClusterSupport;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The parts of {@code rmarun} under a process manager that need no process manager
 * ({@code ProcessManagerTest} runs the real {@code mpiexec} and srun's variables): Slurm's host-list
 * syntax and its bad input, how the environment of {@code mpiexec} and {@code srun} sets up the
 * command line (and what it refuses), job names, the ports of a host's processes, the PMI-1 lines,
 * and the user's key (made with mode 0600, refused when open to others).
 */
class ProcessManagerRunTest {

  @TempDir
  Path tmp;

  @Test
  void slurmHostListsExpand() {
    assertEquals(List.of("node01", "node02", "node03", "node07", "gpu5"), SlurmHostList.expand("node[01-03,07],gpu5"));
    assertEquals(List.of("r1n1", "r1n2", "r2n1", "r2n2"), SlurmHostList.expand("r[1-2]n[1-2]"));
    assertEquals(List.of("n8", "n9", "n10"), SlurmHostList.expand("n[8-10]"));
    assertEquals(List.of("n08", "n09", "n10"), SlurmHostList.expand("n[08-10]"));
    assertEquals(List.of("n1-ib", "n2-ib", "login.example.org"), SlurmHostList.expand("n[1-2]-ib,login.example.org"));
    assertEquals(List.of("localhost"), SlurmHostList.expand("localhost"));
    assertEquals(List.of("a", "a"), SlurmHostList.expand("a,a"));
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "''|the host list is empty",
      "node[01-03|leaves a bracket open",
      "node]1|closes a bracket it never opened",
      "n[[1]]|nests a bracket",
      "n[3-1]|range 3-1 in n[3-1] runs backwards",
      "n[a-b]|'a-b' in n[a-b] is not a number or a range N-M",
      "n[1,,2]|'' in n[1,,2] is not a number or a range N-M",
      "n[1-]|'1-' in n[1-] is not a number or a range N-M",
      "n[]|has an empty range []",
      "a,,b|has an empty entry",
      "a b|has a blank or control character at position 2",
      "n[1-999999999]|names more than 1048576 hosts"})
  void badSlurmHostListsAreRefusedSayingWhy(String list, String why) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> SlurmHostList.expand(list));
    assertTrue(e.getMessage().contains(why), e.getMessage());
  }

  private static Map<String, String> hydra(int rank, int size) {
    return new HashMap<>(Map.of("PMI_RANK", String.valueOf(rank), "PMI_SIZE", String.valueOf(size), "PMI_FD", "6",
        "MPI_LOCALRANKID", String.valueOf(rank), "MPI_LOCALNRANKS", String.valueOf(size)));
  }

  private static Map<String, String> slurm(int rank, int size, String nodes) {
    return new HashMap<>(Map.of("SLURM_PROCID", String.valueOf(rank), "SLURM_NTASKS", String.valueOf(size),
        "SLURM_LOCALID", "0", "SLURM_JOB_ID", "77", "SLURM_STEP_ID", "3", "SLURM_STEP_NODELIST", nodes));
  }

  @Test
  void theManagersEnvironmentMakesThisJvmOneRank() {
    RmaRunCommand a = new RmaRunCommand();
    ProcessManagerRun pm = ProcessManagerRun.of(a, hydra(2, 4));
    assertEquals(ProcessManagerRun.Kind.HYDRA, pm.kind);
    assertEquals(4, a.np);
    assertTrue(a.managed);
    assertEquals(List.of(2, 1, 2), List.of(pm.rank, pm.rankCount, pm.jvmIndex));
    assertEquals(2, pm.localRank);

    RmaRunCommand b = new RmaRunCommand();
    ProcessManagerRun s = ProcessManagerRun.of(b, slurm(1, 3, "node[1-3]"));
    assertEquals(ProcessManagerRun.Kind.SLURM, s.kind);
    assertEquals(3, b.np);
    assertEquals(List.of(1, 1, 1), List.of(s.rank, s.rankCount, s.jvmIndex));
    assertEquals(List.of("node1", "node2", "node3"), s.slurmNodes());

    // -np makes rmarun an ordinary launcher in each process; no manager, no part
    RmaRunCommand c = new RmaRunCommand();
    c.np = 2;
    assertNull(ProcessManagerRun.of(c, hydra(0, 4)));
    assertNull(ProcessManagerRun.of(new RmaRunCommand(), Map.of("PATH", "/usr/bin")));
    // a Slurm batch script (no step) is not a task of srun
    Map<String, String> batch = slurm(0, 4, "n1");
    batch.remove("SLURM_STEP_ID");
    assertNull(ProcessManagerRun.of(new RmaRunCommand(), batch));
  }

  private static Map<String, String> entrypoint(String ranks, String index) {
    Map<String, String> env = new HashMap<>(Map.of("RMA_MEMBERS", "h0,h1,h2", "RMA_NP", "6", "RMA_JOB", "demo",
        "RMA_RANKS", ranks));
    if (index != null) {
      env.put("RMA_MEMBER_INDEX", index);
    }
    return env;
  }

  /** The Docker entrypoint's member: its ranks, its index and the job's size from the variables the entrypoint sets. */
  @Test
  void theEntrypointsVariablesMakeThisJvmOneMember() {
    RmaRunCommand a = new RmaRunCommand();
    ProcessManagerRun pm = ProcessManagerRun.of(a, entrypoint("2:2", "1"));
    assertEquals(ProcessManagerRun.Kind.ENTRYPOINT, pm.kind);
    assertEquals(6, a.np);
    assertTrue(a.managed && a.quiet);
    assertEquals(List.of(2, 2, 1), List.of(pm.rank, pm.rankCount, pm.jvmIndex));
    assertEquals("ranks 2..3 of 6 under docker/entrypoint.sh", pm.describe());
    assertEquals(0, ProcessManagerRun.of(new RmaRunCommand(), entrypoint("0:2", null)).jvmIndex);
    // RMA_MEMBERS alone is the entrypoint's own switch, not rmarun's
    Map<String, String> members = entrypoint("0:2", null);
    members.remove("RMA_RANKS");
    assertNull(ProcessManagerRun.of(new RmaRunCommand(), members));
    assertUsage(entrypoint("5:2", null), null, "RMA_RANKS=5:2 must be FIRST:COUNT, ranks within 0..5 of RMA_NP=6");
    assertUsage(entrypoint("two", null), null, "RMA_RANKS=two must be FIRST:COUNT");
    Map<String, String> noJob = entrypoint("0:2", null);
    noJob.remove("RMA_JOB");
    assertUsage(noJob, null, "RMA_JOB (the job's name, the same in every member) is not set");
    RmaRunCommand x = new RmaRunCommand();
    x.env.add("MODE=fast");
    assertUsage(entrypoint("0:2", null), x, "-x MODE=fast under docker/entrypoint.sh: each process is one JVM holding "
        + "the ranks RMA_RANKS gives, whose environment is the one docker/entrypoint.sh gives it (docker run -e NAME=VALUE)");
  }

  @Test
  void anEnvironmentOrOptionThatContradictsTheManagerIsAUsageError() {
    assertUsage(hydra(4, 4), null, "environment gives rank 4 of a job of 4 processes");
    Map<String, String> noFd = hydra(0, 2);
    noFd.remove("PMI_FD");
    assertUsage(noFd, null, "PMI_FD is not set");
    Map<String, String> notNumber = hydra(0, 2);
    notNumber.put("PMI_SIZE", "four");
    assertUsage(notNumber, null, "PMI_SIZE=four is not a number");
    Map<String, String> noJob = slurm(0, 2, "n1");
    noJob.remove("SLURM_JOB_ID");
    assertUsage(noJob, null, "no SLURM_JOB_ID");
    assertUsage(slurm(0, 2, "n[1-"), null, "SLURM_STEP_NODELIST: 'n[1-' leaves a bracket open");
    RmaRunCommand jvms = new RmaRunCommand();
    jvms.jvms = 2;
    assertUsage(hydra(0, 2), jvms, "--jvms 2 under mpiexec: each process is one JVM holding one rank");
    RmaRunCommand launch = new RmaRunCommand();
    launch.launch = "ssh";
    assertUsage(slurm(0, 2, "n1"), launch, "--launch ssh under srun");
    RmaRunCommand x = new RmaRunCommand();
    x.env.add("MODE=fast");
    assertUsage(hydra(0, 2), x, "-x MODE=fast under mpiexec: each process is one JVM holding one rank, whose "
        + "environment is the one mpiexec gives it (mpiexec -genv NAME VALUE)");
  }

  private static void assertUsage(Map<String, String> env, RmaRunCommand a, String expected) {
    RmaRunCommand.UsageError e = assertThrows(RmaRunCommand.UsageError.class,
        () -> ProcessManagerRun.of(a == null ? new RmaRunCommand() : a, env));
    assertTrue(e.getMessage().contains(expected), e.getMessage());
  }

  @Test
  void jobNamesAreValidAndKeepTheManagersId() {
    assertEquals("mpiexec-kvs_32318_0_768104202_vm", ProcessManagerRun.jobName("mpiexec-", "kvs_32318_0_768104202_vm"));
    assertEquals("slurm-77.3", ProcessManagerRun.jobName("slurm-", "77.3"));
    assertEquals("mpiexec-kvs_1_0_2_node-1-a", ProcessManagerRun.jobName("mpiexec-", "kvs_1_0_2_node:1/a"));
    String longId = "kvs_1_0_2_" + "a-very-long-host-name.".repeat(5);
    String hashed = ProcessManagerRun.jobName("mpiexec-", longId);
    assertTrue(hashed.matches("mpiexec-[0-9a-f]{32}"), hashed);
    assertNotEquals(hashed, ProcessManagerRun.jobName("mpiexec-", longId + "x"));
  }

  @Test
  void fixedPortsMoveByTheirSpanPerLocalProcess() {
    Properties p = new Properties();
    p.setProperty(ClusterSupport.CLUSTER_PORT, "5701");
    p.setProperty(ClusterSupport.BUS_PORT, "5702");
    p.setProperty(ClusterSupport.DATA_PORT, "5703");
    assertEquals(Map.of(), ManagedNetwork.movedPorts(p, 0));
    assertEquals(Map.of(ClusterSupport.CLUSTER_PORT, "5707", ClusterSupport.BUS_PORT, "5708",
        ClusterSupport.DATA_PORT, "5709"), ManagedNetwork.movedPorts(p, 2));
    Properties bus = new Properties();
    bus.setProperty(ClusterSupport.BUS_PORT, "7000");
    bus.setProperty(ClusterSupport.DATA_PORT, "0");
    assertEquals(Map.of(ClusterSupport.BUS_PORT, "7003"), ManagedNetwork.movedPorts(bus, 3));
    assertEquals(Map.of(), ManagedNetwork.movedPorts(new Properties(), 5), "free ports never collide");
    Properties high = new Properties();
    high.setProperty(ClusterSupport.BUS_PORT, "65535");
    RmaRunCommand.UsageError e = assertThrows(RmaRunCommand.UsageError.class, () -> ManagedNetwork.movedPorts(high, 1));
    assertTrue(e.getMessage().contains("past 65535"), e.getMessage());

    Properties props = new Properties();
    props.setProperty(ClusterSupport.HOST, "10.0.0.9"); // RMA_JAVA_OPTS wins
    props.setProperty(ClusterSupport.BUS_PORT, "6000");
    ManagedNetwork.apply(new ManagedNetwork("10.0.0.1", "10.0.0.1,10.0.0.2"), props, 1);
    assertEquals("10.0.0.9", props.getProperty(ClusterSupport.HOST));
    assertEquals("10.0.0.1,10.0.0.2", props.getProperty(ClusterSupport.MEMBERS));
    assertEquals("6001", props.getProperty(ClusterSupport.BUS_PORT));
  }

  @Test
  void pmiLinesAreThoseHydraSpeaks() throws IOException {
    String answers = "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0\n"
        + "cmd=my_kvsname kvsname=kvs_9_0_1_vm\n"
        + "cmd=put_result rc=0 msg=success\n"
        + "cmd=barrier_out\n"
        + "cmd=get_result rc=0 msg=success value=abc\n"
        + "cmd=get_result rc=-1 msg=key_not_found\n"
        + "cmd=finalize_ack\n";
    ByteArrayOutputStream sent = new ByteArrayOutputStream();
    PmiWire pmi = PmiWire.over(new ByteArrayInputStream(answers.getBytes(StandardCharsets.US_ASCII)), sent);
    pmi.init();
    assertEquals("kvs_9_0_1_vm", pmi.kvsName());
    pmi.put("kvs_9_0_1_vm", "k", "abc");
    pmi.barrier();
    assertEquals("abc", pmi.get("kvs_9_0_1_vm", "k"));
    IOException missing = assertThrows(IOException.class, () -> pmi.get("kvs_9_0_1_vm", "other"));
    assertTrue(missing.getMessage().contains("refused cmd=get: rc=-1 key_not_found"), missing.getMessage());
    pmi.finalizeJob();
    assertEquals("cmd=init pmi_version=1 pmi_subversion=1\ncmd=get_my_kvsname\ncmd=put kvsname=kvs_9_0_1_vm key=k value=abc\n"
        + "cmd=barrier_in\ncmd=get kvsname=kvs_9_0_1_vm key=k\ncmd=get kvsname=kvs_9_0_1_vm key=other\ncmd=finalize\n",
        sent.toString(StandardCharsets.US_ASCII));
    IOException closed = assertThrows(IOException.class, pmi::barrier);
    assertTrue(closed.getMessage().contains("closed the connection"), closed.getMessage());
    PmiWire wrong = PmiWire.over(new ByteArrayInputStream("cmd=barrier_out\n".getBytes(StandardCharsets.US_ASCII)),
        new ByteArrayOutputStream());
    IOException unexpected = assertThrows(IOException.class, wrong::init);
    assertTrue(unexpected.getMessage().contains("expected cmd=response_to_init"), unexpected.getMessage());
    assertThrows(IllegalArgumentException.class, () -> wrong.put("kvs", "a key", "v"));
  }

  @Test
  void theUsersKeyGivesEachJobItsOwnSecretAndIsClosedToOthers() throws IOException {
    Path key = UserJobKey.file(tmp.resolve("home"));
    String one = UserJobKey.jobSecret(key, "slurm-77.3");
    assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(key)));
    assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(key.getParent())));
    assertEquals(32, Base64.getDecoder().decode(one).length);
    assertEquals(one, UserJobKey.jobSecret(key, "slurm-77.3"), "every process of a job derives the same secret");
    assertNotEquals(one, UserJobKey.jobSecret(key, "slurm-77.4"), "another job, another secret");
    assertTrue(Files.readString(key).trim().length() > 40);

    Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-r--r--"));
    IOException open = assertThrows(IOException.class, () -> UserJobKey.jobSecret(key, "slurm-77.3"));
    assertTrue(open.getMessage().contains("is open to other users (rw-r--r--): chmod 600 " + key), open.getMessage());
    Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-------"));
    Files.setPosixFilePermissions(key.getParent(), PosixFilePermissions.fromString("rwxr-xr-x"));
    IOException dir = assertThrows(IOException.class, () -> UserJobKey.jobSecret(key, "slurm-77.3"));
    assertTrue(dir.getMessage().contains("chmod 700 " + key.getParent()), dir.getMessage());
    Files.setPosixFilePermissions(key.getParent(), PosixFilePermissions.fromString("rwx------"));
    Files.writeString(key, "not base64 !\n");
    IOException garbage = assertThrows(IOException.class, () -> UserJobKey.jobSecret(key, "slurm-77.3"));
    assertTrue(garbage.getMessage().contains("does not hold a key") && garbage.getMessage().contains("remove it"),
        garbage.getMessage());
  }

  /**
   * What the process manager's edge resolves (the job secret's file from the environment it was
   * handed, the configuration directory, the network) is set on the options it hands its ranks,
   * never on this JVM's system properties or read again from its environment: a system property
   * that says otherwise is neither overwritten nor taken.
   */
  @Test
  void theEdgeHandsItsSettingsDownAsOptionsNotProperties(@TempDir Path dir) {
    Path secret = dir.resolve("job.secret");
    Path conf = dir.resolve("conf");
    String before = System.getProperty("rma.conf");
    System.setProperty("rma.conf", "/elsewhere");
    try {
      Map<String, String> env = entrypoint("2:2", "1");
      env.put("RMA_JOB_SECRET_FILE", secret.toString());
      RmaRunCommand a = new RmaRunCommand();
      a.conf = conf;
      ProcessManagerRun pm = ProcessManagerRun.of(a, env);
      dev.vertxrma.JobOptions[] handed = new dev.vertxrma.JobOptions[1];
      ByteArrayOutputStream err = new ByteArrayOutputStream();
      int status = pm.run(a, new java.io.PrintStream(err, true, StandardCharsets.UTF_8), base -> {
        handed[0] = base;
        return 0;
      });
      assertEquals(0, status, err.toString(StandardCharsets.UTF_8));
      assertEquals(secret.toString(), handed[0].getSecretFile(), "the secret's file of the environment it was handed");
      assertNull(handed[0].getSecret());
      assertEquals(conf.toString(), handed[0].getClusterOptions().getConfigDirectory(), "--conf, on the options");
      assertEquals("/elsewhere", System.getProperty("rma.conf"), "the system property is left as it was");
      assertEquals("demo", a.job);
    } finally {
      if (before == null) {
        System.clearProperty("rma.conf");
      } else {
        System.setProperty("rma.conf", before);
      }
    }
  }

  /** The network resolved for a process is set on its options: host, members and the moved ports. */
  @Test
  void theNetworkGoesOnTheOptions() {
    Properties network = new Properties();
    network.setProperty(ClusterSupport.HOST, "10.0.0.9");
    network.setProperty(ClusterSupport.MEMBERS, "10.0.0.1,10.0.0.2");
    network.setProperty(ClusterSupport.CLUSTER_PORT, "6000");
    network.setProperty(ClusterSupport.BUS_PORT, "6001");
    network.setProperty(ClusterSupport.DATA_PORT, "6002");
    dev.vertxrma.JobOptions o = new dev.vertxrma.JobOptions();
    ProcessManagerRun.applyNetwork(network, o);
    assertEquals("10.0.0.9", o.getClusterOptions().getHost());
    assertEquals("10.0.0.9", o.getTransportOptions().getHost());
    assertEquals("10.0.0.1,10.0.0.2", o.getClusterOptions().getMembers());
    assertEquals(6000, o.getClusterOptions().getClusterPort());
    assertEquals(6001, o.getClusterOptions().getBusPort());
    assertEquals(6002, o.getTransportOptions().getPort());
    assertNull(System.getProperty(ClusterSupport.MEMBERS), "nothing went into the system properties");
  }
}
