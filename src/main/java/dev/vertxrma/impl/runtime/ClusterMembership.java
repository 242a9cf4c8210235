package dev.vertxrma.impl.runtime;

import com.hazelcast.cluster.MembershipAdapter;
import com.hazelcast.cluster.MembershipEvent;
import io.vertx.core.Vertx;
import io.vertx.core.internal.VertxInternal;
import io.vertx.core.spi.cluster.ClusterManager;
import io.vertx.spi.cluster.hazelcast.HazelcastClusterManager;
import java.util.UUID;
import java.util.function.Consumer;

/**
 * Tells a job when a cluster node leaves, through a Hazelcast membership listener of its own
 * (Vert.x's single node-listener slot stays free for Vert.x HA). A request to a dead node would
 * only fail at its send timeout; this fails the job's pending work within about a second.
 */
final class ClusterMembership {

  /** The member attribute in which the Vert.x Hazelcast cluster manager keeps the Vert.x node id. */
  private static final String VERTX_NODE_ID = "__vertx.nodeId";

  private final HazelcastClusterManager manager;
  private final UUID registration;

  private ClusterMembership(HazelcastClusterManager manager, UUID registration) {
    this.manager = manager;
    this.registration = registration;
  }

  /** Watches the cluster of {@code vertx}; {@code null} if it is not clustered with Hazelcast. */
  static ClusterMembership watch(Vertx vertx, Consumer<String> nodeLeft) {
    if (!vertx.isClustered()) {
      return null;
    }
    ClusterManager cm = ((VertxInternal) vertx).clusterManager();
    if (!(cm instanceof HazelcastClusterManager)) {
      return null;
    }
    HazelcastClusterManager hz = (HazelcastClusterManager) cm;
    UUID id = hz.getHazelcastInstance().getCluster().addMembershipListener(new MembershipAdapter() {
      @Override
      public void memberRemoved(MembershipEvent e) {
        String node = e.getMember().getAttribute(VERTX_NODE_ID);
        if (node != null) {
          nodeLeft.accept(node);
        }
      }
    });
    return new ClusterMembership(hz, id);
  }

  /** This node's id, as the other nodes' listeners will report it. */
  String localNodeId() {
    return manager.getNodeId();
  }

  void close() {
    try {
      manager.getHazelcastInstance().getCluster().removeMembershipListener(registration);
    } catch (RuntimeException e) {
      // the instance is already shutting down
    }
  }
}
