package dev.vertxrma.impl.runtime;

import com.hazelcast.config.Config;
import dev.vertxrma.ClusterOptions;
import dev.vertxrma.RankVerticle;
import dev.vertxrma.TransportOptions;
import io.vertx.core.internal.VertxBootstrap;
import io.vertx.core.json.JsonObject;
import io.vertx.core.spi.cluster.ClusterManager;
import io.vertx.spi.cluster.hazelcast.HazelcastClusterManager;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.jar.JarFile;

/**
 * The cluster manager of a JVM that a Vert.x launcher started to run a {@link RankVerticle}
 * ({@code java -jar vertx-rma-all.jar CLASS -cluster ...} or {@code io.vertx.core.Launcher run CLASS -cluster ...}):
 * Hazelcast configured as {@link ClusterSupport#clusterConfig(ClusterOptions)} says for this JVM's
 * cluster options (TCP-IP, multicast off, on {@code rma.host}, else the launcher's
 * {@code -cluster-host}, else 127.0.0.1) with the job's name
 * ({@code -conf}'s {@code job}, default {@code rma}) as the cluster's name — never Hazelcast's
 * default (multicast, cluster {@code dev}), which would merge the jobs of one network.
 *
 * <p>The launchers build their Vert.x before any verticle runs, and take their cluster manager from
 * the {@code VertxServiceProvider} services; this one takes the place of Hazelcast's default there
 * only in such a JVM (its command line names a launcher and a {@code RankVerticle} class), and
 * does nothing in any other: an application's own Vert.x keeps its own cluster manager. Such a JVM
 * has one Vert.x instance, made before any job: its cluster and transport options are this JVM's
 * defaults ({@link ClusterOptions#ClusterOptions()}, {@link TransportOptions#TransportOptions()}),
 * resolved here, at that launcher's edge.
 */
public final class LauncherClusterManager extends HazelcastClusterManager {

  private static final String APPLICATION = "io.vertx.launcher.application.VertxApplication";
  private static final String LEGACY = "io.vertx.core.Launcher";
  private static volatile Optional<Launch> launch;

  /** What the launcher's command line says: the job's name and the {@code -cluster-host}, if any. */
  record Launch(String job, String clusterHost) {
  }

  /** For the {@code VertxServiceProvider} services. */
  public LauncherClusterManager() {
  }

  @Override
  public void init(VertxBootstrap bootstrap) {
    ClusterManager current = bootstrap.clusterManager();
    boolean defaultOne = current == null
        || (current.getClass() == HazelcastClusterManager.class && ((HazelcastClusterManager) current).getConfig() == null
            && ((HazelcastClusterManager) current).getHazelcastInstance() == null);
    if (defaultOne && launch().isPresent()) {
      quietByDefault();
      bootstrap.clusterManager(this);
      // the launcher's node gets the job's progress too (rmarun's and Rma.run's get it from ClusterSupport)
      io.vertx.core.transport.Transport polling = bootstrap.transport() == null
          ? dev.vertxrma.impl.transport.PollingTransport.of(new TransportOptions().getProgress()) : null;
      if (polling != null) {
        bootstrap.transport(polling.implementation());
      }
    }
  }

  /** The loggers {@link #quietByDefault} set (java.util.logging keeps its loggers weakly). */
  private static final List<java.util.logging.Logger> QUIETED = new ArrayList<>();

  /**
   * A launcher's JVM without a logging configuration of the user's logs what {@code bin/rmarun}'s
   * do (conf/logging.properties): Hazelcast's severe errors only, not its ~300 INFO lines per JVM
   * and its CP-subsystem warning, and not the event bus's "Discarding message since the consumer
   * is not registered" that the startup handshake's greetings cause. A logging configuration of
   * the user's ({@code -Djava.util.logging.config.file} or {@code .class}) is left as it is.
   */
  static void quietByDefault() {
    if (System.getProperty("java.util.logging.config.file") != null
        || System.getProperty("java.util.logging.config.class") != null) {
      return;
    }
    synchronized (QUIETED) {
      for (String name : new String[] {"com.hazelcast", "io.vertx.core.eventbus.impl.MessageConsumerImpl"}) {
        java.util.logging.Logger l = java.util.logging.Logger.getLogger(name);
        if (l.getLevel() == null) {
          l.setLevel(java.util.logging.Level.SEVERE);
          QUIETED.add(l);
        }
      }
    }
  }

