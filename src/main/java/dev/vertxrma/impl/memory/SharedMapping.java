package dev.vertxrma.impl.memory;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.RmaException;
import java.io.IOException;
import java.io.RandomAccessFile;
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
   *     another user or lets others in
   */
  public static Path directory() {
    Path shm = Paths.get("/dev/shm");
    Path root = Files.isDirectory(shm) && Files.isWritable(shm) ? shm : Paths.get(System.getProperty("java.io.tmpdir"));
    Path dir = root.resolve("vertx-rma-" + System.getProperty("user.name").replaceAll("[^A-Za-z0-9._-]", "_"));
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
      if (posix) {
        java.nio.file.attribute.PosixFileAttributes a = Files.readAttributes(dir,
            java.nio.file.attribute.PosixFileAttributes.class, java.nio.file.LinkOption.NOFOLLOW_LINKS);
        if (!a.isDirectory() || !a.owner().getName().equals(System.getProperty("user.name"))
            || !a.permissions().equals(PosixFilePermissions.fromString("rwx------"))) {
          throw RmaException.of(ErrorClass.RMA_SHARED, "segment directory %s must be a directory of user %s with mode "
              + "0700 (it is %s, owner %s): remove it or fix its mode", dir, System.getProperty("user.name"),
              PosixFilePermissions.toString(a.permissions()), a.owner().getName());
        }
      }
      return dir;
    } catch (IOException e) {
      throw new RmaException(ErrorClass.RMA_SHARED, "cannot create the segment directory " + dir + ": " + e, e);
    }
  }

  /** Creates the zero-filled file of {@code length} bytes (at least 8); returns its path. Blocking file I/O. */
  public static Path createFile(String name, long length) {
    Path p = directory().resolve(name);
    try {
      if (p.getFileSystem().supportedFileAttributeViews().contains("posix")) {
        Files.createFile(p, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
      }
    } catch (java.nio.file.FileAlreadyExistsException e) {
      // sized below like a new one (a name is used once: a leftover of the same name is reused)
    } catch (IOException e) {
      throw new RmaException(ErrorClass.RMA_SHARED, "cannot create shared segment " + p + ": " + e, e);
    }
    try (RandomAccessFile f = new RandomAccessFile(p.toFile(), "rw")) {
      f.setLength(Math.max(length, 8));
      return p;
    } catch (IOException e) {
      throw new RmaException(ErrorClass.RMA_SHARED, "cannot create shared segment " + p + ": " + e, e);
    }
  }

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

  /**
   * A new segment file name of job {@code job} (a job name: letters, digits, '.', '_', '-'):
   * {@code prefix}, this process's pid, a dash, the job, a dash, a UUID. The pid lets a later
   * job remove the file of a JVM that is gone ({@link #removeStale}); the job's name lets its
   * launcher remove what a killed job left ({@link #removeJob}).
   */
  public static String fileName(String prefix, String job) {
    return prefix + ProcessHandle.current().pid() + "-" + job + "-" + java.util.UUID.randomUUID();
  }

  /**
   * Removes every file of job {@code job} named by {@link #fileName} with one of {@code prefixes}
   * (its launcher's last step: a JVM killed while it made a window leaves one). Blocking file I/O;
   * errors only logged. Returns how many were removed.
   */
  public static int removeJob(String job, String... prefixes) {
    java.util.regex.Pattern name = java.util.regex.Pattern.compile("(" + String.join("|", java.util.Arrays.stream(
        prefixes).map(java.util.regex.Pattern::quote).toArray(String[]::new)) + ")\\d{1,19}-"
        + java.util.regex.Pattern.quote(job) + "-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");
    int removed = 0;
    try (var files = Files.list(directory())) {
      for (Path p : (Iterable<Path>) files::iterator) {
        if (name.matcher(p.getFileName().toString()).matches()) {
          unlink(p);
          removed++;
        }
      }
    } catch (IOException | RuntimeException e) {
      System.getLogger(SharedMapping.class.getName()).log(System.Logger.Level.WARNING,
          "cannot remove the segment files of job " + job + ": " + e);
    }
    return removed;
  }

  /**
   * Removes the files in the segment directory named {@code prefix}, a pid, a dash and more, whose
   * process is gone and which are at least {@code minAgeMillis} old (a file of a live JVM in
   * another PID namespace sharing the directory is removed by its creator in that time). Blocking
   * file I/O; errors only logged, names of another form left alone.
   */
  public static void removeStale(String prefix, long minAgeMillis) {
    try (var files = Files.list(directory())) {
      files.filter(p -> p.getFileName().toString().startsWith(prefix)).forEach(p -> {
        String rest = p.getFileName().toString().substring(prefix.length());
        int dash = rest.indexOf('-');
        try {
          long pid = Long.parseLong(dash < 0 ? rest : rest.substring(0, dash));
          if (ProcessHandle.of(pid).isEmpty()
              && Files.getLastModifiedTime(p).toMillis() < System.currentTimeMillis() - minAgeMillis) {
            unlink(p);
          }
        } catch (NumberFormatException | IOException e) {
          // not a name made this way, or gone meanwhile: left alone
        }
      });
    } catch (IOException | RuntimeException e) {
      System.getLogger(SharedMapping.class.getName()).log(System.Logger.Level.DEBUG,
          "cannot look for stale segments " + prefix + "*: " + e);
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
