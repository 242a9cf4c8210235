package dev.vertxrma.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.testing.LaunchClassPath;
import dev.vertxrma.testing.Rmarun;
import dev.vertxrma.testing.UserProgram;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real {@code bin/rmarun} script and its command line (on the test class path, like
 * {@link MultiJvmTest}): help, version and usage errors from the script (status 2, one line, no
 * stack trace, before any JVM starts); a user's program compiled by the test, run from
 * {@code -cp} over two JVMs with {@code -x}, {@code --conf} and {@code --tag-output}, and the
 * startup progress on stderr; {@code -x} for an embedded job, which then runs in a JVM of its
 * own; a JVM of a job (its job description on standard input) in a JVM without picocli.
 */
@Tag("multijvm")
class RmaRunLauncherTest {

  private static final long WAIT_SECONDS = 180;

  @TempDir
  Path tmp;

  /** Exit status, stdout and stderr of one rmarun run. */
  record Outcome(int exit, String out, String err) {
    @Override
    public String toString() {
      return "exit " + exit + "\n--- stdout ---\n" + out + "--- stderr ---\n" + err;
    }
  }

  private Outcome rmarun(String... args) throws Exception {
    return rmarunIn(Rmarun.home(), args);
  }

  /** {@code bin/rmarun ARGS} in directory {@code dir}. */
  private Outcome rmarunIn(File dir, String... args) throws Exception {
    File home = Rmarun.home();
    List<String> cmd = new ArrayList<>(List.of(new File(home, "bin/rmarun").getAbsolutePath()));
    cmd.addAll(List.of(args));
    File out = Files.createTempFile(tmp, "rmarun", ".out").toFile();
    File err = Files.createTempFile(tmp, "rmarun", ".err").toFile();
    ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir).redirectOutput(out).redirectError(err);
    Map<String, String> env = pb.environment();
    LaunchClassPath.into(env);
    env.remove(UserProgram.VARIABLE);
    Process p = pb.start();
    boolean finished = p.waitFor(WAIT_SECONDS, TimeUnit.SECONDS);
    if (!finished) {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
      p.waitFor(30, TimeUnit.SECONDS);
    }
    Outcome o = new Outcome(finished ? p.exitValue() : -1, Files.readString(out.toPath(), StandardCharsets.UTF_8),
        Files.readString(err.toPath(), StandardCharsets.UTF_8));
    assertTrue(finished, "rmarun " + String.join(" ", args) + " did not finish within " + WAIT_SECONDS + " s\n" + o);
    return o;
  }

  private static void assertNoStackTrace(Outcome o) {
    assertFalse(o.err().contains("Exception") || o.err().contains("\tat ") || o.out().contains("\tat "),
        "no stack trace\n" + o);
  }

  private static void assertUsageError(Outcome o, String expected) {
    assertEquals(2, o.exit(), o.toString());
    assertEquals("", o.out(), o.toString());
    String[] lines = o.err().split("\n");
    assertEquals(1, lines.length, "one line\n" + o);
    assertTrue(lines[0].startsWith("rmarun: ") && lines[0].contains(expected) && lines[0].endsWith("(see rmarun --help)"),
        "'" + expected + "' expected\n" + o);
    assertNoStackTrace(o);
  }

  @Test
  void theScriptAnswersHelpVersionAndUsageErrors() throws Exception {
    Outcome help = rmarun("--help");
    assertEquals(0, help.exit(), help.toString());
    for (String option : List.of("-np", "--jvms", "--host", "--hostfile", "--launch", "--job", "--timeout",
        "-cp, --classpath", "-x", "--tag-output", "--conf", "--quiet", "--help", "--version", "Samples: ")) {
      assertTrue(help.out().contains(option), option + "\n" + help);
    }
    assertFalse(help.out().contains("--ranks"), help.toString());
    assertFalse(help.out().contains("--secret-stdin"), help.toString());

    Outcome version = rmarun("--version");
    assertEquals(0, version.exit(), version.toString());
    assertTrue(version.out().startsWith("rmarun (vertx-rma " + System.getProperty("rma.version") + ")"), version.toString());

    // the issue's examples: each was a stack trace, or an error after the cluster had formed
    assertUsageError(rmarun("--timeout", "0", "-np", "2", "twisted"), "--timeout 0");
    assertUsageError(rmarun("--job", "bad name", "-np", "4", "--jvms", "2", "twisted"), "job name 'bad name'");
    assertUsageError(rmarun("--ranks", "1:1", "-np", "2", "twisted"), "Unknown option: '--ranks'");
    Outcome unknown = rmarun("-np", "4", "--jvms", "2", "twisterd");
    assertUsageError(unknown, "unknown program 'twisterd'");
    assertTrue(unknown.err().contains("the samples are ") && unknown.err().contains("double-buffer, "), unknown.toString());
  }

  /**
   * The user's class from {@code -cp}, over two JVMs: every rank sees the variable {@code -x}
   * set and the configuration directory {@code --conf} named, prints its line whole with its rank
   * in front, and rmarun reports the ranks joining.
   */
  @Test
  void aUsersProgramRunsOverTwoJvmsWithItsEnvironmentConfigurationAndTags() throws Exception {
    Path classes = UserProgram.compile(tmp.resolve("user"));
    Path conf = Files.createDirectories(tmp.resolve("conf"));
    Files.copy(Rmarun.home().toPath().resolve("conf/cluster.xml"), conf.resolve("cluster.xml"));
    Files.copy(Rmarun.home().toPath().resolve("conf/logging.properties"), conf.resolve("logging.properties"));
    Outcome o = rmarun("-np", "3", "--jvms", "2", "-cp", classes.toString(), "-x", UserProgram.VARIABLE + "=hello there",
        "--conf", conf.toString(), "--tag-output", UserProgram.CLASS, "x", "--y");
    assertEquals(0, o.exit(), o.toString());
    for (int r = 0; r < 3; r++) {
      String line = "[" + r + "] " + UserProgram.line(r, 3, "hello there", conf.toAbsolutePath().normalize().toString(),
          List.of("x", "--y"));
      assertTrue(o.out().lines().anyMatch(line::equals), line + "\n" + o);
    }
    assertTrue(o.err().contains("rmarun: starting 2 JVMs for 3 ranks of job "), o.toString());
    assertTrue(o.err().contains("rmarun: all 3 ranks joined ("), o.toString());
    assertNoStackTrace(o);
  }

  /**
   * A JVM without picocli (an optional dependency: {@code RmaJob} starts JVMs of a job with a
   * user's test class path, which may lack it) still runs ranks, told what to run by a job
   * description on standard input; rmarun's own command line, for people, says in one line that
   * it needs picocli.
   */
  @Test
  void ranksRunWithoutPicocli() throws Exception {
    List<String> cp = new ArrayList<>();
    for (String e : System.getProperty("java.class.path").split(File.pathSeparator)) {
      if (!e.contains("picocli")) {
        cp.add(e);
      }
    }
    List<String> java = new ArrayList<>(List.of(System.getProperty("java.home") + "/bin/java"));
    for (String line : Files.readAllLines(Rmarun.home().toPath().resolve("conf/jvm.options"))) {
      if (!line.isBlank() && !line.startsWith("#")) {
        java.add(line.trim());
      }
    }
    java.addAll(List.of("-cp", String.join(File.pathSeparator, cp)));
    List<String> jobJvm = new ArrayList<>(java);
    jobJvm.add("dev.vertxrma.impl.launch.JobJvm");
    Outcome ok = run(jobJvm, "{\"job\":\"nopicocli\",\"np\":3,\"program\":\"dev.vertxrma.samples.standard.Twisted\","
        + "\"tagOutput\":true}\n", "-", "job=nopicocli");
    assertEquals(0, ok.exit(), ok.toString());
    assertTrue(ok.out().contains("[0] twisted: verified"), ok.toString());
    Outcome bad = run(jobJvm, "{\"job\":\"nopicocli\",\"np\":3,\"program\":\"dev.vertxrma.samples.standard.Twisted\","
        + "\"tagOutput\":\"yes\"}\n", "-");
    assertEquals(2, bad.exit(), bad.toString());
    assertEquals("rmarun: bad job description (standard input): field 'tagOutput' must be true or false, got \"yes\"\n",
        bad.err());
    List<String> rmarun = new ArrayList<>(java);
    rmarun.add("dev.vertxrma.impl.launch.RmaRun");
    Outcome people = run(rmarun, "", "-np", "3", "twisted");
    assertEquals(2, people.exit(), people.toString());
    assertEquals("rmarun: its command line needs picocli on the class path, which the runnable jar behind bin/rmarun "
        + "has\n", people.err());
  }

  /** Runs {@code java ARGS} with {@code stdin} on its standard input. */
  private Outcome run(List<String> java, String stdin, String... args) throws Exception {
    List<String> cmd = new ArrayList<>(java);
    cmd.addAll(List.of(args));
    File out = Files.createTempFile(tmp, "java", ".out").toFile();
    File err = Files.createTempFile(tmp, "java", ".err").toFile();
    Process p = new ProcessBuilder(cmd).redirectOutput(out).redirectError(err).start();
    try (java.io.OutputStream in = p.getOutputStream()) {
      in.write(stdin.getBytes(StandardCharsets.UTF_8));
    }
    boolean finished = p.waitFor(WAIT_SECONDS, TimeUnit.SECONDS);
    if (!finished) {
      p.destroyForcibly();
    }
    Outcome o = new Outcome(finished ? p.exitValue() : -1, Files.readString(out.toPath(), StandardCharsets.UTF_8),
        Files.readString(err.toPath(), StandardCharsets.UTF_8));
    assertTrue(finished, "did not finish\n" + o);
    return o;
  }

  /**
   * {@code --launch print}: the commands for each host on stdout (a shell script: comments and one
   * line per host), each JVM's address and ranks in its command, the job secret in
   * {@code JOB.secret} in the current directory with mode 0600 (named by the commands, never
   * printed), nothing started; a second run with the same job name is refused.
   */
  @Test
  void launchPrintWritesTheSecretAndPrintsEachHostsCommand() throws Exception {
    File dir = Files.createDirectories(tmp.resolve("print")).toFile();
    Outcome o = rmarunIn(dir, "-np", "5", "--host", "10.1.2.3,10.1.2.4", "--launch", "print", "--job", "printed",
        "-x", UserProgram.VARIABLE + "=two words", "--tag-output", "twisted", "arg 1");
    assertEquals(0, o.exit(), o.toString());
    Path secret = dir.toPath().resolve("printed.secret");
    assertEquals("rw-------", java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(secret)));
    String text = Files.readString(secret).trim();
    assertEquals(32, java.util.Base64.getDecoder().decode(text).length, "a fresh 32-byte secret");
    assertFalse(o.out().contains(text), "the secret is in its file only\n" + o);
    List<String> commands = o.out().lines().filter(l -> !l.startsWith("#")).toList();
    assertEquals(2, commands.size(), o.toString());
    String[][] expected = {{"10.1.2.3", "0..1", "0"}, {"10.1.2.4", "2..4", "1"}};
    for (int k = 0; k < 2; k++) {
      String c = commands.get(k);
      // printf '%s\n' DESCRIPTION | env ... java ... JobJvm - LABEL
      Matcher m = Pattern.compile("printf '%s\\\\n' '(\\{[^']*\\})' \\| (.*)").matcher(c);
      assertTrue(m.matches(), c);
      String rest = m.group(2);
      assertTrue(rest.startsWith("env RMA_JOB_SECRET_FILE=" + secret + " '" + UserProgram.VARIABLE + "=two words' /"), c);
      for (String part : List.of(" -Drma.host=" + expected[k][0] + " ", " -Drma.members=10.1.2.3,10.1.2.4 ",
          " dev.vertxrma.impl.launch.JobJvm - job=printed,jvm=" + expected[k][2] + ",ranks=" + expected[k][1])) {
        assertTrue(rest.contains(part), part + "\n" + c);
      }
      dev.vertxrma.impl.launch.JobDescription d = dev.vertxrma.impl.launch.JobDescription.fromJson(m.group(1));
      assertEquals(List.of("printed", 5, "dev.vertxrma.samples.standard.Twisted", List.of("arg 1"), Integer.parseInt(expected[k][2]),
          true, false, -1), List.of(d.getJob(), d.getNp(), d.getProgram(), d.getArgs(), d.getJvmIndex(), d.isTagOutput(),
          d.isLauncherLink(), d.getProgressPort()));
      assertEquals(expected[k][1], d.getFirstRank() + ".." + (d.getFirstRank() + d.getRankCount() - 1));
    }
    assertTrue(o.out().contains("# JVM 1 on 10.1.2.4 (10.1.2.4): ranks 2..4"), o.toString());
    assertEquals("", o.err(), o.toString());
    assertUsageError(rmarunIn(dir, "-np", "2", "--host", "10.1.2.3", "--launch", "print", "--job", "printed", "twisted"),
        "--launch print writes the job secret to " + secret + ", which exists");
  }

  /** {@code -x} without {@code --jvms}: the embedded job runs in a JVM of its own that has the variable. */
  @Test
  void anEmbeddedJobGetsTheEnvironmentInAJvmOfItsOwn() throws Exception {
    Path classes = UserProgram.compile(tmp.resolve("user"));
    Outcome o = rmarun("-np", "2", "--classpath", classes.toString(), "-x", UserProgram.VARIABLE + "=embedded",
        UserProgram.CLASS);
    assertEquals(0, o.exit(), o.toString());
    for (int r = 0; r < 2; r++) {
      Pattern line = Pattern.compile(Pattern.quote(UserProgram.line(r, 2, "embedded", "CONF", List.of()))
          .replace("CONF", "\\E.*/conf\\Q"));
      assertTrue(o.out().lines().anyMatch(l -> line.matcher(l).matches()), line + "\n" + o);
    }
    assertFalse(o.err().contains("rmarun: starting"), "no cluster, no progress report\n" + o);
    assertNoStackTrace(o);
  }
}
