package dev.vertxrma.impl.memory;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.RmaException;
import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.PosixFilePermissions;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * The memory of a shared-memory window (MPI_Win_allocate_shared): one file, mapped by every rank
 * of the window on one host (in {@code /dev/shm} where it exists), holding the ranks' segments
 * one after the other. Each rank maps the whole file, so a peer's segment is plain load/store
 * memory ({@code MPI_Win_shared_query}); the mapping is released when the window is freed.
 */
public final class SharedMapping {

  /** The most bytes one mapping can hold (a {@link MappedByteBuffer} is indexed by {@code int}). */
  public static final long MAX_LENGTH = Integer.MAX_VALUE;

  private final MappedByteBuffer buffer;
  private final long address;
  private final long length;
  private boolean unmapped;

  private SharedMapping(MappedByteBuffer buffer, long length) {
    this.buffer = buffer;
    this.address = addressOf(buffer);
    this.length = length;
  }

  /**
   * The directory shared segments are created in: {@code vertx-rma-USER} under {@code /dev/shm} if
   * present, else under the temp dir, created with mode 0700 (only its user may enter it: every
   * process of that user can map the segments in it, as with MPI). Blocking file I/O on first use.
   *
   * @throws RmaException RMA_SHARED when the directory cannot be created, or exists but belongs to
   *     another user or lets others in (said once per JVM at WARNING, with the fix)
   */
  public static Path directory() {
    Path dir = location();
    try {
      boolean posix = dir.getFileSystem().supportedFileAttributeViews().contains("posix");
      if (!Files.isDirectory(dir)) {
        try {
          if (posix) {
            Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
          } else {
            Files.createDirectory(dir);
          }
        } catch (java.nio.file.FileAlreadyExistsException raced) {
          // another JVM of the user made it meanwhile: checked below like any other
        }
      }
      String wrong = ownedAndPrivate(dir);
      if (wrong != null) {
        RmaException refused = RmaException.of(ErrorClass.RMA_SHARED, "segment directory %s must be a directory of "
            + "user %s with mode 0700 (it is %s): JVMs of this host cannot share memory, every operation between them "
            + "crosses the data plane; %s", dir, user(), wrong, wrong.contains("owner " + user() + ",")
            ? "chmod 700 " + dir : "another user made it first: have that user or root remove it (rm -r " + dir + ")");
        if (!refused.getMessage().equals(refusal)) {
          refusal = refused.getMessage(); // said once per JVM (again only if it changes), not per window
          System.getLogger(SharedMapping.class.getName()).log(System.Logger.Level.WARNING, refusal);
        }
        throw refused;
      }
      refusal = null;
      return dir;
    } catch (IOException e) {
      throw new RmaException(ErrorClass.RMA_SHARED, "cannot create the segment directory " + dir + ": " + e, e);
    }
  }

  /** The last refusal of the segment directory this JVM logged ({@link #directory}), or null. */
  private static volatile String refusal;

  /** Where the segment directory is: {@code vertx-rma-USER} under {@code /dev/shm} if writable, else the temp dir. */
  private static Path location() {
    Path shm = Paths.get("/dev/shm");
    Path root = Files.isDirectory(shm) && Files.isWritable(shm) ? shm : Paths.get(System.getProperty("java.io.tmpdir"));
    return root.resolve("vertx-rma-" + user().replaceAll("[^A-Za-z0-9._-]", "_"));
  }

  private static String user() {
    return System.getProperty("user.name");
  }

  /**
   * {@code null} if {@code dir} is a directory (not a link) of this user with mode 0700 (or the file
   * system has no POSIX attributes), else what it is instead.
   */
  private static String ownedAndPrivate(Path dir) throws IOException {
    if (!dir.getFileSystem().supportedFileAttributeViews().contains("posix")) {
      return null;
    }
    java.nio.file.attribute.PosixFileAttributes a = Files.readAttributes(dir,
        java.nio.file.attribute.PosixFileAttributes.class, java.nio.file.LinkOption.NOFOLLOW_LINKS);
    if (a.isDirectory() && a.owner().getName().equals(user())
        && a.permissions().equals(PosixFilePermissions.fromString("rwx------"))) {
      return null;
    }
    return (a.isDirectory() ? "a directory" : a.isSymbolicLink() ? "a symbolic link" : "not a directory") + ", owner "
        + a.owner().getName() + ", mode " + PosixFilePermissions.toString(a.permissions());
  }

