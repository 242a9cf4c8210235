package dev.vertxrma.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.config.Config;
import com.hazelcast.config.NetworkConfig;
import dev.vertxrma.testing.LaunchClassPath;
import dev.vertxrma.testing.Rmarun;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What can be checked of the Docker image without a Docker engine: the Dockerfile's shape (a
 * dependency layer before the sources, every file it copies exists, every directory the build
 * reads is copied, a non-root user, the entrypoint's fixed ports exposed), the multi-host
 * configuration the entrypoint uses, and the entrypoint's refusals of an incomplete
 * environment. {@code MultiHostTest} runs the entrypoint as three "containers" (network
 * namespaces) that make one job.
 */
class DockerfileTest {

  private static final Path HOME = Rmarun.home().toPath();

  /** One instruction of the Dockerfile (continuation lines joined) and the stage it belongs to. */
  record Instruction(int stage, String keyword, String args) {
  }

  private static List<Instruction> dockerfile() throws Exception {
    List<Instruction> list = new ArrayList<>();
    String text = Files.readString(HOME.resolve("Dockerfile")).replaceAll("\\\\\\n", " ");
    int stage = -1;
    for (String line : text.split("\n")) {
      String t = line.trim();
      if (t.isEmpty() || t.startsWith("#")) {
        continue;
      }
      String[] kw = t.split("\\s+", 2);
      String keyword = kw[0].toUpperCase(java.util.Locale.ROOT);
      if (keyword.equals("FROM")) {
        stage++;
      }
      list.add(new Instruction(stage, keyword, kw.length > 1 ? kw[1] : ""));
    }
    return list;
  }

  private static int indexOf(List<Instruction> file, String keyword, String argsContain) {
    for (int i = 0; i < file.size(); i++) {
      if (file.get(i).keyword().equals(keyword) && file.get(i).args().contains(argsContain)) {
        return i;
      }
    }
    return -1;
  }

  @Test
  void aMultiStageBuildWithADependencyLayerBeforeTheSources() throws Exception {
    List<Instruction> file = dockerfile();
    List<Instruction> froms = file.stream().filter(i -> i.keyword().equals("FROM")).toList();
    assertEquals(2, froms.size(), "a build stage and a run stage: " + froms);
    assertTrue(froms.get(0).args().matches("(?i)\\S*maven\\S*17\\S* AS build"), froms.toString());
    assertTrue(froms.get(1).args().matches("\\S*jre\\S*"), "the run stage has a runtime only: " + froms);
    int pom = indexOf(file, "COPY", "pom.xml");
    int offline = indexOf(file, "RUN", "dependency:go-offline");
    int sources = indexOf(file, "COPY", "src");
    int build = indexOf(file, "RUN", " package");
    assertTrue(pom >= 0 && pom < offline && offline < sources && sources < build,
        "pom.xml, go-offline, then the sources, then the build: " + file);
    assertTrue(file.get(build).args().contains("-Dmaven.test.skip=true"), "the build stage has no tests to compile");
    int jar = indexOf(file, "COPY", "--from=build");
    assertEquals("--from=build /src/target/vertx-rma-*-all.jar target/", file.get(jar).args());
    String pomText = Files.readString(HOME.resolve("pom.xml"));
    assertTrue(pomText.contains("<artifactId>vertx-rma</artifactId>")
        && pomText.contains("<shadedClassifierName>all</shadedClassifierName>"), "the runnable jar's name");
  }

