package dev.vertxrma.impl.launch;

import dev.vertxrma.impl.transport.JobSecret;
import dev.vertxrma.impl.transport.PrivateFile;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Base64;

/**
 * The user's own key, {@code ~/.vertx-rma/job.key} (a random key, mode 0600, in a directory of
 * mode 0700, made on first use), from which a job started by {@code srun} without
 * {@code RMA_JOB_SECRET_FILE} takes its secret: HMAC-SHA256 of the job's name under this key. Every
 * process of the job derives the same secret where the home directory is the same (one host, or a
 * home shared by the nodes, as on most clusters), and nobody but the user (and root) can: like
 * ssh's keys, the file is refused when another user could read or replace it. Each job has another
 * secret, and one job's secret tells nothing of the key or of another job's.
 */
final class UserJobKey {

  /** The key's file under the home directory. */
  static final String FILE = ".vertx-rma/job.key";

  private UserJobKey() {
  }

  /** The key file of the user whose home is {@code home}. */
  static Path file(Path home) {
    return home.resolve(FILE);
  }

  /** The home directory: {@code HOME}, else Java's {@code user.home}. */
  static Path home() {
    String h = System.getenv("HOME");
    return Path.of(h == null || h.isBlank() ? System.getProperty("user.home") : h);
  }

  /**
   * The secret of job {@code jobName} (Base64 text, as {@link JobSecret#parse} takes it), derived
   * from the key in {@code file}, which is made first if there is none.
   *
   * @throws IOException when the key cannot be read or made, or another user could read or
   *     replace it (the message says what to do)
   */
  static String jobSecret(Path file, String jobName) throws IOException {
    JobSecret key = JobSecret.parse(read(file));
    return Base64.getEncoder().encodeToString(key.mac("vertx-rma job secret", jobName));
  }

  private static String read(Path file) throws IOException {
    Path dir = file.getParent();
    if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
      try {
        Files.createDirectories(dir.getParent());
        Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
      } catch (FileAlreadyExistsException e) {
        // made by another process of the job at the same moment
      }
    }
    check(dir, true);
    if (!Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
      create(file);
    }
    check(file, false);
    String text = Files.readString(file, StandardCharsets.US_ASCII).trim();
    try {
      JobSecret.parse(text);
    } catch (RuntimeException e) {
      throw new IOException(file + " does not hold a key (" + e.getMessage() + "): remove it, and a new one is made");
    }
    return text;
  }

  /**
   * Writes a new random key to {@code file} atomically: written whole beside it, then linked to its
   * name, which fails if another process got there first (its key is then everyone's).
   */
  private static void create(Path file) throws IOException {
    Path tmp = Files.createTempFile(file.getParent(), "job.key.", ".new",
        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    try {
      Files.writeString(tmp, JobSecret.random().text() + "\n", StandardCharsets.US_ASCII);
      try {
        Files.createLink(file, tmp);
      } catch (FileAlreadyExistsException e) {
        // another process made it first
      } catch (UnsupportedOperationException | IOException e) {
        if (!Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
          // a file system without hard links: a plain move (a race here at worst fails one job's handshake)
          Files.move(tmp, file);
        }
      }
    } finally {
      Files.deleteIfExists(tmp);
    }
  }

  /** Refuses {@code p} unless it is this user's own (a directory or regular file, no link) and closed to others. */
  private static void check(Path p, boolean directory) throws IOException {
    String problem = PrivateFile.problem(p, directory, LinkOption.NOFOLLOW_LINKS);
    if (problem != null) {
      throw new IOException(problem);
    }
  }
}
