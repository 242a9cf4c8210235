package dev.vertxrma.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * "Hosts" on this machine: network namespaces ({@code ip netns}) joined by a bridge in the root
 * namespace, each with an address of its own in a fresh {@code 10.X.Y.0/24} and its own loopback,
 * so that a job whose ranks live in them crosses a network (nothing bound to 127.0.0.1 is seen by
 * the others). The names are unique per run ({@code rma-ID-K}, bridge {@code rmab-ID}); the root
 * namespace's side is {@code 10.X.Y.1}, namespace K has {@code 10.X.Y.(K+2)}.
 *
 * <p>Each host also has a {@code /dev/shm} of its own, as separate machines do: a command runs
 * there through {@link #runner()}, which enters the network namespace with {@code ip netns exec}
 * (that makes a mount namespace for the command) and bind-mounts the host's directory
 * {@link #shm(int)} (under this machine's {@code /dev/shm}) on {@code /dev/shm}. Every command of
 * one host sees the same directory, and no other host sees it, so the on-node path between JVMs
 * (window memory in the user's segment directory under {@code /dev/shm}) joins only JVMs of one
 * host and operations between hosts cross the network.
 *
 * <p>Needs root (or CAP_NET_ADMIN and CAP_SYS_ADMIN) and {@code ip}: {@link #create} says why it
 * cannot be done. {@link #close} kills what runs in them and removes them; it also runs at JVM
 * exit if a test run is cut short.
 */
public final class NetNamespaces implements AutoCloseable {

  /** Why the namespaces could not be made. */
  public static final class Unavailable extends Exception {
    private static final long serialVersionUID = 1L;

    Unavailable(String message) {
      super(message);
    }
  }

  private final String id;
  private final String prefix;
  private final List<String> names = new ArrayList<>();
  private final List<String> made = new ArrayList<>();
  private boolean bridge;
  /** The hosts' {@code /dev/shm} directories are in it. */
  private Path files;
  /** The {@link #runner()} script (not in {@code /dev/shm}: it may be mounted noexec, as Docker does). */
  private Path runner;
  private final Thread atExit = new Thread(this::removeQuietly, "netns-cleanup");

  private NetNamespaces(String id, String prefix) {
    this.id = id;
    this.prefix = prefix;
  }

  /** {@code count} namespaces on a new bridge. */
  public static NetNamespaces create(int count) throws Unavailable {
    if (!System.getProperty("os.name", "").toLowerCase(java.util.Locale.ROOT).contains("linux")) {
      throw new Unavailable("network namespaces are Linux's");
    }
    try {
      Result v = run("ip", "-V");
      if (v.status != 0) {
        throw new Unavailable("'ip -V' failed: " + v.output.trim());
      }
    } catch (IOException e) {
      throw new Unavailable("no 'ip' command (iproute2): " + e.getMessage());
    }
    String id = String.format("%05x", ThreadLocalRandom.current().nextInt(1 << 20));
    NetNamespaces n = new NetNamespaces(id, freeSubnet());
    Runtime.getRuntime().addShutdownHook(n.atExit);
    try {
      String br = n.bridgeName();
      n.must("ip", "link", "add", br, "type", "bridge");
      n.bridge = true;
      // bridged traffic between the namespaces does not go through the host's iptables (a
      // firewall's FORWARD policy would drop it where br_netfilter is loaded); harmless if unsupported
      try {
        run("ip", "link", "set", br, "type", "bridge", "nf_call_iptables", "0");
      } catch (IOException e) {
        // an older ip: the firewall decides
      }
      n.makeRunner();
      n.must("ip", "addr", "add", n.prefix + ".1/24", "dev", br);
      n.must("ip", "link", "set", br, "up");
      for (int k = 0; k < count; k++) {
        String ns = "rma-" + id + "-" + k;
        String veth = "rmav-" + id + "-" + k;
        n.must("ip", "netns", "add", ns);
        n.made.add(ns);
        n.must("mkdir", "-m", "1777", n.files.resolve(ns).toString());
        n.must("ip", "link", "add", veth, "type", "veth", "peer", "name", "eth0", "netns", ns);
        n.must("ip", "link", "set", veth, "master", br, "up");
        n.must("ip", "-n", ns, "addr", "add", n.address(k) + "/24", "dev", "eth0");
        n.must("ip", "-n", ns, "link", "set", "eth0", "up");
        n.must("ip", "-n", ns, "link", "set", "lo", "up");
        n.names.add(ns);
      }
      return n;
    } catch (Unavailable | RuntimeException e) {
      n.close();
      throw e;
    }
  }

  /**
   * Makes the directory of the hosts' {@code /dev/shm}s, on this machine's {@code /dev/shm} (a
   * tmpfs, as the hosts' own would be), and the {@link #runner()} script.
   */
  private void makeRunner() throws Unavailable {
    Path shm = Paths.get("/dev/shm");
    if (!Files.isDirectory(shm)) {
      throw new Unavailable("no /dev/shm to give each host a directory of its own in");
    }
    files = shm.resolve("rma-hosts-" + id);
    try {
      Files.createDirectory(files, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
      runner = Files.createTempFile("rma-in-host-", ".sh",
          PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
      Files.writeString(runner, """
          #!/bin/sh
          # in-host NAME COMMAND...: run COMMAND "on" host NAME: in network namespace NAME (ip netns exec
          # makes a mount namespace for it), with NAME's own directory mounted on /dev/shm
          name="$1"
          shift
          exec ip netns exec "$name" sh -c 'mount --bind "$0" /dev/shm && exec "$@"' '%s/'"$name" "$@"
          """.formatted(files));
    } catch (IOException e) {
      throw new Unavailable("cannot make the hosts' /dev/shm directories in " + files + ": " + e.getMessage());
    }
  }

  /** A {@code 10.X.Y} prefix no interface or route of this machine uses. */
  private static String freeSubnet() throws Unavailable {
    String used;
    try {
      used = run("ip", "-4", "-o", "addr").output + run("ip", "-4", "route").output;
    } catch (IOException e) {
      throw new Unavailable("cannot list addresses: " + e.getMessage());
    }
    for (int attempt = 0; attempt < 50; attempt++) {
      String p = "10." + ThreadLocalRandom.current().nextInt(200, 255) + "." + ThreadLocalRandom.current().nextInt(256);
      if (!used.contains(p + ".") && !used.contains(p.substring(0, p.lastIndexOf('.')) + ".0.0/16")) {
        return p;
      }
    }
    throw new Unavailable("no free 10.X.Y.0/24 found");
  }

  /** The bridge's name (an interface of the root namespace, at {@link #rootAddress()}). */
  public String bridge() {
    return bridgeName();
  }

  /** Namespace {@code k}'s name. */
  public String name(int k) {
    return names.get(k);
  }

  /** Namespace {@code k}'s address. */
  public String address(int k) {
    return prefix + "." + (k + 2);
  }

  /** The root namespace's address on the bridge. */
  public String rootAddress() {
    return prefix + ".1";
  }

  /** How many namespaces there are. */
  public int size() {
    return names.size();
  }

  private String bridgeName() {
    return "rmab-" + id;
  }

  /**
   * The command that runs a command on a host: {@code RUNNER NAME COMMAND...} runs COMMAND in
   * namespace NAME with that host's {@code /dev/shm} ({@link #shm(int)}). For shell scripts and
   * launch templates; {@link #exec} makes such a command line.
   */
  public String runner() {
    return runner.toString();
  }

  /**
   * Host {@code k}'s {@code /dev/shm} as this machine sees it (empty but for what the host's
   * processes make there, e.g. the user's segment directory {@code vertx-rma-USER}).
   */
  public Path shm(int k) {
    return files.resolve(name(k));
  }

  /** {@code cmd} run on host {@code k}: in its namespace, with its {@code /dev/shm} ({@link #runner()}). */
  public List<String> exec(int k, List<String> cmd) {
    List<String> c = new ArrayList<>(List.of(runner(), name(k)));
    c.addAll(cmd);
    return c;
  }

  /** The processes running in namespace {@code k} ({@code ip netns pids}). */
  public List<Long> pids(int k) throws IOException {
    List<Long> pids = new ArrayList<>();
    for (String pid : run("ip", "netns", "pids", name(k)).output.split("\\s+")) {
      if (pid.matches("\\d+")) {
        pids.add(Long.parseLong(pid));
      }
    }
    return pids;
  }

  private void must(String... cmd) throws Unavailable {
    Result r;
    try {
      r = run(cmd);
    } catch (IOException e) {
      throw new Unavailable(String.join(" ", cmd) + ": " + e.getMessage());
    }
    if (r.status != 0) {
      throw new Unavailable("'" + String.join(" ", cmd) + "' failed: " + r.output.trim());
    }
  }

  private record Result(int status, String output) {
  }

  private static Result run(String... cmd) throws IOException {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    try {
      byte[] out = p.getInputStream().readAllBytes();
      if (!p.waitFor(30, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        return new Result(-1, "timed out");
      }
      return new Result(p.exitValue(), new String(out, StandardCharsets.UTF_8));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      p.destroyForcibly();
      return new Result(-1, "interrupted");
    }
  }

  /** Kills every process in the namespaces (they are the test's) and removes them and the bridge. */
  @Override
  public void close() {
    removeQuietly();
    try {
      Runtime.getRuntime().removeShutdownHook(atExit);
    } catch (IllegalStateException shuttingDown) {
      // running now
    }
  }

  private synchronized void removeQuietly() {
    for (String ns : made) {
      try {
        for (String pid : run("ip", "netns", "pids", ns).output.split("\\s+")) {
          if (pid.matches("\\d+")) {
            ProcessHandle.of(Long.parseLong(pid)).ifPresent(ProcessHandle::destroyForcibly);
          }
        }
        run("ip", "netns", "del", ns);
      } catch (IOException e) {
        // best effort
      }
    }
    made.clear();
    if (bridge) {
      try {
        run("ip", "link", "del", bridgeName());
      } catch (IOException e) {
        // best effort
      }
      bridge = false;
    }
    if (files != null) {
      try {
        run("rm", "-rf", "--one-file-system", files.toString());
      } catch (IOException e) {
        // best effort
      }
      files = null;
    }
    if (runner != null) {
      try {
        Files.deleteIfExists(runner);
      } catch (IOException e) {
        // best effort
      }
      runner = null;
    }
  }
}