  /**
   * Creates the zero-filled file {@code name} of {@code length} bytes (at least 8) in the segment
   * directory, its space reserved; returns its path. Blocking file I/O: a worker thread's job.
   *
   * @see #createFile(String, long, String)
   */
  public static Path createFile(String name, long length) {
    return createFile(name, length, "shared segment");
  }

  /**
   * Creates the file {@code name} of {@code length} bytes (at least 8) in the segment directory,
   * new (never a file or link that is there already), mode 0600, and <b>reserves its space</b>: it
   * writes zeroes over the whole length through the file descriptor, so that the file system
   * allocates every page now. A directory that runs out (a small or full {@code /dev/shm}) then
   * fails this call with an I/O error, instead of leaving a sparse file whose first store past the
   * free space would raise SIGBUS in every JVM that maps it. Sweeps files of dead processes first
   * ({@link #sweepStale}). Blocking file I/O: a worker thread's job.
   *
   * @param what what the file is, for messages ("window segment", "barrier page", ...)
   * @throws RmaException NO_MEM when the directory has too little room (its free space is checked
   *     first, then the reservation may still run out when others fill it meanwhile): the message
   *     names the directory and how to give it more room; RMA_SHARED when the directory or the file
   *     cannot be made
   */
  public static Path createFile(String name, long length, String what) {
    sweepStale();
    Path dir = directory();
    long len = Math.max(length, 8);
    long usable;
    try {
      usable = Files.getFileStore(dir).getUsableSpace();
    } catch (IOException e) {
      throw new RmaException(ErrorClass.RMA_SHARED, "cannot read the free space of " + dir + ": " + e, e);
    }
    if (usable < len) {
      throw noSpace(dir, what, len, usable, null);
    }
    Path p = dir.resolve(name);
    java.util.Set<java.nio.file.OpenOption> options = java.util.Set.of(java.nio.file.StandardOpenOption.CREATE_NEW,
        java.nio.file.StandardOpenOption.WRITE, java.nio.file.LinkOption.NOFOLLOW_LINKS);
    boolean posix = p.getFileSystem().supportedFileAttributeViews().contains("posix");
    FileChannel ch;
    try {
      ch = posix ? FileChannel.open(p, options, PosixFilePermissions.asFileAttribute(
          PosixFilePermissions.fromString("rw-------"))) : FileChannel.open(p, options);
    } catch (IOException e) {
      throw new RmaException(ErrorClass.RMA_SHARED, "cannot create " + what + " " + p + ": " + e, e);
    }
    long[] reserved = new long[1];
    try (ch) {
      reserve(ch, len, reserved);
      return p;
    } catch (IOException e) {
      unlinkQuietly(p, what); // what was reserved goes back at once
      if (outOfSpace(e)) {
        throw noSpace(dir, what, len, reserved[0], e);
      }
      throw new RmaException(ErrorClass.RMA_SHARED, "cannot create " + what + " " + p + ": " + e, e);
    }
  }

  /** Zeroes written at once when a file's space is reserved (read only: shared by every thread). */
  private static final java.nio.ByteBuffer ZEROS = java.nio.ByteBuffer.allocateDirect(1 << 20).asReadOnlyBuffer();

  /**
   * Writes zeroes over {@code [0, length)} of {@code ch}: the file system allocates every page or
   * fails. {@code reserved[0]} says how far it got.
   */
  private static void reserve(FileChannel ch, long length, long[] reserved) throws IOException {
    java.nio.ByteBuffer zeros = ZEROS.duplicate();
    while (reserved[0] < length) {
      zeros.clear().limit((int) Math.min(zeros.capacity(), length - reserved[0]));
      while (zeros.hasRemaining()) {
        reserved[0] += ch.write(zeros, reserved[0]);
      }
    }
  }

  /** Whether {@code e} says the file system ran out of space or quota (ENOSPC, EDQUOT). */
  private static boolean outOfSpace(IOException e) {
    String m = String.valueOf(e.getMessage());
    return m.contains("No space left on device") || m.contains("Disk quota exceeded");
  }

