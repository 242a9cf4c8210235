package dev.vertxrma.impl.launch;

import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The hosts of a job over hosts ({@code rmarun --host} or {@code --hostfile}): one entry per JVM,
 * in rank order, each resolved here to the address its JVM binds and advertises, checked before
 * any JVM starts.
 */
final class HostList {

  /** A host name as ssh and the templates take it: no blank, no shell or option syntax. */
  private static final Pattern HOST_NAME = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9_.@%:\\[\\]-]*");

  private HostList() {
  }

  /**
   * One entry of the host list: {@code name} is what the launch command gets ({@code {host}}),
   * {@code address} the IP address the JVM binds and advertises.
   */
  record Host(String name, String address) {
  }

  /**
   * The hosts of {@code --host} values {@code host} or of the file {@code hostfile} (one of them is
   * given), for a job of {@code np} ranks.
   *
   * @throws RmaRunCommand.UsageError for an entry that is empty, not a host name or unknown, more
   *     hosts than ranks, or a loopback address among network ones
   */
  static List<Host> read(List<String> host, Path hostfile, int np) {
    String option = hostfile != null ? "--hostfile" : "--host";
    List<String[]> entries = hostfile != null ? fileEntries(hostfile) : optionEntries(host);
    if (entries.size() > np) {
      throw new RmaRunCommand.UsageError(option + " lists " + entries.size() + " hosts for " + np + " ranks: a host's "
          + "JVM needs at least one rank");
    }
    List<Host> list = new ArrayList<>();
    for (String[] e : entries) {
      String name = e[0];
      if (!HOST_NAME.matcher(name).matches()) {
        throw new RmaRunCommand.UsageError(option + ": '" + name + "' is not a host name");
      }
      String target = e[1] != null ? e[1] : name.substring(name.lastIndexOf('@') + 1);
      if (target.startsWith("[") && target.endsWith("]")) {
        target = target.substring(1, target.length() - 1);
      }
      InetAddress a;
      try {
        a = InetAddress.getByName(target);
      } catch (UnknownHostException | SecurityException x) {
        throw new RmaRunCommand.UsageError(option + ": unknown host '" + target + "' (rmarun resolves each host to the "
            + "address its JVM binds; give an address" + (hostfile != null ? ", or HOST address=ADDRESS" : "") + ")");
      }
      list.add(new Host(name, a.getHostAddress()));
    }
    for (Host h : list) {
      if (isLoopback(h.address()) && list.stream().anyMatch(o -> !isLoopback(o.address()))) {
        throw new RmaRunCommand.UsageError(option + ": " + h.name() + " resolves to " + h.address() + " here, a "
            + "loopback address, while other hosts of the job do not: give its network address"
            + (hostfile != null ? " (HOST address=ADDRESS)" : ""));
      }
    }
    return List.copyOf(list);
  }

  private static List<String[]> optionEntries(List<String> host) {
    List<String[]> entries = new ArrayList<>();
    for (String value : host) {
      for (String h : value.split(",", -1)) {
        if (h.isBlank()) {
          throw new RmaRunCommand.UsageError("--host '" + value + "' has an empty entry");
        }
        entries.add(new String[] {h.trim(), null});
      }
    }
    return entries;
  }

  private static List<String[]> fileEntries(Path hostfile) {
    if (!Files.isRegularFile(hostfile)) {
      throw new RmaRunCommand.UsageError("--hostfile " + hostfile + " does not exist");
    }
    List<String> lines;
    try {
      lines = Files.readAllLines(hostfile);
    } catch (IOException e) {
      throw new RmaRunCommand.UsageError("--hostfile " + hostfile + " cannot be read: " + e.getMessage());
    }
    List<String[]> entries = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i);
      int hash = line.indexOf('#');
      String[] words = (hash < 0 ? line : line.substring(0, hash)).trim().split("\\s+");
      if (words[0].isEmpty()) {
        continue;
      }
      String address = null;
      for (int w = 1; w < words.length; w++) {
        if (words[w].startsWith("address=") && address == null && words[w].length() > "address=".length()) {
          address = words[w].substring("address=".length());
        } else {
          throw new RmaRunCommand.UsageError("--hostfile " + hostfile + " line " + (i + 1) + ": '" + words[w]
              + "' is not understood (a line is HOST [address=ADDRESS], one JVM per line)");
        }
      }
      entries.add(new String[] {words[0], address});
    }
    if (entries.isEmpty()) {
      throw new RmaRunCommand.UsageError("--hostfile " + hostfile + " lists no host");
    }
    return entries;
  }

  /** Whether {@code address} is a loopback address (false for one that does not resolve). */
  static boolean isLoopback(String address) {
    try {
      return InetAddress.getByName(address).isLoopbackAddress();
    } catch (UnknownHostException e) {
      return false;
    }
  }

  /** The addresses of {@code hosts}, each once, in order: the cluster's members ({@code -Drma.members}). */
  static String members(List<Host> hosts) {
    return String.join(",", new LinkedHashSet<>(hosts.stream().map(Host::address).toList()));
  }
}
