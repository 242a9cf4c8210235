package dev.vertxrma.impl.win;

import dev.vertxrma.RmaException;
import dev.vertxrma.impl.comm.CommImpl;
import dev.vertxrma.impl.memory.SharedMapping;
import dev.vertxrma.impl.memory.WindowMemory;
import java.nio.file.Path;
import java.security.SecureRandom;

/**
 * One rank's part of an {@code allocate} window on the on-node path (ARCHITECTURE decision 16):
 * a file in the user's segment directory holding the window's {@link WindowControl} block and,
 * after it, the window memory, mapped by this rank and by the ranks of the host's other JVMs
 * ({@link SegmentPeers}). Its descriptor — the file's name and a random token written in the block
 * — travels in the window's creation agreement; a peer that can open the file and finds the token
 * shares this rank's memory, whatever its host name. The file is removed once every rank has
 * mapped what it could (the mappings stay valid), and names its creator's process so that any later
 * JVM of the host removes it at once if that process died first ({@link SharedMapping#removeStale}).
 */
final class HostSegment {

  private static final SecureRandom RANDOM = new SecureRandom();
  /** Prefix of every window segment file ({@link SharedMapping#fileName}). */
  static final String PREFIX = SharedMapping.WINDOW_PREFIX;

  /**
   * Bytes of a segment file before its window memory: the control block, in a page of its own,
   * mapped apart from the memory. The memory's mapping goes when the window is freed; the block's
   * only once nothing can reach its words any more (a cleaner of the {@link WindowControl}): the
   * owner word is still released, and late same-JVM origins may still try it, after the free.
   */
  static final long CONTROL_PAGE = 4096;
  private static final java.lang.ref.Cleaner CLEANER = java.lang.ref.Cleaner.create();

  private final Path path;
  private final SharedMapping mapping;
  private final WindowControl control;
  private final WindowMemory memory;
  private final long token;

  private HostSegment(Path path, SharedMapping mapping, WindowControl control, WindowMemory memory, long token) {
    this.path = path;
    this.mapping = mapping;
    this.control = control;
    this.memory = memory;
    this.token = token;
  }

  /**
   * Whether a window of {@code size} bytes at this rank of {@code wc} takes the on-node path: the
   * job shares memory between JVMs ({@code -Drma.shm}), some rank of the communicator lives in
   * another JVM, and the file fits one mapping. The same answer at every rank of {@code wc} but
   * for the size, which only decides whether this rank's part is shared.
   */
  static boolean wanted(CommImpl wc, long size) {
    if (!wc.process().job().sharedMemory() || size < 0
        || Math.max(size, 8) > SharedMapping.MAX_LENGTH) {
      return false;
    }
    for (int r = 0; r < wc.size(); r++) {
      if (!wc.endpoint().isLocal(r)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Creates and maps the file of a window of {@code size} bytes for {@code ranks} ranks of job
   * {@code job}, its space reserved before it is mapped ({@link SharedMapping#createFile}) and every
   * page of it touched here: no store into it can fault later for want of room. Blocking file I/O
   * and touching: a worker thread's job.
   *
   * @throws RmaException NO_MEM when the segment directory has too little room for the file (the
   *     message names the directory and the fix; the caller falls back to private memory),
   *     RMA_SHARED when the directory or the file cannot be made
   */
  static HostSegment create(long size, int ranks, String job) {
    long ctrl = controlBytes(ranks);
    long bytes = Math.max(size, 8);
    Path path = SharedMapping.createFile(SharedMapping.fileName(PREFIX, job), ctrl + bytes, "window segment of "
        + size + " bytes");
    SharedMapping block;
    SharedMapping mapping;
    try {
      block = SharedMapping.map(path, 0, ctrl);
      try {
        mapping = SharedMapping.map(path, ctrl, bytes);
      } catch (RuntimeException e) {
        block.unmap();
        throw e;
      }
    } catch (RuntimeException e) {
      unlinkQuietly(path);
      throw e;
    }
    long token = RANDOM.nextLong() | 1; // never 0: an unwritten block never matches
    WindowControl control = WindowControl.create(block.segment(0, ctrl).addressForWrite(0), ranks, token);
    CLEANER.register(control, block::unmap);
    // the file's pages exist already (reserved, zero): reading one byte of each maps them now, on
    // this worker, as a private window's are zeroed: the first stores then fault no page on an event loop
    mapping.touch(0, bytes);
    WindowMemory memory = WindowMemory.segment(mapping.segment(0, bytes), size, mapping::unmap);
    return new HostSegment(path, mapping, control, memory, token);
  }

  /** Bytes before the window memory in a segment file of a window of {@code ranks} ranks: whole pages. */
  static long controlBytes(int ranks) {
    return (WindowControl.bytes(ranks) + CONTROL_PAGE - 1) / CONTROL_PAGE * CONTROL_PAGE;
  }

  /** The window memory in the file (released with the window; its release unmaps the file). */
  WindowMemory memory() {
    return memory;
  }

  /** The control block at the head of the file. */
  WindowControl control() {
    return control;
  }

  /** What peers need to find and trust this file: its token and name. */
  byte[] descriptor() {
    return SharedMapping.descriptor(token, path);
  }

  /** Removes the file (blocking); every rank has mapped it by now, and the mappings stay. */
  void unlink() {
    unlinkQuietly(path);
  }

  private static void unlinkQuietly(Path path) {
    SharedMapping.unlinkQuietly(path, "window segment");
  }
}
