package dev.vertxrma.impl.coll;

import dev.vertxrma.impl.memory.Memory;
import dev.vertxrma.impl.memory.SharedMapping;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.regex.Pattern;

/**
 * One rank's slot of a communicator's {@link HostBarrier} and the blocks it deposits for an
 * exchange there, in a page of its own that the other
 * ranks of the host map: a flyweight over a small file in the memory segment directory
 * ({@link SharedMapping#directory()}), made by its rank on the communicator's first barrier.
 *
 * <pre>
 *   0  long  token: random, written by the creator, proves which file a peer mapped
 *  64  long  arrived: the last host barrier this rank reached
 * 128  long  parked: n while this rank sleeps in host barrier n, -n once a rank wakes it, else 0
 * 256  int   length, then the bytes, of the block this rank deposited for an even-numbered barrier
 * 2176 int   length, then the bytes, of its block for an odd-numbered barrier
 * </pre>
 *
 * <p>The words sit on cache lines of their own. A peer's page is untrusted input: a name that is
 * not one this class makes, a file of another size or a token that does not match proves nothing,
 * and a word holding an unexpected value can only make a barrier wait (until the job's timeout) or
 * pass early for the rank that wrote it. A mapping is released when its communicator is freed and
 * its last barrier is done ({@link #unmap}), else by a cleaner once nothing can reach the page any
 * more, so a barrier still polling it never reads unmapped memory. All file work is
 * blocking: a worker thread's job.
 */
final class BarrierPage {

  /** File names start with this ({@link SharedMapping#fileName}). */
  static final String PREFIX = SharedMapping.BARRIER_PREFIX;
  static final long BYTES = 4096;
  private static final Pattern NAME = Pattern.compile(PREFIX + "\\d{1,19}(\\.[0-9a-f]{1,16}\\.[0-9a-f]{1,16})?"
      + "-[A-Za-z0-9._-]{1,64}-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");
  /**
   * The longest name this class makes: the prefix, the creator (a pid, its start time and PID
   * namespace), a job name of 64 characters, a UUID and dashes.
   */
  private static final int MAX_NAME = PREFIX.length() + 19 + 2 * 17 + 1 + 64 + 1 + 36;
  private static final int TOKEN = 0;
  private static final int ARRIVED = 64;
  private static final int PARKED = 128;
  private static final int BLOCKS = 256;
  private static final int BLOCK_AREA = 1920;
  /** The largest block a rank deposits for an exchange ({@link CommHostBarrier#exchange}). */
  static final int MAX_BLOCK = BLOCK_AREA - 4;
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final java.lang.ref.Cleaner CLEANER = java.lang.ref.Cleaner.create();

  private final long address;
  private final Path path;
  private final long token;
  private final BarrierWords slot;
  /** Unmaps the page: run by {@link #unmap} or, if nobody did, once the page is unreachable. */
  private final java.lang.ref.Cleaner.Cleanable unmapping;

  private BarrierPage(SharedMapping mapping, Path path, long token) {
    this.address = mapping.segment(0, BYTES).addressForWrite(0);
    this.slot = new BarrierWords(this, null, address + ARRIVED, address + PARKED);
    this.path = path;
    this.token = token;
    this.unmapping = CLEANER.register(this, mapping::unmap);
  }

  /**
   * Unmaps this rank's mapping of the page now (its communicator is freed and its last barrier
   * done): nothing may read or write it after this. Idempotent.
   */
  void unmap() {
    unmapping.clean();
  }

  /**
   * Creates and maps this rank's page of job {@code job}, zeroed but for a new token, its space
   * reserved before it is mapped ({@link SharedMapping#createFile}): a full directory fails here,
   * never at the page's first store.
   *
   * @throws dev.vertxrma.RmaException NO_MEM when the directory has no room for the page,
   *     RMA_SHARED when the directory or the file cannot be made
   */
  static BarrierPage create(String job) {
    Path path = SharedMapping.createFile(SharedMapping.fileName(PREFIX, job), BYTES, "barrier page");
    SharedMapping mapping;
    try {
      mapping = SharedMapping.map(path, BYTES);
    } catch (RuntimeException e) {
      unlinkQuietly(path);
      throw e;
    }
    long token = RANDOM.nextLong() | 1; // never 0: an unwritten page never matches
    BarrierPage page = new BarrierPage(mapping, path, token);
    Memory.putLongVolatile(null, page.address + TOKEN, token);
    return page;
  }

  /**
   * Maps the page a peer describes ({@link #descriptor()}), or returns {@code null} when it does
   * not prove itself: a malformed descriptor, a name this class does not make, a file missing from
   * this rank's directory (another host), of another size, or holding another token.
   */
  static BarrierPage map(byte[] descriptor) {
    if (descriptor.length < 9 || descriptor.length > 8 + MAX_NAME) {
      return null;
    }
    ByteBuffer b = ByteBuffer.wrap(descriptor);
    long token = b.getLong();
    String name = new String(descriptor, 8, descriptor.length - 8, StandardCharsets.UTF_8);
    if (token == 0 || !NAME.matcher(name).matches()) {
      return null;
    }
    try {
      Path path = SharedMapping.directory().resolve(name);
      if (!Files.isRegularFile(path, LinkOption.NOFOLLOW_LINKS) || Files.size(path) != BYTES) {
        return null;
      }
      BarrierPage page = new BarrierPage(SharedMapping.map(path, BYTES), path, token);
      return Memory.getLongVolatile(null, page.address + TOKEN) == token ? page : null;
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  /** What peers need to find and trust this page: its token, then its file name. */
  byte[] descriptor() {
    return SharedMapping.descriptor(token, path);
  }

  /** Removes the file (blocking); the mappings stay valid. */
  void unlink() {
    unlinkQuietly(path);
  }

  private static void unlinkQuietly(Path path) {
    SharedMapping.unlinkQuietly(path, "barrier page");
  }

  /**
   * Writes {@code block} ({@link #MAX_BLOCK} bytes at most) in the area of barriers of
   * {@code number}'s parity; published by the arrival that follows it.
   */
  void deposit(long number, byte[] block) {
    long at = address + BLOCKS + (number & 1) * BLOCK_AREA;
    if (block == null) {
      Memory.putInt(null, at, ABORTED);
      return;
    }
    Memory.putInt(null, at, block.length);
    Memory.copy(block, Memory.ARRAY_BYTE_BASE_OFFSET, null, at + 4, block.length);
  }

  /** The length a rank deposits for a call it failed before taking part: no block. */
  private static final int ABORTED = -1;

  /** Whether the rank deposited no block for the barrier of {@code number}'s parity (it failed the call). */
  boolean aborted(long number) {
    return Memory.getInt(null, address + BLOCKS + (number & 1) * BLOCK_AREA) == ABORTED;
  }

  /**
   * The block deposited for a barrier of {@code number}'s parity, read after that barrier passed;
   * {@code null} if its length is out of bounds (untrusted input).
   */
  byte[] block(long number) {
    long at = address + BLOCKS + (number & 1) * BLOCK_AREA;
    int length = Memory.getInt(null, at);
    if (length < 0 || length > MAX_BLOCK) {
      return null;
    }
    byte[] b = new byte[length];
    Memory.copy(null, at + 4, b, Memory.ARRAY_BYTE_BASE_OFFSET, length);
    return b;
  }

  /** This rank's slot of the communicator's host barrier. */
  BarrierSlot slot() {
    return slot;
  }
}