  /**
   * NO_MEM for a {@code what} of {@code needed} bytes that the segment directory {@code dir} cannot
   * hold: {@code cause} is null when its free space ({@code freeOrReserved}) was too small to begin
   * with, else the error of the reservation that ran out after {@code freeOrReserved} bytes.
   */
  private static RmaException noSpace(Path dir, String what, long needed, long freeOrReserved, IOException cause) {
    String root = dir.getParent() == null ? dir.toString() : dir.getParent().toString();
    String state = cause == null ? String.format("has %d bytes free", freeOrReserved)
        : String.format("ran out after %d bytes (%s: other files took the room meanwhile)", freeOrReserved,
            cause.getMessage());
    String text = String.format("cannot reserve %d bytes for a %s: the segment directory %s %s; give %s more room "
        + "(Docker: docker run --shm-size=1g or larger, see docs/running-jobs.md#docker), or put fewer ranks or "
        + "smaller windows on this host", needed, what, dir, state, root);
    return cause == null ? new RmaException(ErrorClass.NO_MEM, text) : new RmaException(ErrorClass.NO_MEM, text, cause);
  }

  /**
   * Touches every page of {@code [offset, offset + length)} of this mapping (a read per page), so
   * that the first stores into it fault no page later, on an event loop. The pages are the file's
   * (reserved by {@link #createFile}): a read never allocates. Blocking: a worker thread's job.
   */
  public void touch(long offset, long length) {
    if (offset < 0 || length < 0 || offset + length > this.length) {
      throw RmaException.of(ErrorClass.RMA_RANGE, "touch [%d, +%d) outside the shared mapping of %d bytes", offset,
          length, this.length);
    }
    long sum = 0;
    for (long at = 0; at < length; at += PAGE) {
      sum += Memory.getByte(null, address + offset + at);
    }
    touched = sum; // kept, so that the reads are not optimized away
  }

  private static final long PAGE = 4096;
  @SuppressWarnings("unused")
  private static volatile long touched;

  /** Maps the file at {@code path} (created by {@link #createFile}). Blocking file I/O. */
  public static SharedMapping map(Path path, long length) {
    return map(path, 0, length);
  }

