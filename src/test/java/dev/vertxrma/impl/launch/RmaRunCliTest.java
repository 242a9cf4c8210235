package dev.vertxrma.impl.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.FailurePolicy;
import dev.vertxrma.testing.UserProgram;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import picocli.CommandLine.Option;

/**
 * {@code rmarun}'s command line in this JVM, through {@link RmaRun#run(String[], PrintStream,
 * PrintStream)} (the code behind {@code bin/rmarun}): the help lists every option and hides the
 * internal ones, the version is the project's, every usage error is one line with exit status 2
 * and no stack trace, an unknown sample lists the samples, {@code -cp} runs a class compiled by
 * the test, {@code --tag-output} prefixes each rank's lines, and the options that JVMs of a job
 * once took are no options of people's command line ({@link JobDescriptionTest} has what replaced
 * them). {@code RmaRunLauncherTest} runs the script itself, over JVMs.
 */
class RmaRunCliTest {

  /** Exit status, stdout and stderr of one in-process run. */
  record Outcome(int exit, String out, String err) {
    @Override
    public String toString() {
      return "exit " + exit + "\n--- stdout ---\n" + out + "--- stderr ---\n" + err;
    }
  }

  private static Outcome rmarun(String... argv) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int exit = RmaRun.run(argv, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Outcome(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  @Test
  void helpListsEveryOptionButTheInternalOnes() throws Exception {
    Outcome o = rmarun("--help");
    assertEquals(0, o.exit(), o.toString());
    assertEquals("", o.err(), o.toString());
    int documented = 0;
    for (Field f : RmaRunCommand.class.getDeclaredFields()) {
      Option opt = f.getAnnotation(Option.class);
      if (opt == null) {
        continue;
      }
      for (String name : opt.names()) {
        if (opt.hidden()) {
          assertFalse(o.out().contains(name), name + " is internal, not in the help\n" + o);
        } else {
          assertTrue(o.out().matches("(?s).*(^|[ ,])" + java.util.regex.Pattern.quote(name) + "[=, \n].*"),
              name + " is in the help\n" + o);
          documented++;
        }
      }
    }
    assertTrue(documented >= 12, "the user options were found: " + documented);
    for (String s : List.of("-h, --help", "-V, --version", "PROGRAM", "ARGS", "Exit status", "twisted", "double-buffer",
        "counter-service", "Examples")) {
      assertTrue(o.out().contains(s), s + "\n" + o);
    }
  }

  @Test
  void versionIsTheProjectVersion() {
    Outcome o = rmarun("--version");
    assertEquals(0, o.exit(), o.toString());
    String version = System.getProperty("rma.version");
    assertTrue(version != null && !version.isBlank(), "surefire gives the project version");
    assertTrue(o.out().startsWith("rmarun (vertx-rma " + version + ")\n"), o.toString());
    assertEquals(version, RmaRunCommand.version());
  }

  static Stream<Arguments> usageErrors() {
    return Stream.of(
        Arguments.of(List.of(), "PROGRAM"),
        Arguments.of(List.of("twisted"), "-np N is required"),
        Arguments.of(List.of("-np", "0", "twisted"), "-np 0: the number of ranks must be at least 1"),
        Arguments.of(List.of("-np", "many", "twisted"), "'many' is not an int"),
        Arguments.of(List.of("-np"), "-np"),
        Arguments.of(List.of("-np", "4", "--jvms", "5", "twisted"), "--jvms 5 must be between 1 and the number of ranks"),
        Arguments.of(List.of("-np", "4", "--jvms", "0", "twisted"), "--jvms 0"),
        Arguments.of(List.of("--timeout", "0", "-np", "2", "twisted"), "--timeout 0 must be between 1 and"),
        Arguments.of(List.of("--timeout", "-5", "-np", "2", "twisted"), "--timeout -5"),
        Arguments.of(List.of("--job", "bad name", "-np", "2", "twisted"), "job name 'bad name' must be 1-64 characters"),
        Arguments.of(List.of("--job", "x".repeat(65), "-np", "2", "twisted"), "job name"),
        // what a JVM of a job is told comes in its job description, never as an option
        Arguments.of(List.of("--ranks", "1:1", "-np", "2", "twisted"), "Unknown option: '--ranks'"),
        Arguments.of(List.of("-np", "2", "--jvm-index", "1", "twisted"), "Unknown option: '--jvm-index'"),
        Arguments.of(List.of("-np", "2", "--secret-stdin", "twisted"), "Unknown option: '--secret-stdin'"),
        Arguments.of(List.of("-np", "2", "--report", "/tmp/r", "twisted"), "Unknown option: '--report'"),
        Arguments.of(List.of("-np", "2", "--require-freed-windows", "twisted"), "Unknown option: '--require-freed-windows'"),
        Arguments.of(List.of("--frobnicate", "-np", "2", "twisted"), "Unknown option: '--frobnicate'"),
        Arguments.of(List.of("-np", "2", "-x", "1X=y", "twisted"), "'1X' is not a variable name"),
        Arguments.of(List.of("-np", "2", "-x", "RMA_CLI_SURELY_UNSET_VARIABLE", "twisted"), "is not set in rmarun's"),
        Arguments.of(List.of("-np", "2", "-cp", "/does/not/exist", "twisted"), "-cp: /does/not/exist does not exist"),
        Arguments.of(List.of("-np", "2", "--conf", "/does/not/exist", "twisted"), "--conf /does/not/exist is not a directory"),
        Arguments.of(List.of("-np", "2", "--trace", "/does/not/exist/t.html", "twisted"),
            "--trace /does/not/exist/t.html: its directory does not exist"),
        Arguments.of(List.of("-np", "2", "no-such-sample"), "unknown program 'no-such-sample'"),
        Arguments.of(List.of("-np", "2", "twistd"), "unknown program 'twistd': did you mean twisted?"),
        Arguments.of(List.of("-np", "10000", "twisted"), "np=10000: a job has at most 256 ranks in one JVM and 128 over several"),
        Arguments.of(List.of("-np", "200", "--jvms", "2", "twisted"), "-np 200 over --jvms 2: a job whose ranks span JVMs has at most 128 ranks"),
        Arguments.of(List.of("-np", "2", "com.example.Missing"), "unknown program 'com.example.Missing': no class"),
        Arguments.of(List.of("-np", "2", "java.lang.String"), "java.lang.String is not a program"),
        Arguments.of(List.of("-np", "2", UserProgram.CLASS), "unknown program '" + UserProgram.CLASS + "'"),
        // several hosts
        Arguments.of(List.of("-np", "4", "--host", "10.1.2.3,,10.1.2.4", "twisted"), "--host '10.1.2.3,,10.1.2.4' has an empty entry"),
        Arguments.of(List.of("-np", "4", "--host=-oProxyCommand=x", "twisted"), "--host: '-oProxyCommand=x' is not a host name"),
        Arguments.of(List.of("-np", "4", "--host", "no-such-host.invalid", "twisted"), "--host: unknown host 'no-such-host.invalid'"),
        Arguments.of(List.of("-np", "4", "--host", "10.1.2.3,localhost", "twisted"),
            "localhost resolves to 127.0.0.1 here, a loopback address, while other hosts of the job do not"),
        Arguments.of(List.of("-np", "4", "--host", "10.1.2.3", "--hostfile", "/etc/hostname", "twisted"),
            "--host and --hostfile: give one host list, not both"),
        Arguments.of(List.of("-np", "4", "--jvms", "2", "--host", "10.1.2.3", "twisted"),
            "--jvms 2 and --host: the host list gives the JVMs, one per entry"),
        Arguments.of(List.of("-np", "1", "--host", "10.1.2.3,10.1.2.4", "twisted"), "--host lists 2 hosts for 1 ranks"),
        Arguments.of(List.of("-np", "2", "--launch", "print", "twisted"), "--launch print needs --host or --hostfile"),
        Arguments.of(List.of("-np", "2", "--host", "10.1.2.3", "--launch", "sssh", "twisted"),
            "--launch sssh: not ssh, print or a command template naming {host} or {address}"),
        Arguments.of(List.of("-np", "2", "--hostfile", "/does/not/exist", "twisted"), "--hostfile /does/not/exist does not exist"),
        Arguments.of(List.of("-np", "2", "--progress", "4711", "twisted"), "Unknown option: '--progress'"),
        Arguments.of(List.of("-np", "2", "--on-failure", "retry", "twisted"), "--on-failure retry: give abort or continue"),
        Arguments.of(List.of("-np", "2", "--on-failure"), "--on-failure"));
  }

  /**
   * {@code --on-failure}: abort unless said otherwise (the JVMs of a job rmarun starts, and those
   * of mpiexec's or srun's processes, get the policy in their job description, always), any case.
   */
  @Test
  void theFailurePolicyReachesTheJobDescription() {
    for (var c : List.of(Map.entry(List.<String>of(), FailurePolicy.ABORT),
        Map.entry(List.of("--on-failure", "abort"), FailurePolicy.ABORT),
        Map.entry(List.of("--on-failure", "continue"), FailurePolicy.CONTINUE),
        Map.entry(List.of("--on-failure", "Continue"), FailurePolicy.CONTINUE))) {
      RmaRunCommand a = new RmaRunCommand();
      List<String> argv = new java.util.ArrayList<>(c.getKey());
      argv.addAll(List.of("-np", "4", "--jvms", "2", "twisted"));
      assertTrue(RmaRunCli.parse(a, argv.toArray(new String[0]), System.out));
      a.validate();
      assertEquals(c.getValue(), a.failurePolicy, argv.toString());
      JobDescription d = ChildCommand.description(a, 1, true, null, -1);
      assertEquals(c.getValue(), d.getFailurePolicy(), argv.toString());
      assertEquals(c.getValue().name().toLowerCase(java.util.Locale.ROOT), d.toJson().getString("onFailure"));
    }
  }

  /** Host files: a line is HOST [address=ADDRESS], anything else is refused by line. */
  @Test
  void aHostfileIsCheckedLineByLine(@TempDir Path dir) throws Exception {
    Path empty = Files.writeString(dir.resolve("empty"), "# nobody\n\n");
    Outcome o = rmarun("-np", "2", "--hostfile", empty.toString(), "twisted");
    assertEquals(RmaRunCommand.USAGE, o.exit(), o.toString());
    assertTrue(o.err().contains("--hostfile " + empty + " lists no host"), o.toString());
    Path slots = Files.writeString(dir.resolve("slots"), "10.1.2.3 address=10.1.2.3\n10.1.2.4 slots=2 # two\n");
    o = rmarun("-np", "2", "--hostfile", slots.toString(), "twisted");
    assertEquals(RmaRunCommand.USAGE, o.exit(), o.toString());
    assertTrue(o.err().contains("--hostfile " + slots + " line 2: 'slots=2' is not understood (a line is HOST "
        + "[address=ADDRESS], one JVM per line)"), o.toString());
    assertEquals(1, o.err().split("\n").length, o.toString());

    RmaRunCommand c = new RmaRunCommand();
    Path good = Files.writeString(dir.resolve("good"), "# hosts\nnode-a address=10.1.2.3\n\n  10.1.2.4   # the second\n"
        + "node-a address=10.1.2.3\n");
    assertTrue(RmaRunCli.parse(c, new String[] {"-np", "7", "--hostfile", good.toString(), "twisted"}, System.out));
    c.validate();
    assertEquals(List.of(new HostList.Host("node-a", "10.1.2.3"), new HostList.Host("10.1.2.4", "10.1.2.4"),
        new HostList.Host("node-a", "10.1.2.3")), c.hosts);
    assertEquals(3, c.jvmCount);
    assertEquals("10.1.2.3,10.1.2.4", HostList.members(c.hosts), "each address once");
    assertEquals(List.of(0, 2, 4, 7), List.of(c.firstRankOf(0), c.firstRankOf(1), c.firstRankOf(2), c.firstRankOf(3)));
    assertEquals(RmaRunCommand.SSH_TEMPLATE, c.launchHow);
  }

  /** A job on hosts with a cluster.xml that keeps Hazelcast on loopback: refused before anything starts. */
  @Test
  void aLoopbackClusterXmlIsRefusedForAJobOnHosts(@TempDir Path conf) throws Exception {
    String loopback = Files.readString(Path.of(System.getProperty("rma.home", "."), "conf/cluster.xml"))
        .replace("<members>${rma.members}</members>", "<member-list><member>127.0.0.1</member></member-list>");
    Files.writeString(conf.resolve("cluster.xml"), loopback);
    Outcome o = rmarun("--conf", conf.toString(), "-np", "2", "--host", "10.1.2.3,10.1.2.4", "twisted");
    assertEquals(RmaRunCommand.USAGE, o.exit(), o.toString());
    assertTrue(o.err().contains("cluster configuration " + conf.resolve("cluster.xml") + " lists only loopback members "
        + "[127.0.0.1] for a job on hosts: list the hosts with <members>${rma.members}</members>"), o.toString());
    Files.writeString(conf.resolve("cluster.xml"), loopback.replace("<member-list><member>127.0.0.1</member></member-list>",
        "<members>${rma.members}</members>").replace("<interface>${rma.host}</interface>", "<interface>127.0.0.1</interface>"));
    o = rmarun("--conf", conf.toString(), "-np", "2", "--host", "10.1.2.3,10.1.2.4", "twisted");
    assertEquals(RmaRunCommand.USAGE, o.exit(), o.toString());
    assertTrue(o.err().contains("binds Hazelcast to loopback [127.0.0.1] for a job on hosts: use "
        + "<interface>${rma.host}</interface>"), o.toString());
  }

  /**
   * The command line of a JVM on a host survives the shells on the way, words with blanks,
   * quotes, $ and * included: once through a template that runs it with sh -c, once through one
   * that does what ssh does (the remote shell runs the words ssh is given, joined by blanks).
   */
  @ParameterizedTest
  @MethodSource("launchTemplates")
  void aCommandLineSurvivesTheLaunchTemplate(String template) throws Exception {
    List<String> words = List.of("printf", "%s\\n", "a b", "it's", "$HOME", "*", "--x=\"y\"", "");
    String command = "exec " + ChildCommand.shellLine(java.util.Map.of("RMA_CLI_V", "1 '2'"), words);
    String line = ChildCommand.launchLine(template, new HostList.Host("node 1", "10.1.2.3"), command);
    Process p = new ProcessBuilder("sh", "-c", line).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals(0, p.waitFor(), line + "\n" + out);
    assertEquals(String.join("\n", words.subList(2, words.size())) + "\n", out, line);
  }

  static Stream<String> launchTemplates() {
    return Stream.of("sh -c {command}",
        // ssh HOST WORDS...: the words joined by blanks, run by a shell (the host and address checked)
        "ssh() { [ \"$3\" = 'node 1' ] && [ \"$4\" = 10.1.2.3 ] || exit 9; shift 4; sh -c \"$*\"; }; "
            + "ssh -o BatchMode=yes {host} {address} {command}");
  }

  @ParameterizedTest(name = "rmarun {0}")
  @MethodSource("usageErrors")
  void aUsageErrorIsOneLineWithStatus2(List<String> argv, String expected) {
    Outcome o = rmarun(argv.toArray(new String[0]));
    assertEquals(RmaRunCommand.USAGE, o.exit(), o.toString());
    assertEquals("", o.out(), o.toString());
    String[] lines = o.err().split("\n");
    assertEquals(1, lines.length, "one line\n" + o);
    assertTrue(lines[0].startsWith("rmarun: ") && lines[0].endsWith("(see rmarun --help)"), o.toString());
    assertTrue(lines[0].contains(expected), "'" + expected + "' expected\n" + o);
    assertFalse(o.err().contains("Exception") || o.err().contains("\tat ") || o.err().contains("Error:"),
        "no stack trace\n" + o);
  }

  @Test
  void anUnknownSampleListsTheSamples() {
    Outcome o = rmarun("-np", "4", "twisterd");
    assertEquals(RmaRunCommand.USAGE, o.exit(), o.toString());
    List<String> samples = SampleCatalog.samples(getClass().getClassLoader());
    assertTrue(samples.containsAll(List.of("twisted", "double-buffer", "double-buffer-rx", "linked-list", "mcs-mutex",
        "counter-service", "exchange", "soak")), samples.toString());
    assertFalse(samples.contains("rank-checks"), "helpers are not samples: " + samples);
    assertTrue(o.err().contains("the samples are " + String.join(", ", samples)), o.toString());
  }

  @Test
  void aMalformedClusterXmlIsAUsageErrorBeforeAnyJvmStarts(@TempDir Path conf) throws Exception {
    Files.writeString(conf.resolve("cluster.xml"), "this is not xml");
    Outcome o = rmarun("--conf", conf.toString(), "-np", "2", "--jvms", "2", "twisted");
    assertEquals(RmaRunCommand.USAGE, o.exit(), o.toString());
    assertTrue(o.err().contains("cluster configuration " + conf.resolve("cluster.xml")), o.toString());
    assertTrue(o.err().contains("is not a valid Hazelcast configuration"), o.toString());
    assertEquals(1, o.err().split("\n").length, o.toString());
    assertFalse(o.err().contains("starting"), "no JVM started\n" + o);
  }

  /**
   * A user's program from {@code -cp} (compiled here, not on the test class path), embedded in
   * this JVM, with {@code --tag-output}: every rank's line, whole and prefixed by its rank.
   */
  @Test
  void aUsersProgramRunsFromItsClassPathWithTaggedOutput(@TempDir Path dir) throws Exception {
    Path classes = UserProgram.compile(dir);
    assertThrows(ClassNotFoundException.class, () -> Class.forName(UserProgram.CLASS));
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    PrintStream original = System.out;
    System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
    Outcome o;
    try {
      o = rmarun("-np", "3", "-cp", classes.toString(), "--tag-output", UserProgram.CLASS, "a", "--b");
    } finally {
      System.setOut(original);
    }
    String out = captured.toString(StandardCharsets.UTF_8);
    assertEquals(0, o.exit(), o + "\n--- ranks ---\n" + out);
    String value = System.getenv(UserProgram.VARIABLE);
    String conf = System.getProperty("rma.conf");
    for (int r = 0; r < 3; r++) {
      String line = "[" + r + "] " + UserProgram.line(r, 3, value, conf, List.of("a", "--b"));
      assertTrue(out.lines().anyMatch(line::equals), line + "\n--- ranks ---\n" + out);
    }
    assertTrue(System.out == original, "the streams are put back");
  }

  /** Virtual-thread ranks need Java 21+: below, a usage error naming both versions, before anything starts. */
  @Test
  void virtualThreadsBelowJava21AreAUsageError() {
    org.junit.jupiter.api.Assumptions.assumeTrue(Runtime.version().feature() < 21, "this JVM runs virtual threads");
    Outcome o = rmarun("-np", "2", "--virtual-threads", "twisted");
    assertEquals(RmaRunCommand.USAGE, o.exit(), o.toString());
    assertEquals(1, o.err().split("\n").length, o.toString());
    assertTrue(o.err().startsWith("rmarun: --virtual-threads: ARG: virtual-thread ranks need Java 21 or newer"), o.toString());
  }
}
