package dev.vertxrma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.testing.LaunchClassPath;
import dev.vertxrma.testing.Rmarun;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Keeps README.md honest. Every shell command in its {@code ```sh}/{@code ```bash} blocks is either
 * run here (a cheap {@code bin/rmarun} run: embedded, one JVM, on the test class path as
 * {@link Rmarun} does) or is one of {@link #KNOWN}, commands that a named test (or CI itself)
 * runs; a command that is neither fails {@link #everyReadmeCommandIsRunHereOrByANamedTest}. The
 * test command CI runs ({@code .ci/run}: "the test command README.md gives") must be in README and
 * in {@code .ci/run}, and is never run here (it would run this test again). Every relative link
 * of README.md and docs/*.md must point to an existing file, and to an existing heading when it
 * names one.
 */
class ReadmeCommandsTest {

  private static final Path HOME = Rmarun.home().toPath();
  private static final String TEST_COMMAND = "mvn -B -ntp verify";
  private static final long WAIT_SECONDS = 120;

  @TempDir
  Path tmp;

  /** A command README gives that another test (or CI) runs: who runs it, and a file that shows it does. */
  record Known(String command, String runBy, String evidenceFile, List<String> evidence) {
  }

  /**
   * The README commands not run here, each with the test that runs it. The evidence strings must
   * all occur in the evidence file, so that a renamed or removed test makes this list fail too.
   */
  static final List<Known> KNOWN = List.of(
      new Known(TEST_COMMAND, "CI itself: .ci/run runs the test command README.md gives", ".ci/run",
          List.of("\n" + TEST_COMMAND + "\n")),
      new Known("mvn -q -B package -DskipTests",
          "CI: the package phase of .ci/run's `" + TEST_COMMAND + "` builds the same jars (the library jar and the "
              + "runnable -all jar, which ConsumerProjectTest's integration-test execution then uses); this test runs "
              + "the bin/rmarun part of the quick start on the test class path instead",
          ".ci/run", List.of("\n" + TEST_COMMAND + "\n")),
      new Known("bin/rmarun -np 4 --jvms 2 twisted", "MultiJvmTest#samplesOverTwoJvmsVerify (its \"twisted\" case)",
          "src/test/java/dev/vertxrma/runtime/MultiJvmTest.java",
          List.of("void samplesOverTwoJvmsVerify", "\"twisted\"", "\"-np\", String.valueOf(np), \"--jvms\"")));

  /** Options that make a bin/rmarun command more than one cheap embedded JVM, or depend on the machine. */
  private static final Set<String> NOT_CHEAP = Set.of("--jvms", "--host", "--hostfile", "--launch", "-x", "--conf",
      "--trace", "-cp", "--classpath", "--virtual-threads");

  /** One shell command of README.md and the output README says it prints, if it says so. */
  record Command(String text, String prints) {
  }

  // ------------------------------------------------------------------ the commands

  @Test
  void readmeGivesTheTestCommandThatCiRuns() throws IOException {
    List<String> commands = commands().stream().map(Command::text).toList();
    assertTrue(commands.contains(TEST_COMMAND), "README.md must give the test command `" + TEST_COMMAND
        + "` in a ```sh block: .ci/run runs \"the test command README.md gives\"; README gives " + commands);
    assertTrue(Files.readString(HOME.resolve(".ci/run")).contains("\n" + TEST_COMMAND + "\n"),
        ".ci/run must run " + TEST_COMMAND);
  }

  @Test
  void everyReadmeCommandIsRunHereOrByANamedTest() throws IOException {
    List<Command> commands = commands();
    assertFalse(commands.isEmpty(), "README.md gives no shell command: the parser lost them");
    List<String> unaccounted = new ArrayList<>();
    for (Command c : commands) {
      if (!runsHere(c.text()) && known(c.text()) == null) {
        unaccounted.add(c.text());
      }
    }
    assertTrue(unaccounted.isEmpty(), "README.md gives commands that no test runs: " + unaccounted
        + ". Run each in ReadmeCommandsTest (if cheap) or add it to ReadmeCommandsTest.KNOWN with the test that runs it");
    Set<String> given = commands.stream().map(Command::text).collect(Collectors.toSet());
    for (Known k : KNOWN) {
      assertTrue(given.contains(k.command()), "ReadmeCommandsTest.KNOWN lists `" + k.command()
          + "`, which README.md no longer gives: remove it from the list");
      String evidence = Files.readString(HOME.resolve(k.evidenceFile()));
      for (String e : k.evidence()) {
        assertTrue(evidence.contains(e), "`" + k.command() + "` is said to be run by " + k.runBy() + ", but "
            + k.evidenceFile() + " does not contain " + e.strip());
      }
    }
  }

  /** The cheap commands: each embedded bin/rmarun run of README, run as README gives it. */
  @Test
  @Tag("multijvm")
  void theCheapReadmeCommandsRun() throws Exception {
    List<Command> cheap = commands().stream().filter(c -> runsHere(c.text())).toList();
    assertFalse(cheap.isEmpty(), "README.md's quick start runs `bin/rmarun -np 4 twisted`: none found");
    for (Command c : cheap) {
      Outcome o = run(c.text());
      assertEquals(0, o.exit(), "`" + c.text() + "` exited with status " + o.exit() + "\n" + o);
      List<String> args = words(c.text()).subList(1, words(c.text()).size());
      if (args.contains("--help")) {
        assertTrue(o.out().contains("-np"), "`" + c.text() + "` should document -np\n" + o);
      } else if (!args.contains("--version")) {
        assertTrue(o.out().contains("verified"), "`" + c.text() + "` printed no 'verified' line\n" + o);
      }
      if (c.prints() != null) {
        assertTrue(o.out().contains(c.prints()), "README.md says `" + c.text() + "` prints `" + c.prints()
            + "`; it did not\n" + o);
      }
    }
  }

  /** A command run here: bin/rmarun, embedded, no shell syntax (README runs it from the project directory). */
  static boolean runsHere(String command) {
    if (!command.startsWith("bin/rmarun ") || Pattern.compile("[|&;<>$`'\"*(){}\\\\]").matcher(command).find()) {
      return false;
    }
    List<String> args = words(command);
    return args.stream().noneMatch(NOT_CHEAP::contains);
  }

  private static Known known(String command) {
    return KNOWN.stream().filter(k -> k.command().equals(command)).findFirst().orElse(null);
  }

  private static List<String> words(String command) {
    return List.of(command.trim().split("\\s+"));
  }

  /** Exit status, stdout and stderr of one command. */
  record Outcome(int exit, String out, String err) {
    @Override
    public String toString() {
      return "exit " + exit + "\n--- stdout ---\n" + out + "--- stderr ---\n" + err;
    }
  }

  private Outcome run(String command) throws Exception {
    List<String> cmd = new ArrayList<>(words(command));
    cmd.set(0, HOME.resolve(cmd.get(0)).toString());
    File out = Files.createTempFile(tmp, "cmd", ".out").toFile();
    File err = Files.createTempFile(tmp, "cmd", ".err").toFile();
    ProcessBuilder pb = new ProcessBuilder(cmd).directory(HOME.toFile()).redirectOutput(out).redirectError(err);
    Map<String, String> env = pb.environment();
    // as Rmarun does: the project's classes instead of the runnable jar, and this JVM's java
    LaunchClassPath.into(env);
    Process p = pb.start();
    boolean finished = p.waitFor(WAIT_SECONDS, TimeUnit.SECONDS);
    if (!finished) {
      p.descendants().forEach(ProcessHandle::destroyForcibly);
      p.destroyForcibly();
      p.waitFor(30, TimeUnit.SECONDS);
    }
    Outcome o = new Outcome(finished ? p.exitValue() : -1, Files.readString(out.toPath(), StandardCharsets.UTF_8),
        Files.readString(err.toPath(), StandardCharsets.UTF_8));
    assertTrue(finished, "`" + command + "` did not finish within " + WAIT_SECONDS + " s\n" + o);
    return o;
  }

  // ------------------------------------------------------------------ parsing README's shell blocks

  private static final Pattern FENCE = Pattern.compile("^\\s*```\\s*([A-Za-z0-9_+-]*)\\s*$");
  private static final Set<String> SHELL = Set.of("sh", "bash", "shell", "console", "zsh");
  private static final Pattern PRINTS = Pattern.compile("^It prints `([^`]+)`");

  /**
   * The commands of README.md's shell blocks: continuation lines joined, comments dropped, a
   * command chained with {@code &&} split into its parts. A block followed by "It prints `X`"
   * says that its last command prints X.
   */
  static List<Command> commands() throws IOException {
    List<String> lines = Files.readAllLines(HOME.resolve("README.md"));
    List<Command> commands = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      Matcher m = FENCE.matcher(lines.get(i));
      if (!m.matches()) {
        continue;
      }
      String lang = m.group(1).toLowerCase(Locale.ROOT);
      List<String> block = new ArrayList<>();
      int j = i + 1;
      while (j < lines.size() && !FENCE.matcher(lines.get(j)).matches()) {
        block.add(lines.get(j));
        j++;
      }
      if (SHELL.contains(lang)) {
        List<String> parsed = parse(block);
        String prints = null;
        for (int k = j + 1; k < lines.size() && prints == null; k++) {
          if (lines.get(k).isBlank()) {
            continue;
          }
          Matcher pm = PRINTS.matcher(lines.get(k));
          prints = pm.find() ? pm.group(1) : "";
        }
        for (int k = 0; k < parsed.size(); k++) {
          boolean last = k == parsed.size() - 1;
          commands.add(new Command(parsed.get(k), last && prints != null && !prints.isEmpty() ? prints : null));
        }
      }
      i = j;
    }
    return commands;
  }

  private static List<String> parse(List<String> block) {
    List<String> joined = new ArrayList<>();
    StringBuilder current = new StringBuilder();
    for (String line : block) {
      String l = line.startsWith("$ ") ? line.substring(2) : line;
      if (l.endsWith("\\")) {
        current.append(l, 0, l.length() - 1).append(' ');
        continue;
      }
      current.append(l);
      joined.add(current.toString());
      current.setLength(0);
    }
    if (current.length() > 0) {
      joined.add(current.toString());
    }
    List<String> commands = new ArrayList<>();
    for (String line : joined) {
      String l = stripComment(line).trim().replaceAll("\\s+", " ");
      if (l.isEmpty()) {
        continue;
      }
      for (String part : l.split(" && ")) {
        commands.add(part.trim());
      }
    }
    return commands;
  }

  /** A line without its {@code #} comment (a {@code #} at the start or after a blank, outside quotes). */
  private static String stripComment(String line) {
    boolean single = false;
    boolean dbl = false;
    for (int i = 0; i < line.length(); i++) {
      char c = line.charAt(i);
      if (c == '\'' && !dbl) {
        single = !single;
      } else if (c == '"' && !single) {
        dbl = !dbl;
      } else if (c == '#' && !single && !dbl && (i == 0 || Character.isWhitespace(line.charAt(i - 1)))) {
        return line.substring(0, i);
      }
    }
    return line;
  }

  @Test
  void theParserSplitsJoinsAndDropsComments() {
    assertEquals(List.of("mvn -q -B package -DskipTests", "bin/rmarun -np 4 twisted"),
        parse(List.of("mvn -q -B package -DskipTests && bin/rmarun -np 4 twisted")));
    assertEquals(List.of("bin/rmabench --jvms 1,2 --csv put-latency"),
        parse(List.of("# a comment", "bin/rmabench --jvms 1,2 \\", "  --csv put-latency   # trailing", "")));
    assertEquals(List.of("echo 'a # b'"), parse(List.of("echo 'a # b'")));
    assertTrue(runsHere("bin/rmarun -np 4 twisted"));
    assertFalse(runsHere("bin/rmarun -np 4 --jvms 2 twisted"));
    assertFalse(runsHere("sudo bin/rmarun -np 6 --hostfile hosts linked-list"));
    assertFalse(runsHere("bin/rmarun -np 4 twisted > out.txt"));
  }

  // ------------------------------------------------------------------ links

  private static final Pattern LINK = Pattern.compile("!?\\[[^\\]]*\\]\\(([^)\\s]+)(?:\\s+\"[^\"]*\")?\\)");

  @Test
  void relativeLinksOfReadmeAndDocsPointToExistingFilesAndHeadings() throws IOException {
    List<Path> pages = new ArrayList<>();
    pages.add(HOME.resolve("README.md"));
    try (Stream<Path> docs = Files.list(HOME.resolve("docs"))) {
      docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
    }
    List<String> broken = new ArrayList<>();
    int checked = 0;
    for (Path page : pages) {
      for (String target : links(Files.readString(page))) {
        if (target.matches("^[a-zA-Z][a-zA-Z0-9+.-]*:.*")) {
          continue; // https:, mailto:
        }
        checked++;
        int hash = target.indexOf('#');
        String file = hash < 0 ? target : target.substring(0, hash);
        String anchor = hash < 0 ? null : target.substring(hash + 1);
        Path resolved = file.isEmpty() ? page : page.getParent().resolve(file).normalize();
        String where = HOME.relativize(page) + ": " + target;
        if (!resolved.startsWith(HOME) || !Files.exists(resolved)) {
          broken.add(where + " (no such file)");
        } else if (anchor != null && !anchor.isEmpty()) {
          if (!resolved.toString().endsWith(".md") || !anchors(Files.readString(resolved)).contains(anchor)) {
            broken.add(where + " (no such heading)");
          }
        }
      }
    }
    assertTrue(checked > 20, "too few relative links found (" + checked + "): the link parser is broken");
    assertTrue(broken.isEmpty(), "broken relative links:\n  " + String.join("\n  ", broken));
  }

  /** The link targets of a Markdown page, outside code blocks and code spans. */
  static List<String> links(String markdown) {
    List<String> targets = new ArrayList<>();
    boolean code = false;
    for (String line : markdown.split("\n", -1)) {
      if (FENCE.matcher(line).matches()) {
        code = !code;
        continue;
      }
      if (code) {
        continue;
      }
      Matcher m = LINK.matcher(line.replaceAll("`[^`]*`", "``"));
      while (m.find()) {
        targets.add(m.group(1));
      }
    }
    return targets;
  }

  /** GitHub's anchors of a page's headings (duplicates get -1, -2, ...). */
  static Set<String> anchors(String markdown) {
    Set<String> anchors = new LinkedHashSet<>();
    boolean code = false;
    for (String line : markdown.split("\n", -1)) {
      if (FENCE.matcher(line).matches()) {
        code = !code;
        continue;
      }
      if (code || !line.startsWith("#")) {
        continue;
      }
      String text = line.replaceFirst("^#+\\s*", "").trim();
      String slug = text.toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-');
      String unique = slug;
      for (int n = 1; anchors.contains(unique); n++) {
        unique = slug + "-" + n;
      }
      anchors.add(unique);
    }
    return anchors;
  }

  @Test
  void anchorsAreGitHubs() {
    assertEquals(Set.of("binrmarun", "three-styles-futures-rxjava-virtual-threads", "the-tables-2-ranks-2026-11-26",
        "a-b", "a-b-1"), anchors("## `bin/rmarun`\n# Three styles: futures, RxJava, virtual threads\n"
        + "## The tables: 2 ranks, 2026-11-26\n## a b\n```\n# not a heading\n```\n## A b\n"));
    assertEquals(List.of("docs/a.md", "b.md#c"), links("see [a](docs/a.md) and ![b](b.md#c) but not `[x](y.md)`"));
  }
}
