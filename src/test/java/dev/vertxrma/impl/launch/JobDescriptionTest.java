package dev.vertxrma.impl.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.FailurePolicy;
import dev.vertxrma.JobOptions;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
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

/**
 * The job description, the one thing a JVM of a job is told: every field survives JSON both
 * ways, the defaults are those documented, and a bad description (not JSON, not an object, a
 * field of the wrong type, out of range or unknown, a required one missing) is refused in one line
 * naming the field, by {@link JobJvm} with exit status 2 before anything starts. The shell line
 * that {@code --launch print} prints hands the description over intact.
 */
class JobDescriptionTest {

  private static JobDescription full() {
    return new JobDescription("demo-1", 6, "dev.vertxrma.samples.standard.Twisted").setArgs(List.of("a b", "--c", "\u00e9"))
        .setRanks(2, 3).setJvmIndex(1).setTimeouts(30_000, 90_000).setTagOutput(true).setRequireFreedWindows(true)
        .setVirtualThreads(true).setTrace("/tmp/t.html").setReport("/tmp/r").setProgress("10.0.0.1", 4711)
        .setLauncherLink(true).setFailurePolicy(FailurePolicy.CONTINUE);
  }

  @Test
  void everyFieldSurvivesJson() {
    JobDescription d = JobDescription.fromJson(full().toJson().encode());
    assertEquals(full().toJson(), d.toJson());
    assertEquals(List.of("demo-1", 6, "dev.vertxrma.samples.standard.Twisted", List.of("a b", "--c", "\u00e9"), 2, 3, 1, 30_000L,
        90_000L, true, true, true, "/tmp/t.html", "/tmp/r", "10.0.0.1", 4711, true, FailurePolicy.CONTINUE),
        List.of(d.getJob(), d.getNp(), d.getProgram(), d.getArgs(), d.getFirstRank(), d.getRankCount(), d.getJvmIndex(),
            d.getWaitTimeoutMs(), d.getStartupTimeoutMs(), d.isTagOutput(), d.isRequireFreedWindows(),
            d.isVirtualThreads(), d.getTrace(), d.getReport(), d.getProgressHost(), d.getProgressPort(),
            d.isLauncherLink(), d.getFailurePolicy()));
    assertEquals("continue", full().toJson().getString("onFailure"));
    assertEquals(FailurePolicy.ABORT, JobDescription.fromJson(full().setFailurePolicy(FailurePolicy.ABORT).toJson().encode())
        .getFailurePolicy());
    assertTrue(d.isClustered());
    assertFalse(d.toJson().encode().contains("\n"), "one line, for standard input");
  }

  @Test
  void missingOptionalFieldsTakeTheirDefaults() {
    JobDescription d = JobDescription.fromJson("{\"job\":\"j\",\"np\":2,\"program\":\"P\"}");
    assertFalse(d.isClustered(), "every rank, embedded");
    assertEquals(List.of(List.of(), 0, JobOptions.DEFAULT_WAIT_TIMEOUT_MS, JobOptions.DEFAULT_STARTUP_TIMEOUT_MS, false,
        false, false, false, -1),
        List.of(d.getArgs(), d.getJvmIndex(), d.getWaitTimeoutMs(), d.getStartupTimeoutMs(), d.isTagOutput(),
            d.isRequireFreedWindows(), d.isVirtualThreads(), d.isLauncherLink(), d.getProgressPort()));
    assertEquals(null, d.getTrace());
    assertEquals(null, d.getReport());
    assertEquals(null, d.getFailurePolicy(), "this JVM's default: -Drma.onFailure, else abort");
  }

