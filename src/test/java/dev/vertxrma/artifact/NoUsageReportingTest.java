package dev.vertxrma.artifact;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.Buf;
import dev.vertxrma.Datatype;
import dev.vertxrma.Info;
import dev.vertxrma.JobOptions;
import dev.vertxrma.Mode;
import dev.vertxrma.Rma;
import dev.vertxrma.Win;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.Permission;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * No usage reporting, ever: a JVM started like an application that embeds the library (the test
 * class path, which Maven resolves from the library's pom as it does for a user, and none of the
 * {@code -Dchronicle.*} flags of the launchers and tests) has no Chronicle analytics on its class
 * path, loads no class of it while it runs a job with windows (Chronicle Bytes memory), Chronicle
 * itself reports its analytics disabled, its announcer is not loaded, and the job connects to no
 * address outside this machine.
 */
class NoUsageReportingTest {

  @TempDir
  Path tmp;

  @Test
  void aJobWithoutTheChronicleFlagsReportsNothing() throws Exception {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
        .filter(a -> !a.startsWith("-agentlib") && !a.startsWith("-javaagent") && !a.startsWith("-Dchronicle."))
        .forEach(cmd::add);
    // -verbose:class: every class the JVM loads, one line each; the security manager (JDK 17) sees
    // every connection and name lookup
    cmd.addAll(List.of("-verbose:class", "-Djava.security.manager=allow",
        "-cp", System.getProperty("java.class.path"), Main.class.getName()));
    Path outFile = tmp.resolve("out");
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(outFile.toFile()).start();
    boolean ended = p.waitFor(120, TimeUnit.SECONDS);
    if (!ended) {
      p.destroyForcibly();
    }
    String out = Files.readString(outFile, StandardCharsets.UTF_8);
    String tail = out.substring(Math.max(0, out.length() - 4000));
    assertTrue(ended, "ended: " + tail);
    assertEquals(0, p.exitValue(), tail);
    assertTrue(out.contains("no usage reporting: ok"), tail);
    assertTrue(out.contains("net.openhft.chronicle.bytes."), "the job used Chronicle Bytes");
    assertTrue(out.contains("net.openhft.chronicle.core.analytics.AnalyticsFacade"), "Chronicle was asked about analytics");
    assertFalse(out.contains("net.openhft.chronicle.analytics."), "a class of chronicle-analytics was loaded");
    // the announcer only prints a banner (no network), and nothing of Chronicle Bytes calls it
    assertFalse(out.contains("net.openhft.chronicle.core.announcer."), "Chronicle's announcer was loaded");
  }

  /** Runs in the JVM without the Chronicle flags. */
  @SuppressWarnings("removal") // the security manager, still there in JDK 17
  public static final class Main {
    public static void main(String[] args) throws Exception {
      for (String flag : List.of("chronicle.analytics.disable", "chronicle.announcer.disable")) {
        if (System.getProperty(flag) != null) {
          throw new AssertionError("-D" + flag + " is set");
        }
      }
      try {
        Class.forName("net.openhft.chronicle.analytics.Analytics");
        throw new AssertionError("chronicle-analytics is on the class path");
      } catch (ClassNotFoundException expected) {
        // the point of the test
      }
      Set<String> local = new HashSet<>(List.of("localhost", InetAddress.getLocalHost().getHostName(),
          InetAddress.getLocalHost().getCanonicalHostName()));
      for (NetworkInterface ni : Collections.list(NetworkInterface.getNetworkInterfaces())) {
        for (InetAddress a : Collections.list(ni.getInetAddresses())) {
          local.add(a.getHostAddress().replaceAll("%.*", ""));
        }
      }
      Set<String> remote = Collections.synchronizedSet(new HashSet<>());
      install(new SecurityManager() {
        @Override
        public void checkPermission(Permission perm) {
          // everything is allowed; only connections are looked at
        }

        @Override
        public void checkPermission(Permission perm, Object context) {
        }

        @Override
        public void checkConnect(String host, int port) {
          String h = host.startsWith("[") ? host.substring(1, host.length() - 1) : host;
          h = h.replaceAll("%.*", "");
          if (!local.contains(h) && !h.startsWith("127.") && !h.equals("::1") && !h.equals("0:0:0:0:0:0:0:1")) {
            remote.add(host + ":" + port);
          }
        }

        @Override
        public void checkConnect(String host, int port, Object context) {
          checkConnect(host, port);
        }
      });
      Rma.run(new JobOptions().setNp(2), (world, a) ->
          Win.allocate(world, 16, 8, Info.NULL).compose(win -> win.fence(Mode.NOPRECEDE)
              .compose(v -> win.put(Buf.of(new long[] {world.rank()}), 0, 1, Datatype.LONG, 1 - world.rank(), 0))
              .compose(v -> win.fence(Mode.NOSUCCEED)).compose(v -> win.free())))
          .toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
      if (net.openhft.chronicle.core.analytics.AnalyticsFacade.isEnabled()) {
        throw new AssertionError("Chronicle reports its analytics enabled");
      }
      if (!remote.isEmpty()) {
        throw new AssertionError("connections outside this machine: " + remote);
      }
      System.out.println("no usage reporting: ok");
      System.exit(0);
    }

    private static void install(SecurityManager sm) {
      System.setSecurityManager(sm);
    }
  }
}