  /**
   * Maps {@code length} bytes (at least 8) of the file at {@code path} from byte {@code offset}
   * (a multiple of the page size, so that the mapping starts on one). Never creates the file: a
   * rank that does not share the directory of the rank that made it finds none, and must leave
   * nothing behind in its own. Blocking file I/O.
   *
   * @throws RmaException RMA_SHARED when the file is missing, shorter, or cannot be mapped
   */
  public static SharedMapping map(Path path, long offset, long length) {
    long len = Math.max(length, 8);
    try (FileChannel ch = FileChannel.open(path, java.nio.file.StandardOpenOption.READ,
        java.nio.file.StandardOpenOption.WRITE, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
      if (ch.size() < offset + len) {
        throw RmaException.of(ErrorClass.RMA_SHARED, "shared segment %s has %d bytes, expected %d (is every rank on "
            + "the same host?)", path, ch.size(), offset + len);
      }
      return new SharedMapping(ch.map(FileChannel.MapMode.READ_WRITE, offset, len), len);
    } catch (java.nio.file.NoSuchFileException e) {
      throw new RmaException(ErrorClass.RMA_SHARED, "shared segment " + path + " does not exist here: this rank does "
          + "not share the memory segment directory of the rank that created it (another host, or a container or "
          + "namespace with a /dev/shm of its own)", e);
    } catch (IOException e) {
      throw new RmaException(ErrorClass.RMA_SHARED, "cannot map shared segment " + path + " (every rank of a shared "
          + "window must run on one host): " + e, e);
    }
  }

  /**
   * Deletes the file (blocking file I/O); the mappings stay valid. A file already gone is not an
   * error.
   *
   * @throws IOException when the file is there but cannot be deleted (the caller reports it)
   */
  public static void unlink(Path path) throws IOException {
    Files.deleteIfExists(path);
  }

  /** Prefix of a window's segment files ({@code allocate} on the on-node path). */
  public static final String WINDOW_PREFIX = "win-";
  /** Prefix of a communicator's barrier pages. */
  public static final String BARRIER_PREFIX = "barrier-";
  /** Prefix of a shared window's file ({@code allocateShared}). */
  public static final String SHARED_PREFIX = "shared-";
  /** Prefix of a {@code splitType(SHARED)} proof file. */
  public static final String DOMAIN_PREFIX = "domain-";
  /** Every prefix of the files a job makes in the segment directory, all named by {@link #fileName}. */
  public static final java.util.List<String> PREFIXES = java.util.List.of(WINDOW_PREFIX, BARRIER_PREFIX, SHARED_PREFIX,
      DOMAIN_PREFIX);
  /**
   * A file whose creator cannot be told alive or dead from here (another PID namespace sharing the
   * directory, a name without the namespace) is removed once its pid is unknown here and it is this
   * old: such a creator removes its own file within that time.
   */
  public static final long FOREIGN_STALE_AFTER_MS = 60_000;
  /** The least time between two sweeps of one JVM ({@link #sweepStale}). */
  static final long SWEEP_INTERVAL_MS = 1_000;

  /** {@code pid.START.NS}: this process's pid, start time (ms, hex) and PID namespace (hex), 0 when unknown. */
  private static final String CREATOR = creator();
  /** The creator part of a name: pid, then optionally start time and PID namespace. */
  private static final String CREATOR_PATTERN = "(\\d{1,19})(?:\\.([0-9a-f]{1,16})\\.([0-9a-f]{1,16}))?";
  private static final String UUID_PATTERN = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";
  private static final java.util.regex.Pattern ANY_FILE = java.util.regex.Pattern.compile("(" + String.join("|",
      PREFIXES.stream().map(java.util.regex.Pattern::quote).toArray(String[]::new)) + ")" + CREATOR_PATTERN
      + "-([A-Za-z0-9._-]{1,128})-" + UUID_PATTERN);
  private static final java.util.concurrent.atomic.AtomicLong LAST_SWEEP = new java.util.concurrent.atomic.AtomicLong(
      Long.MIN_VALUE);

  private static String creator() {
    return creatorOf(ProcessHandle.current());
  }

  /** The creator part of the names {@code process} would give its files: {@code PID.START.NS}. */
  static String creatorOf(ProcessHandle process) {
    long start = process.info().startInstant().map(java.time.Instant::toEpochMilli).orElse(0L);
    return process.pid() + "." + Long.toHexString(start) + "." + Long.toHexString(pidNamespace(
        process.pid() == ProcessHandle.current().pid() ? "self" : String.valueOf(process.pid())));
  }

  /** The PID namespace of {@code /proc/PROC} (Linux: the inode of its ns/pid link), 0 if unknown. */
  private static long pidNamespace(String proc) {
    try {
      String link = Files.readSymbolicLink(Paths.get("/proc", proc, "ns", "pid")).toString(); // pid:[4026531836]
      return Long.parseLong(link.substring(link.indexOf('[') + 1, link.indexOf(']')));
    } catch (IOException | RuntimeException | Error e) {
      return 0;
    }
  }

  /**
   * A new file name of job {@code job} (a job name: letters, digits, '.', '_', '-') with
   * {@code prefix}, one of {@link #PREFIXES}: {@code PREFIX PID.START.NS-JOB-UUID}, this process's
   * pid, start time and PID namespace, the job, a random UUID. The creator lets any later JVM of the
   * host remove the file at once once its process is gone ({@link #removeStale}); the job's name
   * lets its launcher remove what a killed job left ({@link #removeJob}).
   */
  public static String fileName(String prefix, String job) {
    return prefix + CREATOR + "-" + job + "-" + java.util.UUID.randomUUID();
  }

  /** The start of every name {@link #fileName} gives this process with {@code prefix}. */
  public static String ownPrefix(String prefix) {
    return prefix + CREATOR + "-";
  }

  /**
   * Removes every file of job {@code job} named by {@link #fileName} (its launcher's last step: a
   * JVM killed while it made a window, a page or a shared window leaves one). Blocking file I/O;
   * errors only logged. Returns how many were removed.
   */
  public static int removeJob(String job) {
    int removed = 0;
    Path dir = ownDirectory();
    if (dir == null) {
      return 0;
    }
    try (var files = Files.list(dir)) {
      for (Path p : (Iterable<Path>) files::iterator) {
        java.util.regex.Matcher m = ANY_FILE.matcher(p.getFileName().toString());
        if (m.matches() && m.group(5).equals(job)) {
          unlink(p);
          removed++;
        }
      }
    } catch (IOException | RuntimeException e) {
      System.getLogger(SharedMapping.class.getName()).log(System.Logger.Level.WARNING,
          "cannot remove the segment files of job " + job + " in " + dir + ": " + e);
    }
    return removed;
  }

  /**
   * {@link #removeStale()}, at most once per {@link #SWEEP_INTERVAL_MS} in this JVM: run before
   * every file is created, so that a long-running JVM keeps the directory clean too. Blocking file
   * I/O.
   */
  public static void sweepStale() {
    long now = System.nanoTime();
    long last = LAST_SWEEP.get();
    if (last != Long.MIN_VALUE && now - last < SWEEP_INTERVAL_MS * 1_000_000L) {
      return;
    }
    if (LAST_SWEEP.compareAndSet(last, now)) {
      removeStale();
    }
  }

  /**
   * Removes the files of the segment directory whose creating process is gone (a JVM killed before
   * it removed its own, {@code kill -9} of a whole job included): at once when the name says its
   * creator ran in this JVM's PID namespace and no process of that pid and start time lives; else
   * (another namespace sharing the directory, or a name without one) once no process of that pid
   * lives here and the file is {@link #FOREIGN_STALE_AFTER_MS} old. Files of this process and names
   * of another form are left alone. Blocking file I/O; errors only logged. Returns how many were
   * removed.
   */
  public static int removeStale() {
    Path dir = ownDirectory();
    if (dir == null) {
      return 0;
    }
    int removed = 0;
    long ns = pidNamespace("self");
    try (var files = Files.list(dir)) {
      for (Path p : (Iterable<Path>) files::iterator) {
        java.util.regex.Matcher m = ANY_FILE.matcher(p.getFileName().toString());
        if (!m.matches()) {
          continue;
        }
        try {
          if (stale(m, ns, p)) {
            unlink(p);
            removed++;
          }
        } catch (IOException | RuntimeException e) {
          // gone meanwhile, or not ours to judge: left alone
        }
      }
    } catch (IOException | RuntimeException e) {
      System.getLogger(SharedMapping.class.getName()).log(System.Logger.Level.DEBUG,
          "cannot look for stale files in " + dir + ": " + e);
    }
    return removed;
  }

  private static boolean stale(java.util.regex.Matcher name, long ns, Path p) throws IOException {
    long pid = Long.parseLong(name.group(2));
    long start = name.group(3) == null ? 0 : Long.parseUnsignedLong(name.group(3), 16);
    long fileNs = name.group(4) == null ? 0 : Long.parseUnsignedLong(name.group(4), 16);
    String creator = name.group(3) == null ? name.group(2) : name.group(2) + "." + name.group(3) + "." + name.group(4);
    if (creator.equals(CREATOR) || pid == ProcessHandle.current().pid() && fileNs == 0) {
      return false; // this process's own (or, without a namespace, one it cannot tell from its own)
    }
    java.util.Optional<ProcessHandle> process = ProcessHandle.of(pid);
    if (ns != 0 && fileNs == ns) {
      if (process.isEmpty()) {
        return true;
      }
      // the pid lives: the creator, or a process that took its pid since
      long started = process.get().info().startInstant().map(java.time.Instant::toEpochMilli).orElse(0L);
      return start != 0 && started != 0 && started != start;
    }
    return process.isEmpty()
        && Files.getLastModifiedTime(p).toMillis() < System.currentTimeMillis() - FOREIGN_STALE_AFTER_MS;
  }

  /**
   * The segment directory if it exists and is this user's (mode 0700), else {@code null}: what a
   * sweep looks in (it makes nothing, and leaves another user's directory alone). Blocking.
   */
  static Path ownDirectory() {
    try {
      Path dir = location();
      return Files.isDirectory(dir, java.nio.file.LinkOption.NOFOLLOW_LINKS) && ownedAndPrivate(dir) == null ? dir
          : null;
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  /**
   * What a peer needs to find and trust a segment file: the random token written in it (8 bytes),
   * then the file's name in the segment directory (UTF-8).
   */
  public static byte[] descriptor(long token, Path path) {
    byte[] name = path.getFileName().toString().getBytes(java.nio.charset.StandardCharsets.UTF_8);
    return java.nio.ByteBuffer.allocate(8 + name.length).putLong(token).put(name).array();
  }

  /** {@link #unlink}, logging a failure at WARNING, naming the file as {@code what}. */
  public static void unlinkQuietly(Path path, String what) {
    try {
      unlink(path);
    } catch (IOException e) {
      System.getLogger(SharedMapping.class.getName()).log(System.Logger.Level.WARNING,
          "cannot remove " + what + " " + path + ": " + e);
    }
  }

  /** How long after a fallback's WARNING the same kind of fallback is logged at DEBUG only (counted). */
  public static final long FALLBACK_WARNING_INTERVAL_MS = 60_000;
  /** Per kind and error class: when its last WARNING was logged (nanos) and how many fallbacks went unlogged since. */
  private static final java.util.Map<String, long[]> FALLBACKS = new java.util.HashMap<>();

  /**
   * Logs that {@code what}, a {@code kind} of file ("window segment", "barrier page"), does without
   * shared memory because of {@code why} (a full segment directory, one another user squats, ...):
   * at WARNING the first time for that kind and {@code why}'s error class in this JVM, and again
   * once {@link #FALLBACK_WARNING_INTERVAL_MS} have passed (saying how many more there were
   * meanwhile), else at DEBUG. A job that makes many windows or communicators in a full or squatted
   * directory writes one warning of each kind a minute, not one line each.
   */
  public static void reportFallback(String kind, String what, RmaException why) {
    System.Logger log = System.getLogger(SharedMapping.class.getName());
    if (why.getMessage().equals(refusal)) {
      log.log(System.Logger.Level.DEBUG, what + ": " + why.getMessage()); // the directory's refusal, said once
      return;
    }
    long now = System.nanoTime();
    long more;
    synchronized (FALLBACKS) {
      long[] last = FALLBACKS.computeIfAbsent(kind + " " + why.errorClass(), k -> new long[] {now, -1});
      if (last[1] >= 0 && now - last[0] < FALLBACK_WARNING_INTERVAL_MS * 1_000_000L) {
        last[1]++;
        more = -1;
      } else {
        more = Math.max(last[1], 0);
        last[0] = now;
        last[1] = 0;
      }
    }
    if (more < 0) {
      log.log(System.Logger.Level.DEBUG, what + ": " + why.getMessage());
    } else {
      log.log(System.Logger.Level.WARNING, what + ": " + why.getMessage() + (more == 0 ? ""
          : " (and " + more + " more such fallback(s) since the last warning)"));
    }
  }

  /** Bytes mapped. */
  public long length() {
    return length;
  }

  /**
   * Whether {@link #unmap()} may take long enough to belong on a worker thread (unmapping is a
   * system call whose cost grows with the pages touched).
   */
  public boolean unmapMayBlock() {
    return length >= WindowMemory.OFF_LOOP_BYTES;
  }

  /** A store over {@code [offset, offset + size)} of the mapping (no ownership). */
  public BytesStore<?, ?> segment(long offset, long size) {
    if (offset < 0 || size < 0 || offset + size > length) {
      throw RmaException.of(ErrorClass.RMA_RANGE, "segment [%d, +%d) outside the shared mapping of %d bytes", offset,
          size, length);
    }
    return BytesStore.wrap(address + offset, Math.max(size, 0));
  }

  /** Unmaps the file; idempotent. Blocks as long as {@link #unmapMayBlock()} says. */
  public void unmap() {
    if (!unmapped) {
      unmapped = true;
      Memory.invokeCleaner(buffer);
    }
  }

  private static long addressOf(MappedByteBuffer b) {
    try {
      Field f = java.nio.Buffer.class.getDeclaredField("address");
      f.setAccessible(true);
      return f.getLong(b);
    } catch (ReflectiveOperationException e) {
      throw new RmaException(ErrorClass.INTERN, "cannot read the address of a mapped buffer: " + e, e);
    }
  }
}
