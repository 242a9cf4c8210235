package dev.vertxrma.impl.comm;

import dev.vertxrma.Comm;
import dev.vertxrma.impl.memory.SharedMapping;
import io.vertx.core.Future;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.List;

/**
 * MPI_Comm_split_type with MPI_COMM_TYPE_SHARED: which ranks of a communicator can share memory,
 * learnt by proof rather than by host names. Every rank writes a file with a random token into
 * its memory segment directory ({@link SharedMapping#directory()}, {@code /dev/shm} on Linux), the
 * ranks exchange the files' names and tokens, and each rank reads the others' files in its own
 * directory: a rank whose token it finds there shares that directory with it, so its memory can be
 * mapped by both. JVMs in containers or network namespaces with directories of their own are thus
 * different "hosts", whatever their host names. The ranks that share a directory form one
 * communicator, its color the lowest parent rank among them.
 *
 * <p>File work runs on a worker, never on an event loop. A rank whose file cannot be written (a
 * full or read-only directory) proves nothing and is a domain of its own, with one log line. The
 * files are 0600, named {@code domain-PID.START.NS-JOB-UUID} ({@link SharedMapping#fileName}), and
 * removed once every rank has read them.
 */
final class SharedMemoryDomain {

  private static final System.Logger LOG = System.getLogger(SharedMemoryDomain.class.getName());
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final int TOKEN_BYTES = 16;
  /** The names {@link SharedMapping#fileName} gives proof files: a plain file name of the directory. */
  private static final java.util.regex.Pattern NAME = java.util.regex.Pattern.compile(SharedMapping.DOMAIN_PREFIX
      + "\\d{1,19}(\\.[0-9a-f]{1,16}\\.[0-9a-f]{1,16})?-[A-Za-z0-9._-]{1,128}-[0-9a-f-]{36}");

  private SharedMemoryDomain() {
  }

  /** The ranks of {@code parent} that share memory with this one, ordered by {@code key} (ties: rank in parent). */
  static Future<Comm> split(CommImpl parent, int key) {
    var context = parent.endpoint().context();
    Path dir = SharedMapping.directory();
    // named as every file of the job, so that its launcher's cleanup and the next JVM's sweep find it
    String name = SharedMapping.fileName(SharedMapping.DOMAIN_PREFIX, parent.process().job().jobName());
    byte[] token = new byte[TOKEN_BYTES];
    RANDOM.nextBytes(token);
    Future<byte[]> mine = context.executeBlocking(() -> write(dir.resolve(name), token) ? proof(name, token)
        : new byte[0], false);
    Future<List<byte[]>> all = parent.collectives().allgather(mine);
    Future<Integer> color = all.compose(proofs -> context.executeBlocking(() -> lowestSharer(dir, proofs,
        parent.rank()), false));
    return CommFactory.split(parent, color, key, "splitType(SHARED)")
        .onComplete(done -> context.executeBlocking(() -> Files.deleteIfExists(dir.resolve(name)), false));
  }

  /** Writes {@code token} to a new file only this user can read; false if it cannot be written. */
  private static boolean write(Path file, byte[] token) {
    try {
      Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
      Files.write(file, token);
      return true;
    } catch (UnsupportedOperationException e) {
      return writePlain(file, token);
    } catch (FileAlreadyExistsException e) {
      return false; // a random name taken: prove nothing rather than read someone else's file
    } catch (IOException e) {
      LOG.log(System.Logger.Level.WARNING, "splitType(SHARED): cannot write " + file + " (" + e
          + "); this rank shares memory with no other rank");
      return false;
    }
  }

  private static boolean writePlain(Path file, byte[] token) {
    try {
      Files.write(file, token);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /** A rank's proof: the file's name, then its token. */
  private static byte[] proof(String name, byte[] token) {
    byte[] n = name.getBytes(StandardCharsets.UTF_8);
    return ByteBuffer.allocate(4 + n.length + token.length).putInt(n.length).put(n).put(token).array();
  }

  /**
   * The lowest rank whose proof holds in {@code dir} (this rank's own, {@code self}, always
   * counts). A proof is untrusted input: a malformed one, a name that is not a plain file name
   * of ours, or a file that is missing or holds other bytes proves nothing.
   */
  static int lowestSharer(Path dir, List<byte[]> proofs, int self) {
    for (int r = 0; r < proofs.size() && r < self; r++) {
      if (holds(dir, proofs.get(r))) {
        return r;
      }
    }
    return self;
  }

  private static boolean holds(Path dir, byte[] proof) {
    if (proof.length < 4 + TOKEN_BYTES) {
      return false;
    }
    ByteBuffer b = ByteBuffer.wrap(proof);
    int n = b.getInt();
    if (n <= 0 || n != proof.length - 4 - TOKEN_BYTES) {
      return false;
    }
    String name = new String(proof, 4, n, StandardCharsets.UTF_8);
    if (!NAME.matcher(name).matches()) {
      return false;
    }
    byte[] token = Arrays.copyOfRange(proof, 4 + n, proof.length);
    try {
      Path file = dir.resolve(name);
      return Files.size(file) == TOKEN_BYTES && Arrays.equals(Files.readAllBytes(file), token);
    } catch (IOException e) {
      return false;
    }
  }
}