  /** Every COPY source exists here, and the build stage copies every directory the pom's build reads. */
  @Test
  void everyFileItCopiesExistsAndTheBuildHasItsInputs() throws Exception {
    List<Instruction> file = dockerfile();
    List<String> copiedForBuild = new ArrayList<>();
    for (Instruction i : file) {
      if (!i.keyword().equals("COPY") || i.args().startsWith("--from")) {
        continue;
      }
      String[] words = i.args().split("\\s+");
      for (int w = 0; w < words.length - 1; w++) {
        assertTrue(Files.exists(HOME.resolve(words[w])), "COPY " + words[w] + " exists");
        if (i.stage() == 0) {
          copiedForBuild.add(words[w]);
        }
      }
    }
    Matcher dirs = Pattern.compile("<(?:directory|source)>([^<$]+)</(?:directory|source)>")
        .matcher(Files.readString(HOME.resolve("pom.xml")));
    int read = 0;
    while (dirs.find()) {
      String dir = dirs.group(1).trim();
      if (dir.startsWith("src/test") || dir.contains("consumer") || !Files.isDirectory(HOME.resolve(dir))) {
        // (test inputs, and values of the same elements that are no directory: javadoc's <source>17)
        continue;
      }
      read++;
      assertTrue(copiedForBuild.stream().anyMatch(c -> dir.equals(c) || dir.startsWith(c + "/")),
          "the build reads " + dir + ", which the build stage copies: " + copiedForBuild);
    }
    assertTrue(read >= 2, "the pom's source and resource directories were found");
    assertTrue(Files.readString(HOME.resolve(".dockerignore")).lines().anyMatch("*.secret"::equals),
        "a job secret written in the project is never sent to the Docker daemon");
  }

  /** A non-root user runs the entrypoint, which exists and is executable; the ports it fixes are exposed. */
  @Test
  void aNonRootUserTheEntrypointAndItsPortsExposed() throws Exception {
    List<Instruction> file = dockerfile();
    List<Instruction> run = file.stream().filter(i -> i.stage() == 1).toList();
    List<String> users = run.stream().filter(i -> i.keyword().equals("USER")).map(Instruction::args).toList();
    assertEquals(1, users.size(), run.toString());
    assertNotEquals("root", users.get(0));
    assertNotEquals("0", users.get(0).split(":")[0]);
    assertTrue(run.stream().anyMatch(i -> i.keyword().equals("RUN") && i.args().contains("useradd")
        && i.args().endsWith(" " + users.get(0))), "the user is made: " + run);
    String workdir = run.stream().filter(i -> i.keyword().equals("WORKDIR")).findFirst().orElseThrow().args();
    String entrypoint = run.stream().filter(i -> i.keyword().equals("ENTRYPOINT")).findFirst().orElseThrow().args();
    Matcher e = Pattern.compile("\\[\"" + Pattern.quote(workdir) + "/([^\"]+)\"\\]").matcher(entrypoint);
    assertTrue(e.matches(), entrypoint);
    Path script = HOME.resolve(e.group(1));
    assertTrue(Files.isExecutable(script), script + " is executable");
    assertTrue(run.stream().anyMatch(i -> i.keyword().equals("COPY") && i.args().equals(e.group(1) + " " + e.group(1))),
        "the entrypoint is copied where ENTRYPOINT runs it");

    String text = Files.readString(script);
    Set<String> defaults = new TreeSet<>();
    Matcher ports = Pattern.compile("RMA_(?:CLUSTER|BUS|DATA)_PORT:-(\\d+)").matcher(text);
    while (ports.find()) {
      defaults.add(ports.group(1));
    }
    assertEquals(3, defaults.size(), "the cluster, event-bus and data-plane ports");
    Set<String> exposed = new TreeSet<>();
    run.stream().filter(i -> i.keyword().equals("EXPOSE")).forEach(i -> exposed.addAll(List.of(i.args().split("\\s+"))));
    assertEquals(defaults, exposed, "the ports the entrypoint fixes are the ports exposed");
    assertTrue(text.contains("conf/examples/multi-host") && Files.isRegularFile(HOME.resolve(
        "conf/examples/multi-host/cluster.xml")), "the entrypoint's configuration exists (conf/ is copied)");
  }

  /** The multi-host configuration: one fixed port, members and interface from the JVM's properties. */
  @Test
  void theMultiHostConfigurationTakesItsMembersAndPortFromProperties() throws Exception {
    Properties p = new Properties();
    p.setProperty("rma.members", "rma0,rma1,10.0.0.3:5801");
    p.setProperty("rma.host", "10.0.0.2");
    p.setProperty("rma.clusterPort", "5701");
    Config c = Config.loadFromFile(HOME.resolve("conf/examples/multi-host/cluster.xml").toFile(), p);
    NetworkConfig n = c.getNetworkConfig();
    assertEquals(5701, n.getPort());
    assertFalse(n.isPortAutoIncrement());
    assertEquals(List.of("rma0", "rma1", "10.0.0.3:5801"), n.getJoin().getTcpIpConfig().getMembers());
    assertTrue(n.getInterfaces().isEnabled());
    assertEquals(List.of("10.0.0.2"), new ArrayList<>(n.getInterfaces().getInterfaces()));
    assertEquals("1", c.getProperty("hazelcast.tcp.join.port.try.count"));
    assertFalse(n.getJoin().getMulticastConfig().isEnabled());
  }

