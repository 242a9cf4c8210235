package dev.vertxrma.impl.memory;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalLong;

/**
 * How much memory this host can still give a process, as Linux tells it in {@code /proc/meminfo}:
 * {@code MemAvailable} (free memory plus what the kernel can reclaim without swapping) plus
 * {@code SwapFree}. A window larger than that can be reserved (the kernel overcommits) but not
 * zeroed: touching its pages would wake the kernel's out-of-memory killer, which kills a JVM of
 * the job instead of failing the call. Reads a file: never on an event loop.
 */
public final class HostMemory {

  private static final Path MEMINFO = Path.of("/proc/meminfo");

  private HostMemory() {
  }

  /** Bytes of memory available to a new allocation, or empty where {@code /proc/meminfo} cannot be read. */
  public static OptionalLong available() {
    List<String> lines;
    try {
      lines = Files.readAllLines(MEMINFO, StandardCharsets.US_ASCII);
    } catch (IOException | RuntimeException e) {
      return OptionalLong.empty();
    }
    long avail = field(lines, "MemAvailable:");
    long swap = field(lines, "SwapFree:");
    return avail < 0 ? OptionalLong.empty() : OptionalLong.of(avail + Math.max(swap, 0));
  }

  /** The value of a {@code /proc/meminfo} field in bytes (the file counts kB), or -1 if absent. */
  static long field(List<String> lines, String name) {
    for (String l : lines) {
      if (l.startsWith(name)) {
        String[] parts = l.substring(name.length()).trim().split("\\s+");
        try {
          long v = Long.parseLong(parts[0]);
          return parts.length > 1 && parts[1].equalsIgnoreCase("kB") ? v * 1024 : v;
        } catch (NumberFormatException e) {
          return -1;
        }
      }
    }
    return -1;
  }
}
