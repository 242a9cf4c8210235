package dev.vertxrma.impl.runtime;

import com.hazelcast.config.Config;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.spi.cluster.hazelcast.ConfigUtil;
import io.vertx.spi.cluster.hazelcast.HazelcastClusterManager;

/**
 * Creates clustered Vert.x instances for jobs: Hazelcast configured from {@code cluster.xml}
 * (loopback TCP-IP join by default, see {@code conf/cluster.xml}) with the cluster name set to
 * the job's, so concurrent jobs never join each other; the event bus bound to
 * {@code -Drma.host} (default 127.0.0.1).
 */
public final class ClusterSupport {

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
    Config config = ConfigUtil.loadConfig();
    config.setClusterName(clusterName);
    HazelcastClusterManager manager = new HazelcastClusterManager(config);
    String host = System.getProperty("rma.host", "127.0.0.1");
    VertxOptions options = new VertxOptions(base).setPreferNativeTransport(true);
    options.getEventBusOptions().setHost(host).setClusterPublicHost(host).setPort(0);
    return Vertx.builder().with(options).withClusterManager(manager).buildClustered();
  }
}
