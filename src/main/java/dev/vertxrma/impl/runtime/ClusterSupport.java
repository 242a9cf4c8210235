package dev.vertxrma.impl.runtime;

import com.hazelcast.config.Config;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.RmaException;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.spi.cluster.hazelcast.HazelcastClusterManager;
import java.io.File;

/**
 * Creates clustered Vert.x instances for jobs: Hazelcast configured as {@link #clusterConfig()}
 * says, with the cluster name set to the job's so that concurrent jobs never join each other;
 * the event bus bound to {@code -Drma.host} (default 127.0.0.1).
 */
public final class ClusterSupport {

  /** The library's default configuration (loopback only), under a name no application uses. */
  static final String DEFAULT_CONFIG = "dev/vertxrma/cluster.xml";

  private ClusterSupport() {
  }

  /** A new clustered Vert.x node in cluster {@code clusterName}. */
  public static Future<Vertx> clusteredVertx(String clusterName) {
    return clusteredVertx(clusterName, new VertxOptions());
  }

  /**
   * A new clustered Vert.x node in cluster {@code clusterName} with {@code base}'s options (a
   * copy; its event-bus host and port are set as above).
   */
  public static Future<Vertx> clusteredVertx(String clusterName, VertxOptions base) {
    Config config;
    try {
      config = clusterConfig();
    } catch (RmaException e) {
      return Future.failedFuture(e);
    }
    config.setClusterName(clusterName);
    HazelcastClusterManager manager = new HazelcastClusterManager(config);
    String host = System.getProperty("rma.host", "127.0.0.1");
    VertxOptions options = new VertxOptions(base).setPreferNativeTransport(true);
    options.getEventBusOptions().setHost(host).setClusterPublicHost(host).setPort(0);
    return Vertx.builder().with(options).withClusterManager(manager).buildClustered();
  }

  /**
   * The Hazelcast configuration of a job's node, read at each call from the first of: the file
   * {@code -Dvertx.hazelcast.config} names (Vert.x's own property); {@code cluster.xml} in the
   * directory {@code -Drma.conf} names ({@code bin/rmarun} sets it to its {@code conf/}); the
   * library's loopback default. An application's own {@code cluster.xml} on the class path is
   * never read.
   *
   * @throws RmaException {@link ErrorClass#ARG} when the file chosen is missing or malformed
   */
  public static Config clusterConfig() {
    return clusterConfig(System.getProperty("vertx.hazelcast.config"), System.getProperty("rma.conf"), "-Drma.conf");
  }

  /**
   * As {@link #clusterConfig()} with the values of {@code -Dvertx.hazelcast.config} and
   * {@code -Drma.conf} given ({@code null} when unset; {@code dirSource} says where {@code dir}
   * came from, for the error): {@code bin/rmarun} checks the configuration its JVMs will read
   * before it starts them.
   */
  static Config clusterConfig(String named, String dir, String dirSource) {
    if (named != null && !named.isBlank()) {
      return load(new File(named.startsWith("file:") ? named.substring(5) : named), "-Dvertx.hazelcast.config");
    }
    if (dir != null && !dir.isBlank() && new File(dir, "cluster.xml").isFile()) {
      return load(new File(dir, "cluster.xml"), dirSource);
    }
    try {
      return Config.loadFromClasspath(ClusterSupport.class.getClassLoader(), DEFAULT_CONFIG);
    } catch (RuntimeException e) {
      throw new RmaException(ErrorClass.INTERN, "the library's default cluster configuration " + DEFAULT_CONFIG
          + " cannot be read: " + e.getMessage(), e);
    }
  }

  private static Config load(File file, String source) {
    if (!file.isFile()) {
      throw RmaException.of(ErrorClass.ARG, "cluster configuration %s (from %s) does not exist", file, source);
    }
    try {
      return Config.loadFromFile(file);
    } catch (Exception e) {
      throw new RmaException(ErrorClass.ARG, "cluster configuration " + file + " (from " + source
          + ") is not a valid Hazelcast configuration: " + e.getMessage(), e);
    }
  }
}
