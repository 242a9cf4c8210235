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

/**
 * The cluster manager that takes the place of vertx-hazelcast's default wherever that default
 * would fall back to Hazelcast's built-in configuration (multicast discovery, cluster {@code dev},
 * which joins every such JVM of a network into one cluster): in a JVM with no cluster manager of
 * its own and no {@code cluster.xml} on its class path, whatever its main class (a Vert.x
 * launcher, {@code java -jar vertx-rma-all.jar CLASS -cluster ...} or
 * {@code io.vertx.core.Launcher run CLASS -cluster ...}, or an application's own main). The
 * decision is made from that configuration alone, never from the JVM's command line. Hazelcast is
 * then configured as {@link ClusterSupport#clusterConfig(ClusterOptions)} says for this JVM's
 * cluster options (TCP-IP, multicast off, on {@code rma.host}, else the launcher's
 * {@code -cluster-host}, else 127.0.0.1), and the cluster is named for the job: the {@code job} of
 * the launcher's {@code -conf} when the JVM's arguments give one, else a name of its own
 * ({@value #UNNAMED_PREFIX} and a random suffix) that no other JVM shares, so two jobs never
 * merge. A clustered launcher job without a name is refused when its verticles deploy
 * ({@code LauncherJob}): its JVMs could not find each other.
 *
 * <p>The launchers build their Vert.x before any verticle runs, and take their cluster manager from
 * the {@code VertxServiceProvider} services. An application's own cluster manager, or its own
 * {@code cluster.xml}, is left as it is. A JVM whose arguments name a {@code RankVerticle} class
 * also gets the job's progress (the polling transport) for its one Vert.x instance; its cluster and
 * transport options are this JVM's defaults ({@link ClusterOptions#ClusterOptions()},
 * {@link TransportOptions#TransportOptions()}), resolved here, at that launcher's edge.
 */
public final class LauncherClusterManager extends HazelcastClusterManager {

  /** The start of the name of a cluster whose job has no name: a random suffix follows. */
  public static final String UNNAMED_PREFIX = "rma-unnamed-";

  private static volatile Launch launch;

  /** What the JVM's arguments say: the job's name ({@code null} if none), the {@code -cluster-host}, a {@code RankVerticle}. */
  record Launch(String job, String clusterHost, boolean rankVerticle) {
  }

  /** The cluster's name, once {@link #loadConfig} made the configuration. */
  private volatile String clusterName;

  /** For the {@code VertxServiceProvider} services. */
  public LauncherClusterManager() {
  }

  @Override
  public void init(VertxBootstrap bootstrap) {
    ClusterManager current = bootstrap.clusterManager();
    boolean defaultOne = current == null
        || (current.getClass() == HazelcastClusterManager.class && ((HazelcastClusterManager) current).getConfig() == null
            && ((HazelcastClusterManager) current).getHazelcastInstance() == null);
    if (!defaultOne || ownConfigOnClassPath()) {
      return;
    }
    bootstrap.clusterManager(this);
    if (launch().rankVerticle() && bootstrap.transport() == null) {
      // the launcher's node gets the job's progress too (rmarun's and Rma.run's get it from ClusterSupport)
      bootstrap.transport(dev.vertxrma.impl.transport.PollingTransport.of(new TransportOptions().getProgress())
          .implementation());
    }
  }

  /**
   * Whether the class path has a {@code cluster.xml}, which vertx-hazelcast's default would read
   * (an application's own configuration: it stays the application's).
   */
  private static boolean ownConfigOnClassPath() {
    ClassLoader loader = Thread.currentThread().getContextClassLoader();
    if (loader == null) {
      loader = LauncherClusterManager.class.getClassLoader();
    }
    return loader.getResource("cluster.xml") != null;
  }

  /**
   * The name of the cluster this manager formed or joined: the job's, or {@value #UNNAMED_PREFIX}
   * and a random suffix; {@code null} before it was configured.
   */
  public String clusterName() {
    return clusterName;
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
    Launch l = launch();
    quietByDefault();
    ClusterOptions cluster = new ClusterOptions();
    // -Drma.host wins; the launcher's -cluster-host takes the place of the default
    if (l.clusterHost() != null && cluster.getHost().equals(ClusterOptions.DEFAULT_HOST)) {
      cluster.setHost(l.clusterHost());
    }
    String name = l.job() != null ? l.job() : UNNAMED_PREFIX + java.util.UUID.randomUUID();
    Config config = ClusterSupport.clusterConfig(cluster).setClusterName(name);
    clusterName = name;
    return config;
  }

  private static Launch launch() {
    Launch l = launch;
    if (l == null) {
      List<String> argv = ProcessHandle.current().info().arguments().map(List::of).orElse(List.of());
      l = parse(argv);
      launch = l;
    }
    return l;
  }

  /**
   * What this JVM's arguments {@code argv} (without the executable) say: the {@code job} of a
   * {@code -conf} (JSON, or a file of JSON) if one names it, the {@code -cluster-host}, whether a
   * {@code RankVerticle} class is named. Only the job's name and a host are taken from them, never
   * whether to cluster or how.
   */
  static Launch parse(List<String> argv) {
    String conf = value(argv, "conf");
    JsonObject config = new JsonObject();
    if (conf != null) {
      try {
        config = conf.trim().startsWith("{") ? new JsonObject(conf)
            : new JsonObject(Files.readString(Path.of(conf), StandardCharsets.UTF_8));
      } catch (RuntimeException | IOException e) {
        // the launcher reports a bad -conf itself; the cluster then has a name of its own
      }
    }
    Object job = config.getValue("job");
    return new Launch(job instanceof String name && !name.isBlank() ? name : null, value(argv, "cluster-host"),
        namesRankVerticle(argv));
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
}
