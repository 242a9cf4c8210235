package dev.vertxrma.impl.launch;

import dev.vertxrma.impl.runtime.ClusterSupport;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.UnknownHostException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The Hazelcast port a launcher gives the first JVM of a job on its host, around which the job's
 * cluster forms ({@link ClusterSupport#LEADER}), reserved on the host for as long as the launcher
 * runs: {@code bin/rmarun}'s launcher JVM, or rank 0 under a process manager.
 */
final class LeaderPort {

  /** The ports a job's first JVM may be given to form its cluster ({@link #free}). */
  static final int FROM = 5751;
  /** The last of them. */
  static final int TO = 5800;
  /** The leader ports this JVM has reserved, each held by a lock on its file until this JVM ends. */
  private static final List<FileLock> RESERVED = new ArrayList<>();
  /**
   * The lock files this JVM holds a reservation on. Such a file must not even be opened again
   * here: closing any channel of a file drops every lock the process holds on it (POSIX record
   * locks), so a second look at a port this JVM reserved would give its reservation away.
   */
  private static final java.util.Set<Path> HELD = new java.util.HashSet<>();

  private LeaderPort() {
  }

  /**
   * A port for the JVM that forms a job's cluster ({@link ClusterSupport#LEADER}) to bind on
   * {@code host}, or -1 (the JVMs then search for each other as Hazelcast does): the first of
   * {@value #FROM}-{@value #TO}, from a random start, that
   *
   * <ul>
   *   <li>no other launcher of this user on this host has reserved: each reservation is a lock on
   *       a file of its own ({@code java.io.tmpdir/vertx-rma-ports-USER/PORT.lock}) that this JVM
   *       holds until it ends, so two jobs started in the same second never choose the same port
   *       (a bind probe alone cannot tell: a port chosen is bound only seconds later, by a JVM
   *       still starting);</li>
   *   <li>and this JVM can bind there now.</li>
   * </ul>
   *
   * <p>The range is the top half of Hazelcast's usual 5701-5800: the JVMs that search for a free
   * port (a job's other JVMs, which join the leader; nodes without a leader) search from 5701
   * upwards and take one of the range only when 50 ports below it are taken, and the range is
   * outside the kernel's ephemeral ports, so no outgoing connection takes one meanwhile.
   */
  static int free(String host) {
    return free(host, reservationDirectory());
  }

  /** {@link #free(String)} with the reservations in {@code dir} ({@code null}: none). */
  static synchronized int free(String host, Path dir) {
    InetAddress address;
    try {
      address = InetAddress.getByName(host);
    } catch (UnknownHostException e) {
      return -1;
    }
    int n = TO - FROM + 1;
    int start = ThreadLocalRandom.current().nextInt(n);
    for (int i = 0; i < n; i++) {
      int port = FROM + (start + i) % n;
      if (dir != null && HELD.contains(dir.resolve(port + ".lock"))) {
        continue; // this launcher holds it (for an earlier job)
      }
      FileLock lock = dir == null ? null : reserve(dir, port);
      if (dir != null && lock == null) {
        continue; // another launcher holds it
      }
      try (ServerSocket probe = new ServerSocket()) {
        probe.setReuseAddress(false);
        probe.bind(new InetSocketAddress(address, port));
      } catch (IOException e) {
        release(lock); // taken: the next one
        continue;
      }
      if (lock != null) {
        RESERVED.add(lock);
        HELD.add(dir.resolve(port + ".lock"));
      }
      return port;
    }
    return -1;
  }

  /** Gives up every reservation this JVM holds (the reservations' tests). */
  static synchronized void releaseAll() {
    for (FileLock l : RESERVED) {
      release(l);
    }
    RESERVED.clear();
    HELD.clear();
  }

  /** This user's directory of port reservations, made if missing; {@code null} if it cannot be. */
  private static Path reservationDirectory() {
    try {
      Path dir = Path.of(System.getProperty("java.io.tmpdir"),
          "vertx-rma-ports-" + System.getProperty("user.name", "user").replaceAll("[^A-Za-z0-9._-]", "_"));
      if (!Files.isDirectory(dir)) {
        Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(
            PosixFilePermissions.fromString("rwx------")));
      }
      return dir;
    } catch (IOException | UnsupportedOperationException | InvalidPathException e) {
      return null;
    }
  }

  /** A lock on {@code port}'s reservation file, or {@code null} if another process holds it. */
  private static FileLock reserve(Path dir, int port) {
    FileChannel ch = null;
    try {
      ch = FileChannel.open(dir.resolve(port + ".lock"), StandardOpenOption.CREATE,
          StandardOpenOption.WRITE);
      FileLock lock = ch.tryLock();
      if (lock == null) {
        ch.close();
      }
      return lock;
    } catch (IOException | OverlappingFileLockException e) {
      // held by this JVM already (a reservation of an earlier job), or unusable: not this port
      if (ch != null) {
        try {
          ch.close();
        } catch (IOException closed) {
          // nothing held
        }
      }
      return null;
    }
  }

  private static void release(FileLock lock) {
    if (lock != null) {
      try {
        lock.channel().close();
      } catch (IOException e) {
        // the lock goes with the channel either way
      }
    }
  }

}