  static Stream<Arguments> incompleteEnvironments() {
    Map<String, String> good = Map.of("RMA_MEMBERS", "10.0.0.2,10.0.0.3", "RMA_HOST", "10.0.0.2", "RMA_NP", "4",
        "RMA_JOB", "j", "RMA_JOB_SECRET_FILE", HOME.resolve("pom.xml").toString());
    return Stream.of(
        Arguments.of(without(good, "RMA_NP"), "RMA_NP (the job's number of ranks) is required with RMA_MEMBERS"),
        Arguments.of(with(good, "RMA_NP", "four"), "RMA_NP=four must be a number"),
        Arguments.of(without(good, "RMA_JOB"), "RMA_JOB (the job's name, the same in every member) is required"),
        Arguments.of(without(good, "RMA_JOB_SECRET_FILE"), "RMA_JOB_SECRET_FILE (the file of the job secret"),
        Arguments.of(with(good, "RMA_JOB_SECRET_FILE", "/does/not/exist"), "RMA_JOB_SECRET_FILE=/does/not/exist cannot be read"),
        Arguments.of(with(good, "RMA_HOST", "10.0.0.9"), "RMA_HOST=10.0.0.9 is not an entry of RMA_MEMBERS=10.0.0.2,10.0.0.3"),
        Arguments.of(with(good, "RMA_NP", "1"), "RMA_MEMBERS lists 2 members for RMA_NP=1 ranks"),
        Arguments.of(with(with(good, "RMA_HOST", "localhost"), "RMA_MEMBERS", "localhost,10.0.0.3"),
            "RMA_HOST=localhost resolves to 127.0.0.1, a loopback address"),
        Arguments.of(with(good, "RMA_DATA_PORT", "x"), "RMA_DATA_PORT=x must be a number"),
        Arguments.of(with(good, "RMA_CONF", "/does/not/exist"), "RMA_CONF=/does/not/exist has no cluster.xml"));
  }

  private static Map<String, String> with(Map<String, String> env, String name, String value) {
    Map<String, String> m = new java.util.HashMap<>(env);
    m.put(name, value);
    return m;
  }

  private static Map<String, String> without(Map<String, String> env, String name) {
    Map<String, String> m = new java.util.HashMap<>(env);
    m.remove(name);
    return m;
  }

  /** An incomplete or wrong environment: one line naming the variable, status 2, no JVM started. */
  @ParameterizedTest
  @MethodSource("incompleteEnvironments")
  void theEntrypointRefusesAnIncompleteEnvironment(Map<String, String> env, String expected) throws Exception {
    ProcessBuilder pb = new ProcessBuilder(HOME.resolve("docker/entrypoint.sh").toString(), "twisted")
        .directory(HOME.toFile());
    pb.environment().keySet().removeIf(k -> k.startsWith("RMA_"));
    pb.environment().putAll(env);
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(30, TimeUnit.SECONDS));
    assertEquals(2, p.exitValue(), err);
    assertEquals("", out);
    assertEquals(1, err.lines().count(), err);
    assertTrue(err.startsWith("entrypoint: ") && err.contains(expected), err);
  }

  /** Without RMA_MEMBERS the arguments are rmarun's (the image's default command is a job in one container). */
  @Test
  @Tag("multijvm")
  void withoutMembersTheArgumentsAreRmaruns() throws Exception {
    ProcessBuilder pb = new ProcessBuilder(HOME.resolve("docker/entrypoint.sh").toString(), "--version")
        .directory(HOME.toFile()).redirectErrorStream(true);
    pb.environment().keySet().removeIf(k -> k.startsWith("RMA_"));
    LaunchClassPath.into(pb.environment());
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(60, TimeUnit.SECONDS));
    assertEquals(0, p.exitValue(), out);
    assertTrue(out.startsWith("rmarun (vertx-rma "), out);
  }
}
