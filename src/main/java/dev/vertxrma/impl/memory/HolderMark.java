package dev.vertxrma.impl.memory;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * The value a process writes into a word of shared memory that it takes (a window's owner word,
 * ARCHITECTURE decision 20): who holds it, so that another process of the host can tell a holder
 * that is working from one that is gone, as Aeron's mark files record a pid. 64 bits:
 *
 * <pre>
 *   63..58  magic 0b101101: a word holding anything else was written by no holder (garbage)
 *   57..36  the holder's pid (22 bits: Linux's PID_MAX_LIMIT), 0 if it does not fit
 *   35..16  a hash of the holder's pid namespace (20 bits; 0 where there is none)
 *   15..0   a hash of the holder's start time (the kernel's start ticks; 0 if unknown)
 * </pre>
 *
 * <p>The start time is the incarnation: a pid the kernel gave to a new process after the holder
 * died has another start time, so a recycled pid is not mistaken for the holder. The namespace
 * keeps a process of one pid namespace from judging a holder of another (JVMs of two containers
 * may share a {@code /dev/shm}): the holder's pid means nothing there, so such a holder is
 * {@link Liveness#UNKNOWN}, never dead. A hash that collides only makes a dead holder look alive
 * (start time: the waiter keeps waiting until the holder's ranks are declared dead) or, for the
 * namespace, one chance in 2^20 per pair of namespaces that share a segment directory.
 *
 * <p>Every thread of this process writes the same mark ({@link #SELF}): the mark says which
 * process holds a word, not which thread (a word's exclusion is its compare-and-set).
 */
public final class HolderMark {

  /** How a holder's process looks from here. */
  public enum Liveness {
    /** It runs (or is stopped): the word is held. */
    ALIVE,
    /** Its process is gone, or its pid belongs to a later process: the word may be taken back. */
    DEAD,
    /** It cannot be judged from here (another pid namespace, no pid, no {@code /proc}). */
    UNKNOWN
  }

  private static final System.Logger LOG = System.getLogger(HolderMark.class.getName());
  private static final long MAGIC = 0b101101L;
  private static final int PID_BITS = 22;
  private static final int NS_BITS = 20;
  private static final int START_BITS = 16;
  private static final Path PROC = Path.of("/proc");
  /** Whether this host has Linux's {@code /proc} with this process in it. */
  private static final boolean HAS_PROC = Files.isReadable(PROC.resolve("self").resolve("stat"));
  private static final int MY_NAMESPACE = namespace();
  /** This process's mark. */
  public static final long SELF = mark(ProcessHandle.current().pid(), MY_NAMESPACE, startHash(ProcessHandle.current()
      .pid()));

  private HolderMark() {
  }

  /** The mark of process {@code pid} of pid namespace hash {@code ns} started at hash {@code start}. */
  static long mark(long pid, int ns, int start) {
    long p = pid > 0 && pid < (1L << PID_BITS) ? pid : 0;
    return MAGIC << 58 | p << 36 | (long) (ns & ((1 << NS_BITS) - 1)) << 16 | (start & ((1 << START_BITS) - 1));
  }

  /** The mark live process {@code pid} of this pid namespace writes (tests: a holder that is not this process). */
  public static long of(long pid) {
    return mark(pid, MY_NAMESPACE, startHash(pid));
  }

  /** Whether {@code value} is a mark at all (a non-zero word that is not is garbage: no holder wrote it). */
  public static boolean wellFormed(long value) {
    return value >>> 58 == MAGIC;
  }

  /** The holder's pid, or 0 if the mark has none (or is no mark). */
  public static long pid(long mark) {
    return wellFormed(mark) ? (mark >>> 36) & ((1L << PID_BITS) - 1) : 0;
  }

  /** The mark as a reader sees it: {@code pid P (start S, pid namespace N)}, or the raw bits of garbage. */
  public static String describe(long mark) {
    if (!wellFormed(mark)) {
      return String.format("0x%016x (no holder's mark)", mark);
    }
    return "process " + pid(mark) + (mark == SELF ? " (this one)" : "") + String.format(" [mark 0x%016x]", mark);
  }

  /**
   * Whether the process that wrote {@code mark} still exists, judged from this process: a pid
   * absent from {@code /proc}, a zombie, or a pid whose process started at another time is dead;
   * a mark of another pid namespace, or without a pid, is unknown. Reads {@code /proc/PID/stat}
   * (a few microseconds, no blocking I/O). {@link #SELF} is alive.
   */
  public static Liveness judge(long mark) {
    if (mark == SELF) {
      return Liveness.ALIVE;
    }
    long pid = pid(mark);
    int ns = (int) (mark >>> 16) & ((1 << NS_BITS) - 1);
    if (pid == 0 || ns != (MY_NAMESPACE & ((1 << NS_BITS) - 1))) {
      return Liveness.UNKNOWN;
    }
    int start = (int) mark & ((1 << START_BITS) - 1);
    if (!HAS_PROC) {
      java.util.Optional<ProcessHandle> p = ProcessHandle.of(pid);
      if (p.isEmpty() || !p.get().isAlive()) {
        return Liveness.DEAD;
      }
      return start != 0 && start != startHash(pid) ? Liveness.DEAD : Liveness.ALIVE;
    }
    byte[] stat = new byte[512];
    int n;
    try {
      n = readStat(pid, stat);
    } catch (NoSuchFileException e) {
      return Liveness.DEAD;
    } catch (IOException | RuntimeException e) {
      return Liveness.UNKNOWN;
    }
    // after the command name (which may hold spaces and parentheses): the state (field 3), then
    // the start time in clock ticks (field 22)
    int close = n - 1;
    while (close >= 0 && stat[close] != ')') {
      close--;
    }
    if (close < 0 || close + 2 >= n) {
      return Liveness.UNKNOWN;
    }
    byte state = stat[close + 2];
    if (state == 'Z' || state == 'X' || state == 'x') {
      return Liveness.DEAD; // a zombie: its memory is gone, its parent has not reaped it yet
    }
    int at = close + 2;
    for (int field = 3; field < 22 && at < n; at++) {
      if (stat[at] == ' ') {
        field++;
      }
    }
    int end = at;
    while (end < n && stat[end] >= '0' && stat[end] <= '9') {
      end++;
    }
    if (end == at) {
      return Liveness.UNKNOWN;
    }
    return start != 0 && start != hash(new String(stat, at, end - at, StandardCharsets.US_ASCII), START_BITS)
        ? Liveness.DEAD : Liveness.ALIVE;
  }

  /** Reads {@code /proc/PID/stat} into {@code into}; returns its length. */
  private static int readStat(long pid, byte[] into) throws IOException {
    try (java.io.FileInputStream in = new java.io.FileInputStream("/proc/" + pid + "/stat")) {
      int n = 0;
      for (int r; n < into.length && (r = in.read(into, n, into.length - n)) > 0; ) {
        n += r;
      }
      return n;
    } catch (java.io.FileNotFoundException e) {
      // missing, or not readable: only a pid whose directory is gone is no process
      if (Files.notExists(PROC.resolve(Long.toString(pid)))) {
        throw new NoSuchFileException("/proc/" + pid + "/stat");
      }
      throw e;
    }
  }

  /**
   * The fields of a {@code /proc/PID/stat} line after the command name (which may hold spaces
   * and parentheses): [0] is the state (field 3), [19] the start time in clock ticks (field 22).
   */
  private static String[] fieldsAfterName(String stat) {
    int close = stat.lastIndexOf(')');
    if (close < 0 || close + 2 > stat.length()) {
      return null;
    }
    String[] f = stat.substring(close + 2).trim().split(" ");
    return f.length >= 20 ? f : null;
  }

  /** A non-zero hash of process {@code pid}'s start time, or 0 if it cannot be read. */
  private static int startHash(long pid) {
    try {
      if (HAS_PROC) {
        byte[] stat = new byte[512];
        int n = readStat(pid, stat);
        String[] f = fieldsAfterName(new String(stat, 0, n, StandardCharsets.US_ASCII));
        return f == null ? 0 : hash(f[19], START_BITS);
      }
      return ProcessHandle.of(pid).flatMap(p -> p.info().startInstant())
          .map(t -> hash(Long.toString(t.toEpochMilli()), START_BITS)).orElse(0);
    } catch (IOException | RuntimeException e) {
      return 0;
    }
  }

  /** A hash of this process's pid namespace ({@code /proc/self/ns/pid}'s inode), 0 where there is none. */
  private static int namespace() {
    if (!HAS_PROC) {
      return 0;
    }
    try {
      String link = Files.readSymbolicLink(PROC.resolve("self").resolve("ns").resolve("pid")).toString();
      return hash(link, NS_BITS);
    } catch (IOException | RuntimeException e) {
      LOG.log(System.Logger.Level.DEBUG, "no pid namespace to mark shared words with: " + e);
      return 0;
    }
  }

  /** A non-zero hash of {@code s} in {@code bits} bits. */
  private static int hash(String s, int bits) {
    long h = 0xcbf29ce484222325L;
    for (int i = 0; i < s.length(); i++) {
      h = (h ^ s.charAt(i)) * 0x100000001b3L;
    }
    h ^= h >>> 33;
    h *= 0xff51afd7ed558ccdL;
    h ^= h >>> 33;
    int v = (int) (h & ((1L << bits) - 1));
    return v == 0 ? 1 : v;
  }
}