  static Stream<Arguments> badDescriptions() {
    String ok = "\"job\":\"j\",\"np\":4,\"program\":\"P\"";
    return Stream.of(
        Arguments.of("", "not a JSON object"),
        Arguments.of("{\"job\":", "not a JSON object"),
        Arguments.of("[1,2]", "not a JSON object"),
        Arguments.of("-np 4 twisted", "not a JSON object"),
        Arguments.of("{\"np\":4,\"program\":\"P\"}", "field 'job' is missing"),
        Arguments.of("{\"job\":\"j\",\"program\":\"P\"}", "field 'np' is missing"),
        Arguments.of("{\"job\":\"j\",\"np\":4}", "field 'program' is missing"),
        Arguments.of("{\"job\":\"j\",\"np\":\"four\",\"program\":\"P\"}", "field 'np' must be an integer, got \"four\""),
        Arguments.of("{\"job\":\"j\",\"np\":4.5,\"program\":\"P\"}", "field 'np' must be an integer, got 4.5"),
        Arguments.of("{\"job\":\"j\",\"np\":0,\"program\":\"P\"}", "field 'np' must be between 1 and"),
        Arguments.of("{\"job\":\"j\",\"np\":99999999999999999999999,\"program\":\"P\"}", "field 'np' must be between"),
        Arguments.of("{\"job\":7,\"np\":4,\"program\":\"P\"}", "field 'job' must be a non-empty string, got 7"),
        Arguments.of("{\"job\":\"bad name\",\"np\":4,\"program\":\"P\"}", "field 'job': job name 'bad name'"),
        Arguments.of("{\"job\":\"j\",\"np\":4,\"program\":null}", "field 'program' is null"),
        Arguments.of("{" + ok + ",\"args\":\"x\"}", "field 'args' must be an array of strings, got \"x\""),
        Arguments.of("{" + ok + ",\"args\":[1]}", "field 'args' must be an array of strings, got an element 1"),
        Arguments.of("{" + ok + ",\"firstRank\":1}", "fields 'firstRank' and 'rankCount' go together"),
        Arguments.of("{" + ok + ",\"firstRank\":3,\"rankCount\":2}", "name ranks past 3, the last of 4"),
        Arguments.of("{" + ok + ",\"firstRank\":0,\"rankCount\":0}", "field 'rankCount' must be between 1 and 4"),
        Arguments.of("{" + ok + ",\"tagOutput\":\"yes\"}", "field 'tagOutput' must be true or false, got \"yes\""),
        Arguments.of("{" + ok + ",\"waitTimeoutMs\":0}", "field 'waitTimeoutMs' must be between 1 and"),
        Arguments.of("{" + ok + ",\"progressPort\":70000}", "field 'progressPort' must be between 1 and 65535"),
        Arguments.of("{" + ok + ",\"progressHost\":\"h\"}", "field 'progressHost' needs 'progressPort'"),
        Arguments.of("{" + ok + ",\"onFailure\":\"retry\"}", "field 'onFailure' must be \"abort\" or \"continue\", got \"retry\""),
        Arguments.of("{" + ok + ",\"onFailure\":\"CONTINUE\"}", "field 'onFailure' must be \"abort\" or \"continue\""),
        Arguments.of("{" + ok + ",\"onFailure\":true}", "field 'onFailure' must be a non-empty string, got true"),
        Arguments.of("{" + ok + ",\"ranks\":\"0:2\"}", "unknown field 'ranks' (the fields are args, firstRank, "));
  }

  @ParameterizedTest
  @MethodSource("badDescriptions")
  void aBadDescriptionIsRefusedInOneLine(String text, String expected) {
    JobDescription.Invalid e = assertThrows(JobDescription.Invalid.class, () -> JobDescription.fromJson(text));
    assertTrue(e.getMessage().contains(expected), e.getMessage());
    assertFalse(e.getMessage().contains("\n"), e.getMessage());
  }

