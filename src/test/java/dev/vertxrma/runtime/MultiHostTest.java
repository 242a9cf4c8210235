package dev.vertxrma.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.testing.LaunchClassPath;
import dev.vertxrma.testing.NetNamespaces;
import dev.vertxrma.testing.Rmarun;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Jobs over three "hosts": network namespaces of this machine ({@link NetNamespaces}), each with
 * an address of its own, its own loopback and its own {@code /dev/shm}, so that the job only works
 * if every JVM binds and advertises its namespace's address, and the clustered path really crosses
 * a network: the on-node path between JVMs (window memory in the user's segment directory under
 * {@code /dev/shm}) cannot join JVMs of two hosts. Four ways to start the JVMs, each a real sample
 * with 6 ranks over the 3 hosts:
 * <ul>
 * <li>{@code bin/rmarun --hostfile} with its default launch, ssh: an {@code ssh} on the PATH that
 *     does what ssh does (runs the command line it is given with a shell) inside the namespace
 *     named by the host, with the job secret on standard input;</li>
 * <li>{@code bin/rmarun --launch print}: the printed commands, each run in its namespace by the
 *     test with the secret file rmarun wrote, for {@code counter} (fetch-and-op on an
 *     {@code allocate} window from every rank): each host's JVM makes its segment directory in
 *     its own {@code /dev/shm}, so that the operations between hosts take the network;</li>
 * <li>{@code docker/entrypoint.sh} in each namespace, configured by environment variables alone,
 *     as in three containers (fixed ports 5701-5703);</li>
 * <li>MPICH's {@code mpiexec}, one rank per process ({@code bin/rmarun} without {@code -np}), its
 *     proxies started in the namespaces.</li>
 * </ul>
 * and, with a launch template, a JVM killed on one host failing the job on every host. The
 * Hazelcast members and the data planes are logged ({@code --conf} with more logging) and
 * checked to be the namespaces' addresses, never 127.0.0.1. Skipped, with a line on stderr, where
 * namespaces cannot be created (not root, no {@code ip}).
 */
@Tag("multijvm")
class MultiHostTest {

  private static final long WAIT_SECONDS = 240;
  private static final int HOSTS = 3;
  private static final int NP = 6;

  @TempDir
  static Path tmp;

  private static NetNamespaces ns;
  /** A configuration directory whose logging shows the cluster's members and the data planes. */
  private static Path conf;

  /** Why there are no namespaces (each test is then skipped with it), or null. */
  private static String unavailable;

  @BeforeAll
  static void makeHosts() throws IOException {
    try {
      ns = NetNamespaces.create(HOSTS);
    } catch (NetNamespaces.Unavailable e) {
      unavailable = "MultiHostTest skipped: cannot create network namespaces here (" + e.getMessage()
          + "); it needs root and iproute2's ip";
      System.err.println(unavailable);
      return;
    }
    conf = Files.createDirectories(tmp.resolve("conf"));
    Files.writeString(conf.resolve("logging.properties"),
        Files.readString(home().resolve("conf/logging.properties"))
            // Hazelcast's member list is what this test reads: not dropped as at default verbosity
            .replace("java.util.logging.ConsoleHandler.filter=dev.vertxrma.impl.launch.QuietLogFilter", "")
            + "\ncom.hazelcast.internal.cluster.ClusterService.level=INFO\n"
            + "dev.vertxrma.impl.runtime.JobRuntime.level=FINE\n");
  }

  @BeforeEach
  void needsHosts() {
    Assumptions.assumeTrue(unavailable == null, unavailable);
  }

  @AfterAll
  static void removeHosts() {
    if (ns != null) {
      ns.close();
    }
  }

  private static Path home() {
    return Rmarun.home().toPath();
  }

  /** Exit status, stdout and stderr of a process (or of several, concatenated). */
  record Outcome(int exit, String out, String err) {
    @Override
    public String toString() {
      return "exit " + exit + "\n--- stdout ---\n" + out + "--- stderr ---\n" + err;
    }
  }

