package dev.vertxrma.impl.launch;

import dev.vertxrma.impl.runtime.ClusterSupport;
import java.io.IOException;
import java.net.DatagramSocket;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * Where a JVM started by a process manager ({@link ProcessManagerRun}) binds and whom it joins:
 * its address ({@link ClusterSupport#HOST}) and the cluster's members ({@link ClusterSupport#MEMBERS}),
 * for a job that spans hosts (a job on one host keeps the loopback defaults), and the ports of the
 * processes of one host.
 *
 * @param host this JVM's address
 * @param members the job's members, comma separated
 */
record ManagedNetwork(String host, String members) {

  private static final String[] PORTS = {ClusterSupport.CLUSTER_PORT, ClusterSupport.BUS_PORT, ClusterSupport.DATA_PORT};

  /** The network of a host list ({@code --host}, {@code --hostfile}): its addresses, of which one is this machine's. */
  static ManagedNetwork ofHosts(List<String> addresses) throws IOException {
    return new ManagedNetwork(localAmong(addresses, "--host/--hostfile"), String.join(",", new LinkedHashSet<>(addresses)));
  }

  /** The network of a Slurm step on {@code nodes} (two or more): their addresses; this one's is {@code nodeName}'s. */
  static ManagedNetwork ofNodes(List<String> nodes, String nodeName) throws IOException {
    List<String> addresses = new ArrayList<>();
    for (String node : nodes) {
      InetAddress n = resolve(node);
      if (n.isLoopbackAddress()) {
        throw new IOException("node " + node + " of the job resolves to " + n.getHostAddress() + " here, a loopback "
            + "address, while the job runs on " + nodes.size() + " nodes: give the nodes' addresses with --host");
      }
      addresses.add(n.getHostAddress());
    }
    String host = nodeName != null && nodes.contains(nodeName) ? resolve(nodeName).getHostAddress()
        : localAmong(addresses, "the node list");
    return new ManagedNetwork(host, String.join(",", new LinkedHashSet<>(addresses)));
  }

  private static InetAddress resolve(String name) throws UnknownHostException {
    try {
      return InetAddress.getByName(name);
    } catch (UnknownHostException e) {
      throw new UnknownHostException("unknown host '" + name + "' (give the hosts' addresses with --host)");
    }
  }

  /** The first of {@code addresses} that is one of this machine's. */
  private static String localAmong(List<String> addresses, String source) throws IOException {
    for (String address : addresses) {
      try {
        InetAddress a = InetAddress.getByName(address);
        if (a.isLoopbackAddress() || NetworkInterface.getByInetAddress(a) != null) {
          return address;
        }
      } catch (UnknownHostException | SocketException e) {
        // not this machine's
      }
    }
    throw new IOException("none of the addresses " + addresses + " (from " + source + ") is this machine's");
  }

  /**
   * This host's address in a job over hosts under Hydra, the first of: {@code -Drma.host}; the
   * name Hydra knows this host by ({@code MPIR_CVAR_CH3_INTERFACE_HOSTNAME}) unless it resolves to
   * loopback; the interface {@code mpiexec -iface} names ({@code MPIR_CVAR_NEMESIS_TCP_NETWORK_IFACE}) if
   * this host has it;
   * the way to {@code towards} (rank 0's address; null for rank 0 itself); this machine's only
   * non-loopback IPv4 address.
   *
   * @throws IOException when none of them tells (the message says what to give)
   */
  static String hydraAddress(Map<String, String> env, String towards) throws IOException {
    String given = System.getProperty(ClusterSupport.HOST);
    if (given != null && !given.isBlank()) {
      return given.trim();
    }
    String name = env.get("MPIR_CVAR_CH3_INTERFACE_HOSTNAME");
    if (name != null && !name.isBlank()) {
      InetAddress a = resolve(name.trim());
      if (!a.isLoopbackAddress()) {
        return a.getHostAddress();
      }
    }
    String iface = env.get("MPIR_CVAR_NEMESIS_TCP_NETWORK_IFACE");
    if (iface != null && !iface.isBlank()) {
      NetworkInterface ni = NetworkInterface.getByName(iface.trim());
      List<String> own = ni == null ? List.of() : ipv4(ni);
      if (!own.isEmpty()) {
        return own.get(0);
      }
      // mpiexec's own interface, which this host lacks: the ways below
    }
    if (towards != null) {
      try (DatagramSocket probe = new DatagramSocket()) {
        probe.connect(InetAddress.getByName(towards), 9); // the route the kernel would take; nothing is sent
        InetAddress local = probe.getLocalAddress();
        if (local != null && !local.isAnyLocalAddress() && !local.isLoopbackAddress()) {
          return local.getHostAddress();
        }
      } catch (IOException | SecurityException e) {
        // below
      }
    }
    List<String> all = new ArrayList<>();
    for (NetworkInterface ni : Collections.list(NetworkInterface.getNetworkInterfaces())) {
      if (ni.isUp() && !ni.isLoopback()) {
        all.addAll(ipv4(ni));
      }
    }
    if (all.size() == 1) {
      return all.get(0);
    }
    throw new IOException("this job runs on several hosts, and this host's address is not known: "
        + (name != null ? "its name " + name + " resolves to loopback, and " : "") + "it has " + all.size()
        + " addresses " + all + ": give the hosts' addresses with --host or --hostfile, or mpiexec -iface IFACE");
  }

  private static List<String> ipv4(NetworkInterface ni) {
    List<String> out = new ArrayList<>();
    for (InetAddress a : Collections.list(ni.getInetAddresses())) {
      if (a instanceof Inet4Address && !a.isLoopbackAddress() && !a.isLinkLocalAddress()) {
        out.add(a.getHostAddress());
      }
    }
    return out;
  }

  /**
   * Sets {@code props}' network properties for local process {@code local} of its host:
   * {@code net}'s host and members where not set already ({@code RMA_JAVA_OPTS} wins; nothing
   * when {@code net} is null, a job on one host), and the fixed ports moved ({@link #movedPorts}).
   */
  static void apply(ManagedNetwork net, Properties props, int local) {
    if (net != null) {
      props.putIfAbsent(ClusterSupport.HOST, net.host);
      props.putIfAbsent(ClusterSupport.MEMBERS, net.members);
    }
    props.putAll(movedPorts(props, local));
  }

  /**
   * The ports of local process {@code local}: each of {@value ClusterSupport#CLUSTER_PORT},
   * {@value ClusterSupport#BUS_PORT}, {@value ClusterSupport#DATA_PORT} fixed in {@code props}
   * (a number other than 0) plus {@code local} times the span of the fixed ports (5701, 5702, 5703:
   * process 1 has 5704, 5705, 5706), so that the blocks of the processes of a host never overlap.
   * Free ports (the default) never collide and stay as they are.
   *
   * @throws RmaRunCommand.UsageError when a moved port passes 65535
   */
  static Map<String, String> movedPorts(Properties props, int local) {
    Map<String, Integer> fixed = new LinkedHashMap<>();
    for (String p : PORTS) {
      try {
        int port = Integer.parseInt(props.getProperty(p, "0").trim());
        if (port > 0) {
          fixed.put(p, port);
        }
      } catch (NumberFormatException e) {
        // ClusterSupport names it when the JVM uses it
      }
    }
    Map<String, String> moved = new LinkedHashMap<>();
    if (local == 0 || fixed.isEmpty()) {
      return moved;
    }
    int span = fixed.values().stream().mapToInt(Integer::intValue).max().getAsInt()
        - fixed.values().stream().mapToInt(Integer::intValue).min().getAsInt() + 1;
    for (Map.Entry<String, Integer> e : fixed.entrySet()) {
      long port = e.getValue() + (long) local * span;
      if (port > 65535) {
        throw new RmaRunCommand.UsageError("-D" + e.getKey() + "=" + e.getValue() + " moved for local process " + local
            + " of this host is " + port + ", past 65535");
      }
      moved.put(e.getKey(), String.valueOf(port));
    }
    return moved;
  }
}