  @Override
  public Config loadConfig() {
    Launch l = launch().orElseThrow();
    ClusterOptions cluster = new ClusterOptions();
    // -Drma.host wins; the launcher's -cluster-host takes the place of the default
    if (l.clusterHost() != null && cluster.getHost().equals(ClusterOptions.DEFAULT_HOST)) {
      cluster.setHost(l.clusterHost());
    }
    return ClusterSupport.clusterConfig(cluster).setClusterName(l.job());
  }

  private static Optional<Launch> launch() {
    Optional<Launch> l = launch;
    if (l == null) {
      List<String> argv = ProcessHandle.current().info().arguments().map(List::of).orElse(null);
      String command = System.getProperty("sun.java.command", "");
      l = Optional.ofNullable(parse(argv, command));
      launch = l;
    }
    return l;
  }

  /**
   * The launch described by this JVM's arguments {@code argv} (without the executable; {@code null}
   * if unknown) and {@code command} (the main class or jar and its arguments, as the JVM reports
   * it), or {@code null} when it is not a Vert.x launcher running a {@code RankVerticle}.
   */
  static Launch parse(List<String> argv, String command) {
    String[] words = command.trim().split("\\s+");
    String main = words[0];
    if (main.isEmpty()) {
      return null;
    }
    boolean jar = main.endsWith(".jar");
    String mainClass = jar ? manifestMainClass(main) : main;
    if (!APPLICATION.equals(mainClass) && !LEGACY.equals(mainClass)) {
      return null;
    }
    List<String> args = new ArrayList<>();
    int at = -1;
    if (argv != null) {
      for (int i = 0; i < argv.size() && at < 0; i++) {
        String prev = i == 0 ? "" : argv.get(i - 1);
        if (argv.get(i).equals(main) && (jar ? prev.equals("-jar") : !isClassPathFlag(prev))) {
          at = i;
        }
      }
    }
    if (at >= 0) {
      args.addAll(argv.subList(at + 1, argv.size()));
    } else {
      args.addAll(List.of(words).subList(1, words.length));
    }
    if (!namesRankVerticle(args)) {
      return null;
    }
    String conf = value(args, "conf");
    JsonObject config = new JsonObject();
    if (conf != null) {
      try {
        config = conf.trim().startsWith("{") ? new JsonObject(conf)
            : new JsonObject(Files.readString(Path.of(conf), StandardCharsets.UTF_8));
      } catch (RuntimeException | IOException e) {
        // the launcher reports a bad -conf itself; the cluster then has the default job's name
      }
    }
    return new Launch(config.getString("job", "rma"), value(args, "cluster-host"));
  }

  private static boolean isClassPathFlag(String arg) {
    return arg.equals("-cp") || arg.equals("-classpath") || arg.equals("--class-path");
  }

  /** The value of option {@code -name} / {@code --name} ({@code -name V} or {@code -name=V}), or null. */
  private static String value(List<String> args, String name) {
    for (int i = 0; i < args.size(); i++) {
      String a = args.get(i);
      for (String dash : new String[] {"-", "--"}) {
        if (a.equals(dash + name) && i + 1 < args.size()) {
          return args.get(i + 1);
        }
        if (a.startsWith(dash + name + "=")) {
          return a.substring(dash.length() + name.length() + 1);
        }
      }
    }
    return null;
  }

  private static boolean namesRankVerticle(List<String> args) {
    for (String a : args) {
      if (a.startsWith("-") || !a.matches("[\\p{L}_$][\\p{L}\\p{N}_$]*(\\.[\\p{L}_$][\\p{L}\\p{N}_$]*)+")) {
        continue;
      }
      try {
        Class<?> c = Class.forName(a, false, LauncherClusterManager.class.getClassLoader());
        if (RankVerticle.class.isAssignableFrom(c)) {
          return true;
        }
      } catch (ClassNotFoundException | LinkageError e) {
        // not a class: an option's value
      }
    }
    return false;
  }

  private static String manifestMainClass(String jar) {
    try (JarFile f = new JarFile(jar)) {
      return f.getManifest() == null ? null : f.getManifest().getMainAttributes().getValue("Main-Class");
    } catch (IOException e) {
      return null;
    }
  }
}