  /** Starts {@code cmd} in {@code dir} with the test's class path for rmarun, output to files. */
  private static Process start(String name, List<String> cmd, Path dir, Map<String, String> env) throws IOException {
    ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile())
        .redirectOutput(tmp.resolve(name + ".out").toFile()).redirectError(tmp.resolve(name + ".err").toFile());
    pb.environment().remove("RMA_JOB_SECRET_FILE");
    pb.environment().putAll(env);
    LaunchClassPath.into(pb.environment());
    return pb.start();
  }

  /** Waits for every process (killing them all if one takes too long) and gathers their outcome. */
  private static Outcome await(List<String> names, List<Process> processes) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
    boolean finished = true;
    for (Process p : processes) {
      finished &= p.waitFor(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
    }
    if (!finished) {
      for (Process p : processes) {
        p.descendants().forEach(ProcessHandle::destroyForcibly);
        p.destroyForcibly();
        p.waitFor(30, TimeUnit.SECONDS);
      }
    }
    int exit = 0;
    StringBuilder out = new StringBuilder();
    StringBuilder err = new StringBuilder();
    for (int i = 0; i < processes.size(); i++) {
      exit = Math.max(exit, finished ? processes.get(i).exitValue() : -1);
      out.append(Files.readString(tmp.resolve(names.get(i) + ".out"), StandardCharsets.UTF_8));
      err.append(Files.readString(tmp.resolve(names.get(i) + ".err"), StandardCharsets.UTF_8));
    }
    Outcome o = new Outcome(finished ? exit : -1, out.toString(), err.toString());
    assertTrue(finished, names + " did not finish within " + WAIT_SECONDS + " s\n" + o);
    return o;
  }

  private static final Pattern MEMBER = Pattern.compile("Member \\[([0-9.]+)\\]:(\\d+)");
  private static final Pattern DATA_PLANES = Pattern.compile("job \\S+: (ranks \\[[0-9, ]+\\] at [0-9.]+:\\d+(, )?)+");
  private static final Pattern DATA_PLANE = Pattern.compile("ranks \\[([0-9, ]+)\\] at ([0-9.]+):(\\d+)");

  /**
   * The cluster's members, as Hazelcast logged them, are the namespaces' addresses (at
   * {@code clusterPort} if not -1), and each of the {@value #HOSTS} JVMs logged the data planes:
   * ranks 2k and 2k+1 at namespace k's address (at {@code dataPort} if not -1). Nothing at 127.0.0.1.
   */
  private static void assertNamespaceAddresses(Outcome o, int clusterPort, int dataPort) {
    Set<String> expected = new TreeSet<>();
    for (int k = 0; k < HOSTS; k++) {
      expected.add(ns.address(k));
    }
    Set<String> members = new TreeSet<>();
    Matcher m = MEMBER.matcher(o.err());
    while (m.find()) {
      members.add(m.group(1));
      if (clusterPort >= 0) {
        assertEquals(String.valueOf(clusterPort), m.group(2), "the cluster port\n" + o);
      }
    }
    assertEquals(expected, members, "the cluster's members are the namespaces\n" + o);
    List<String> planes = new ArrayList<>();
    Matcher d = DATA_PLANES.matcher(o.err());
    while (d.find()) {
      planes.add(d.group());
    }
    assertEquals(HOSTS, planes.size(), "each JVM logged the data planes once\n" + o);
    for (String line : planes) {
      Matcher p = DATA_PLANE.matcher(line);
      int k = 0;
      while (p.find()) {
        assertEquals((2 * k) + ", " + (2 * k + 1), p.group(1), line);
        assertEquals(ns.address(k), p.group(2), line);
        if (dataPort >= 0) {
          assertEquals(String.valueOf(dataPort), p.group(3), line);
        }
        k++;
      }
      assertEquals(HOSTS, k, line);
    }
    assertFalse(o.err().contains("127.0.0.1"), "nothing on loopback\n" + o);
  }

  /**
   * Each host has its own {@code /dev/shm}: a file one host's command makes there is seen by
   * another command of that host and by no other host, nor on this machine's {@code /dev/shm}.
   */
  @Test
  void eachHostHasItsOwnDevShm() throws Exception {
    String probe = "/dev/shm/probe-" + ProcessHandle.current().pid();
    List<String> names = new ArrayList<>();
    List<Process> steps = new ArrayList<>();
    names.add("shm-make");
    steps.add(start("shm-make", ns.exec(0, List.of("touch", probe)), tmp, Map.of()));
    assertEquals(0, await(names, steps).exit(), "touch " + probe + " on host 0");
    for (int k = 0; k < HOSTS; k++) {
      String step = "shm-look" + k;
      Outcome o = await(List.of(step), List.of(start(step, ns.exec(k, List.of("test", "-e", probe)), tmp, Map.of())));
      assertEquals(k == 0 ? 0 : 1, o.exit(), "the probe made on host 0 seen on host " + k + "? " + o);
    }
    assertTrue(Files.exists(ns.shm(0).resolve(probe.substring("/dev/shm/".length()))), "host 0's /dev/shm");
    assertFalse(Files.exists(java.nio.file.Paths.get(probe)), "this machine's /dev/shm is not host 0's");
  }

  /**
   * {@code bin/rmarun --hostfile} with the default launch, ssh. The {@code ssh} on the PATH does
   * what ssh does with {@code ssh -o BatchMode=yes HOST WORDS...} (the remote shell runs the words
   * joined by blanks, and standard input is forwarded), in the namespace HOST names; it also
   * records what it was given, to check that the secret is on no command line.
   */
  @Test
  void linkedListOverThreeHostsStartedBySsh() throws Exception {
    Path bin = Files.createDirectories(tmp.resolve("fake-ssh"));
    Path calls = tmp.resolve("ssh-calls");
    Path ssh = bin.resolve("ssh");
    Files.writeString(ssh, """
        #!/bin/sh
        # ssh -o BatchMode=yes HOST WORDS...: run WORDS with a shell "on" HOST, a network namespace
        printf '%%s\\n' "$*" >> '%s'
        [ "$1" = "-o" ] && shift 2
        host="$1"
        shift
        exec '%s' "$host" sh -c "$*"
        """.formatted(calls, ns.runner()));
    Files.setPosixFilePermissions(ssh, PosixFilePermissions.fromString("rwx------"));
    StringBuilder hostfile = new StringBuilder("# three namespaces of this machine, as hosts\n");
    for (int k = 0; k < HOSTS; k++) {
      hostfile.append(ns.name(k)).append(" address=").append(ns.address(k)).append('\n');
    }
    Path hosts = Files.writeString(tmp.resolve("hostfile"), hostfile.toString());
    List<String> cmd = List.of(home().resolve("bin/rmarun").toString(), "-np", String.valueOf(NP), "--hostfile",
        hosts.toString(), "--conf", conf.toString(), "linked-list");
    Map<String, String> env = new HashMap<>();
    env.put("PATH", bin + File.pathSeparator + System.getenv("PATH"));
    Process p = start("ssh", cmd, home(), env);
    Outcome o = await(List.of("ssh"), List.of(p));
    assertEquals(0, o.exit(), o.toString());
    assertTrue(o.out().contains("linked-list: verified " + NP + " ranks x 10 elements"), o.toString());
    assertTrue(o.err().contains("rmarun: starting 3 JVMs on 3 hosts for 6 ranks of job "), o.toString());
    assertTrue(o.err().contains("rmarun: all 6 ranks joined ("), "progress reported across the network\n" + o);
    assertNamespaceAddresses(o, -1, -1);
    List<String> sshCalls = Files.readAllLines(calls);
    assertEquals(HOSTS, sshCalls.size(), sshCalls.toString());
    for (int k = 0; k < HOSTS; k++) {
      String call = sshCalls.stream().filter(c -> c.contains("dev.vertxrma.impl.launch.JobJvm")).toList().get(k);
      assertTrue(call.startsWith("-o BatchMode=yes rma-"), call);
      assertTrue(call.contains(" dev.vertxrma.impl.launch.JobJvm - "), "the description on standard input: " + call);
      assertFalse(call.contains("RMA_JOB_SECRET_FILE"), "the secret travels on standard input: " + call);
    }
  }

  /**
   * MPICH's {@code mpiexec} (Hydra) starts {@code bin/rmarun twisted} without {@code -np} as 4
   * processes over the three hosts, two on the first ({@code -hosts A:2,B:1,C:1}): its ssh launcher
   * is a script that runs Hydra's proxy in the namespace of the host's address, and {@code -iface}
   * names the bridge, so that the proxies reach mpiexec at the root namespace's address. Each
   * process finds its host's address itself (rank 0 the namespace's only one, the others the way
   * to rank 0's, which they learn from Hydra's key-value space) and the cluster's members are the
   * namespaces, never loopback. Skipped where there is no MPICH mpiexec.
   */
  @Test
  void mpiexecStartsAJobOverThreeHosts() throws Exception {
    String mpiexec = ProcessManagerTest.mpiexec();
    Assumptions.assumeTrue(mpiexec != null, "no MPICH mpiexec (Hydra) on the PATH: apt-get install mpich (.ci/run does)");
    StringBuilder cases = new StringBuilder();
    List<String> hosts = new ArrayList<>();
    for (int k = 0; k < HOSTS; k++) {
      cases.append("  ").append(ns.address(k)).append(") exec '").append(ns.runner()).append("' ").append(ns.name(k))
          .append(" sh -c \"$*\" ;;\n");
      hosts.add(ns.address(k) + ":" + (k == 0 ? 2 : 1));
    }
    Path launcher = tmp.resolve("hydra-launcher");
    Files.writeString(launcher, """
        #!/bin/sh
        # Hydra's ssh launcher: LAUNCHER [-x] HOST COMMAND...: run COMMAND "on" HOST, a network namespace
        while [ "${1#-}" != "$1" ]; do shift; done
        host="$1"
        shift
        case "$host" in
        %s  *) echo "no namespace for $host" >&2; exit 1 ;;
        esac
        """.formatted(cases));
    Files.setPosixFilePermissions(launcher, PosixFilePermissions.fromString("rwx------"));
    List<String> cmd = List.of(mpiexec, "-launcher", "ssh", "-launcher-exec", launcher.toString(), "-iface", ns.bridge(),
        "-hosts", String.join(",", hosts), "-n", "4", home().resolve("bin/rmarun").toString(), "--conf", conf.toString(),
        "--tag-output", "twisted");
    Outcome o = await(List.of("mpiexec"), List.of(start("mpiexec", cmd, home(), Map.of())));
    assertEquals(0, o.exit(), o.toString());
    assertTrue(o.out().lines().anyMatch(l -> l.startsWith("[0] twisted: verified") && l.contains("nprocs=4")), o.toString());
    Set<String> expected = new TreeSet<>();
    for (int k = 0; k < HOSTS; k++) {
      expected.add(ns.address(k));
    }
    Set<String> members = new TreeSet<>();
    Matcher m = MEMBER.matcher(o.err());
    while (m.find()) {
      members.add(m.group(1));
    }
    assertEquals(expected, members, "the cluster's members are the namespaces\n" + o);
    assertFalse(o.err().contains("127.0.0.1"), "nothing on loopback\n" + o);
  }

  /**
   * The failure model across hosts: the JVM of ranks 4..5 is killed in its namespace while rank 5
   * holds a lock; the survivors on the other hosts fail with PROC_FAILED naming those ranks,
   * rmarun names the JVM and its host and exits 1, and nothing of the job is left running on any
   * host. The JVMs are started by a launch template ({@link NetNamespaces#runner()}).
   */
  @Test
  void aJvmKilledOnOneHostFailsTheJobOnEveryHost() throws Exception {
    StringBuilder hostfile = new StringBuilder();
    for (int k = 0; k < HOSTS; k++) {
      hostfile.append(ns.name(k)).append(" address=").append(ns.address(k)).append('\n');
    }
    Path hosts = Files.writeString(tmp.resolve("hostfile-fault"), hostfile.toString());
    try (Rmarun run = Rmarun.start("-q", "-np", String.valueOf(NP), "--hostfile", hosts.toString(), "--launch",
        ns.runner() + " {host} sh -c {command}", FaultPoints.class.getName(), "--hold-at", "lock")) {
      run.await(run.line("holds an exclusive lock on rank 0"), WAIT_SECONDS, "rank 5 holding its lock");
      ProcessHandle victim = run.await(run.rankJvm(4, 2), 10, "finding the JVM of ranks 4..5");
      assertTrue(ns.pids(2).contains(victim.pid()), "the JVM of ranks 4..5 runs in " + ns.name(2));
      Rmarun.signal(victim, "KILL");
      run.await(run.line("PROC_FAILED: rank(s) [4, 5]"), 30, "a survivor's PROC_FAILED");
      int status = run.await(run.exit(), 30, "rmarun's exit");
      String out = run.output();
      assertEquals(1, status, out);
      assertTrue(out.contains("rmarun: PROC_FAILED: JVM 2 on " + ns.name(2) + " (ranks 4..5) of job "), out);
      assertTrue(out.contains("was killed by signal 9 (SIGKILL)"), out);
      // every survivor saw the kill and ended by itself within rmarun's grace (JvmLauncher.GRACE_MS,
      // 10 s, above any detection docs/failure-and-security.md states): none had to be killed
      assertFalse(out.contains("did not end within"), "a survivor was killed before it ended by itself\n" + out);
      for (int k = 0; k < HOSTS; k++) {
        assertEquals(List.of(), ns.pids(k), "nothing left running on " + ns.name(k) + "\n" + out);
      }
    }
  }

  /**
   * {@code bin/rmarun --launch print}: nothing starts; the job secret is written to
   * {@code JOB.secret} (mode 0600) and each host's command printed; run in the namespaces, the
   * commands make the job. Its sample, {@code counter}, races fetch-and-ops from every rank on an
   * {@code allocate} window: each host's JVM makes the user's segment directory in that host's own
   * {@code /dev/shm} (and leaves no window file there), so no JVM could open another host's window
   * memory and every operation between hosts crossed the network.
   */
  @Test
  void printedCommandsRunOnTheirHosts() throws Exception {
    Path dir = Files.createDirectories(tmp.resolve("print"));
    String job = "print-" + ProcessHandle.current().pid();
    String hostList = String.join(",", ns.address(0), ns.address(1), ns.address(2));
    Process printer = start("printer", List.of(home().resolve("bin/rmarun").toString(), "--launch", "print", "--host",
        hostList, "-np", String.valueOf(NP), "--job", job, "--conf", conf.toString(), "counter"), dir, Map.of());
    Outcome printed = await(List.of("printer"), List.of(printer));
    assertEquals(0, printed.exit(), printed.toString());
    Path secret = dir.resolve(job + ".secret");
    assertTrue(Files.isRegularFile(secret), printed.toString());
    assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(secret)));
    List<String> commands = printed.out().lines().filter(l -> !l.startsWith("#") && !l.isBlank()).toList();
    assertEquals(HOSTS, commands.size(), printed.toString());
    assertTrue(printed.out().contains(secret.toString()), printed.toString());
    List<String> names = new ArrayList<>();
    List<Process> jvms = new ArrayList<>();
    for (int k = 0; k < HOSTS; k++) {
      String c = commands.get(k);
      assertTrue(c.contains(" | env RMA_JOB_SECRET_FILE=" + secret + " "), c);
      assertTrue(c.contains(" -Drma.host=" + ns.address(k) + " "), c);
      assertTrue(c.contains(" -Drma.members=" + hostList + " "), c);
      assertTrue(c.startsWith("printf '%s\\n' '{"), c);
      assertTrue(c.contains("\"firstRank\":" + (2 * k) + ",\"rankCount\":2"), c);
      assertTrue(c.contains(" dev.vertxrma.impl.launch.JobJvm - job=" + job + ",jvm=" + k + ",ranks=" + (2 * k) + ".."
          + (2 * k + 1)), c);
      names.add("printed" + k);
      jvms.add(start("printed" + k, ns.exec(k, List.of("sh", "-c", c)), dir, Map.of()));
    }
    Outcome o = await(names, jvms);
    assertEquals(0, o.exit(), o.toString());
    assertTrue(o.out().contains("counter: verified " + NP + " ranks x 1000 fetch-and-op(SUM) increments"), o.toString());
    assertNamespaceAddresses(o, -1, -1);
    for (int k = 0; k < HOSTS; k++) {
      Path segments = ns.shm(k).resolve("vertx-rma-" + System.getProperty("user.name"));
      assertTrue(Files.isDirectory(segments), "host " + k + "'s JVM made its segment directory in its own /dev/shm");
      try (java.util.stream.Stream<Path> left = Files.list(segments)) {
        assertEquals(List.of(), left.map(Path::getFileName).map(Path::toString).filter(f -> f.startsWith("win-"))
            .toList(), "no window file left on host " + k);
      }
    }
    Files.delete(secret);
  }

  /**
   * {@code docker/entrypoint.sh} in each namespace, as in three containers: the job from the
   * environment alone (members, this host, ranks, job name, the secret's file), on the fixed ports
   * the Dockerfile exposes.
   */
  @Test
  void theDockerEntrypointRunsOneJobOverThreeHosts() throws Exception {
    Path secret = tmp.resolve("docker.secret");
    Files.createFile(secret, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    Files.writeString(secret, dev.vertxrma.impl.transport.JobSecret.random().text());
    String members = String.join(",", ns.address(0), ns.address(1), ns.address(2));
    String job = "docker-" + ProcessHandle.current().pid();
    List<String> names = new ArrayList<>();
    List<Process> jvms = new ArrayList<>();
    for (int k = 0; k < HOSTS; k++) {
      Map<String, String> env = new HashMap<>();
      env.put("RMA_MEMBERS", members);
      env.put("RMA_HOST", ns.address(k));
      env.put("RMA_NP", String.valueOf(NP));
      env.put("RMA_JOB", job);
      env.put("RMA_JOB_SECRET_FILE", secret.toString());
      env.put("RMA_JAVA_OPTS", "-Djava.util.logging.config.file=" + conf.resolve("logging.properties"));
      names.add("docker" + k);
      jvms.add(start("docker" + k, ns.exec(k, List.of(home().resolve("docker/entrypoint.sh").toString(),
          "--tag-output", "twisted")), home(), env));
    }
    Outcome o = await(names, jvms);
    assertEquals(0, o.exit(), o.toString());
    assertTrue(o.out().contains("[0] twisted: verified mx=60 my=60 nprocs=6"), o.toString());
    assertNamespaceAddresses(o, 5701, 5703);
  }
}