  /** Exit status and stderr of {@link JobJvm#run} with {@code stdin} as standard input. */
  private static Map.Entry<Integer, String> jobJvm(String stdin, String... argv) {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int exit = JobJvm.run(argv, new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    return Map.entry(exit, err.toString(StandardCharsets.UTF_8));
  }

  /** A JVM of a job given a bad description says so in one line and exits with 2, running nothing. */
  @Test
  void aJvmGivenABadDescriptionStopsWithStatus2(@TempDir Path dir) throws Exception {
    Map.Entry<Integer, String> o = jobJvm("{\"job\":\"j\",\"np\":\"four\",\"program\":\"P\"}\n", "-", "job=j");
    assertEquals(2, o.getKey(), o.getValue());
    assertEquals("rmarun: bad job description (standard input): field 'np' must be an integer, got \"four\"\n",
        o.getValue());
    o = jobJvm("", "-");
    assertEquals(2, o.getKey(), o.getValue());
    assertEquals("rmarun: bad job description (standard input): cannot be read: standard input ended before the job "
        + "description\n", o.getValue());
    Path file = Files.writeString(dir.resolve("d.json"), "{\"job\":\"j\",\"np\":2}");
    o = jobJvm("", file.toString());
    assertEquals(2, o.getKey(), o.getValue());
    assertEquals("rmarun: bad job description (" + file + "): field 'program' is missing\n", o.getValue());
    Path linked = Files.writeString(dir.resolve("l.json"), "{\"job\":\"j\",\"np\":2,\"program\":\"P\",\"launcherLink\":true}");
    o = jobJvm("", linked.toString());
    assertEquals(2, o.getKey(), o.getValue());
    assertTrue(o.getValue().startsWith("rmarun: bad job description (" + linked + "): field 'launcherLink' is for a "
        + "description on standard input"), o.getValue());
    o = jobJvm("", dir.resolve("missing.json").toString());
    assertEquals(2, o.getKey(), o.getValue());
    assertTrue(o.getValue().startsWith("rmarun: bad job description (" + dir.resolve("missing.json") + "): cannot be read"),
        o.getValue());
    o = jobJvm("", "-np", "4", "twisted");
    assertEquals(2, o.getKey(), o.getValue());
    assertTrue(o.getValue().startsWith("rmarun: a JVM of a job takes one argument, its job description"), o.getValue());
    for (String line : List.of(o.getValue())) {
      assertEquals(1, line.split("\n").length, line);
    }
  }

  /** A description whose program this JVM cannot load fails the JVM (status 1) in one line naming it. */
  @Test
  void aJvmThatCannotLoadItsProgramSaysWhich() {
    Map.Entry<Integer, String> o = jobJvm("{\"job\":\"j\",\"np\":2,\"program\":\"com.example.Missing\",\"firstRank\":1,"
        + "\"rankCount\":1,\"jvmIndex\":1}\n", "-");
    assertEquals(1, o.getKey(), o.getValue());
    assertTrue(o.getValue().startsWith("rmarun: JVM 1 (rank 1) of job j: unknown program 'com.example.Missing': no "
        + "class of that name in this JVM's class path"), o.getValue());
    assertEquals(1, o.getValue().split("\n").length, o.getValue());
  }

  /**
   * The line {@code --launch print} prints for a host hands the description, quotes, blanks and
   * non-ASCII included, to the command's standard input through a shell.
   */
  @Test
  void thePrintedLineHandsTheDescriptionOver() throws Exception {
    JobDescription d = full().setArgs(List.of("it's", "$HOME", "a\\b", "\"q\"", "\u00e9"));
    String line = ChildCommand.printedLine(d, Map.of("RMA_CLI_V", "1 '2'"), List.of("sh", "-c", "cat; echo \"$RMA_CLI_V\""));
    Process p = new ProcessBuilder("sh", "-c", line).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals(0, p.waitFor(), line);
    String[] lines = out.split("\n");
    assertEquals(2, lines.length, out);
    assertEquals(d.toJson(), JobDescription.fromJson(lines[0]).toJson(), line);
    assertEquals("1 '2'", lines[1]);
  }
}
