package dev.vertxrma;

import dev.vertxrma.impl.win.WindowFactory;
import io.vertx.core.Future;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * An RMA window (MPI_Win): memory each rank of a communicator exposes to the others, and the
 * one-sided operations and epoch synchronizations on it. Every call returns a {@link Future};
 * nothing blocks.
 *
 * <p><b>Operations.</b> {@code put}, {@code get}, {@code accumulate}, {@code getAccumulate},
 * {@code fetchAndOp} and {@code compareAndSwap} must be called inside an access epoch (fence,
 * start/complete, lock/unlock, lockAll/unlockAll). Their futures complete at <em>origin</em>
 * completion: the origin buffer may be reused ({@code put}, {@code accumulate}) or holds the
 * data ({@code get}, result buffers). The operation is complete at the target when the epoch's
 * synchronization completes ({@link #fence}, {@link #complete}, unlock, flush). The target
 * displacement is scaled by the <em>target's</em> displacement unit. A target of
 * {@link Comm#PROC_NULL} makes an operation a no-op.
 *
 * <p><b>Buffers.</b> As for {@link Comm}: Java primitive arrays or Chronicle stores, and
 * {@code null} for a buffer of count 0 (the operation then changes nothing, but it must still be
 * issued in an epoch). An operation's buffers belong to the library from the call until the
 * operation's own future completes, and never after: a {@code put} or {@code accumulate} to a
 * rank in another JVM packs its data when issued (its future completes at once); to a rank in
 * this JVM the target copies straight from the origin buffer, at once when its window is free,
 * else when it gets to it (the future completes then). A {@code get} or a result buffer is
 * written just before its future completes; {@code compareAndSwap}'s value and compare buffers
 * are copied when issued. A flush, unlock, complete or fence that fails with TIMEOUT returns no
 * buffer: keep each one until its operation's own future has completed.
 *
 * <p><b>Errors.</b> Futures fail with {@link RmaException}: {@link ErrorClass#RMA_RANGE} when the
 * target range leaves the target window, {@link ErrorClass#RMA_SYNC} outside an epoch or on a
 * wrong synchronization sequence, {@link ErrorClass#TYPE} for datatype mismatches (also a Java
 * array whose element type contradicts its datatype, as for {@link Comm}),
 * {@link ErrorClass#OP} for an op not defined on the datatype, {@link ErrorClass#RANK},
 * {@link ErrorClass#COUNT}, {@link ErrorClass#BUFFER}, {@link ErrorClass#WIN} after
 * {@link #free()}. A rejected operation leaves the target window unchanged.
 *
 * <p><b>Which call reports a failed operation.</b> An operation rejected when it is called (an
 * argument, its epoch, a target range outside the window size announced at creation) fails its
 * own future only. An operation the target rejects fails its own future when that future waits
 * for the target (a target in this JVM, {@code get}, {@code rget}, the fetching operations), and
 * it is reported by the first synchronization call that completes it: {@link #flush} or
 * {@link #flushLocal} of its target, {@link #flushAll}, {@link #flushLocalAll}, {@link #unlock}
 * of its target, {@link #unlockAll}, {@link #complete} or {@link #fence}. That call fails with the
 * first such error once its synchronization itself has completed (the epoch is closed, the locks
 * released). Later synchronization calls do not report it again, and no call reports the error of
 * an operation it does not complete: a flush or unlock of another target, an operation issued
 * after the call, or a {@code fence(NOPRECEDE)}. The rule is the same whether the target runs in
 * this JVM or in another.
 */
public interface Win {

  /** How the window's memory was provided (MPI_WIN_CREATE_FLAVOR). */
  enum Flavor {
    /** {@link Win#create}: memory given by the caller. */
    CREATE,
    /** {@link Win#allocate}: memory allocated by the library. */
    ALLOCATE,
    /** {@link Win#createDynamic}: memory attached and detached at run time. */
    DYNAMIC,
    /** {@link Win#allocateShared}: memory every rank of the window can load from and store to directly. */
    SHARED
  }

  /**
   * A rank's segment of a shared-memory window (what MPI_Win_shared_query returns).
   *
   * @param memory the segment, for direct loads and stores (valid until the window is freed)
   * @param size size of the segment in bytes
   * @param dispUnit the owner's displacement unit
   */
  record SharedSegment(BytesStore<?, ?> memory, long size, int dispUnit) {
  }

  /** The memory model (MPI_WIN_MODEL): always unified, public and private copies are the same memory. */
  enum MemoryModel {
    /** MPI_WIN_UNIFIED. */
    UNIFIED
  }

  /**
   * MPI_Win_create: a window over {@code memory} (the caller's Chronicle store, kept reserved
   * until {@link #free()}), collective over {@code comm}. Ranks may give different sizes (0 too)
   * and displacement units. Completes once every rank has created its part.
   */
  static Future<Win> create(Comm comm, BytesStore<?, ?> memory, int dispUnit, Info info) {
    return WindowFactory.create(comm, memory, dispUnit, info);
  }

  /**
   * MPI_Win_allocate: a window of {@code size} bytes of zeroed off-heap memory owned by the
   * library (a fixed native store, released by {@link #free()}), collective over {@code comm}.
   * Fails at every rank if it fails at one: {@link ErrorClass#NO_MEM}, naming the size, when a
   * rank cannot get that much native memory; {@link ErrorClass#ARG} for a negative size or a
   * displacement unit below 1.
   */
  static Future<Win> allocate(Comm comm, long size, int dispUnit, Info info) {
    return WindowFactory.allocate(comm, size, dispUnit, info);
  }

  /**
   * MPI_Win_create_dynamic: a window with no memory yet, collective over {@code comm}; memory is
   * added with {@link #attach} and addressed by {@link #address} values (displacement unit 1).
   */
  static Future<Win> createDynamic(Comm comm, Info info) {
    return WindowFactory.createDynamic(comm, info);
  }

  /**
   * MPI_Win_allocate_shared: like {@link #allocate}, but every rank can also load and store
   * directly into every other rank's segment ({@link #sharedQuery}). All ranks of {@code comm}
   * must run on one host (the segments live in one memory-mapped file), else the future fails
   * with {@link ErrorClass#RMA_SHARED}; {@link ErrorClass#NO_MEM} when the segments of all ranks
   * add up to more than one mapping can hold (2^31 - 1 bytes).
   */
  static Future<Win> allocateShared(Comm comm, long size, int dispUnit, Info info) {
    return WindowFactory.allocateShared(comm, size, dispUnit, info);
  }

  /**
   * MPI_Get_address: the address of byte {@code offset} of a native store, usable as a target
   * displacement of a dynamic window from any rank once the store is attached there.
   */
  static long address(BytesStore<?, ?> memory, long offset) {
    return WindowFactory.address(memory, offset);
  }

  // ------------------------------------------------------------------ attributes

  /** The communicator the window was created over. */
  Comm comm();

  /** The group of the window (MPI_Win_get_group). */
  Group group();

  /** This rank's window memory (MPI_WIN_BASE), for local loads and stores. */
  BytesStore<?, ?> memory();

  /** Size in bytes of this rank's window (MPI_WIN_SIZE). */
  long size();

  /** This rank's displacement unit in bytes (MPI_WIN_DISP_UNIT). */
  int dispUnit();

  /** Size in bytes of {@code rank}'s window, as announced at creation. */
  long size(int rank);

  /** Displacement unit of {@code rank}'s window, as announced at creation. */
  int dispUnit(int rank);

  /** MPI_WIN_CREATE_FLAVOR. */
  Flavor flavor();

  /** MPI_WIN_MODEL. */
  MemoryModel model();

  /** The hints in effect (MPI_Win_get_info). */
  Info info();

  /** The window's name (MPI_Win_get_name). */
  String name();

  /** Sets the window's name (MPI_Win_set_name). */
  void setName(String name);

  // ------------------------------------------------------------------ communication

  /**
   * MPI_Put: writes {@code originCount} elements of {@code originType} from {@code origin} to
   * {@code targetCount} elements of {@code targetType} at displacement {@code targetDisp} of
   * {@code targetRank}'s window.
   */
  Future<Void> put(Object origin, int originOffset, int originCount, Datatype originType, int targetRank,
      long targetDisp, int targetCount, Datatype targetType);

  /** MPI_Put with the same count and datatype at origin and target. */
  default Future<Void> put(Object origin, int originOffset, int count, Datatype type, int targetRank, long targetDisp) {
    return put(origin, originOffset, count, type, targetRank, targetDisp, count, type);
  }

  /** MPI_Get: reads target data into {@code origin}; the future completes when it is there. */
  Future<Void> get(Object origin, int originOffset, int originCount, Datatype originType, int targetRank,
      long targetDisp, int targetCount, Datatype targetType);

  /** MPI_Get with the same count and datatype at origin and target. */
  default Future<Void> get(Object origin, int originOffset, int count, Datatype type, int targetRank, long targetDisp) {
    return get(origin, originOffset, count, type, targetRank, targetDisp, count, type);
  }

  /**
   * MPI_Accumulate: {@code target = target op origin}, element-wise atomic with respect to other
   * accumulates on the same location; accumulates of one origin to one target are applied in
   * order. Both datatypes must be built from the same predefined type.
   */
  Future<Void> accumulate(Object origin, int originOffset, int originCount, Datatype originType, int targetRank,
      long targetDisp, int targetCount, Datatype targetType, Op op);

  /** MPI_Accumulate with the same count and datatype at origin and target. */
  default Future<Void> accumulate(Object origin, int originOffset, int count, Datatype type, int targetRank,
      long targetDisp, Op op) {
    return accumulate(origin, originOffset, count, type, targetRank, targetDisp, count, type, op);
  }

  /**
   * MPI_Get_accumulate: atomically fetches the target data into {@code result} and then applies
   * {@code target = target op origin} ({@link Op#NO_OP}: fetch only, {@code origin} may be null).
   */
  Future<Void> getAccumulate(Object origin, int originOffset, int originCount, Datatype originType, Object result,
      int resultOffset, int resultCount, Datatype resultType, int targetRank, long targetDisp, int targetCount,
      Datatype targetType, Op op);

  /** MPI_Fetch_and_op: one element of a predefined {@code type}: result = old target, target = target op origin. */
  Future<Void> fetchAndOp(Object origin, int originOffset, Object result, int resultOffset, Datatype type,
      int targetRank, long targetDisp, Op op);

  /** MPI_Fetch_and_op on one {@code long}: completes with the target's previous value. */
  Future<Long> fetchAndOp(long value, int targetRank, long targetDisp, Op op);

  /**
   * MPI_Compare_and_swap: one element of an integer, logical or byte type: result = old target;
   * if old target equals {@code compare}, target = origin.
   */
  Future<Void> compareAndSwap(Object origin, int originOffset, Object compare, int compareOffset, Object result,
      int resultOffset, Datatype type, int targetRank, long targetDisp);

  /** MPI_Compare_and_swap on one {@code long}: completes with the target's previous value. */
  Future<Long> compareAndSwap(long compare, long value, int targetRank, long targetDisp);

  // ------------------------------------------------------------------ active target

  /**
   * MPI_Win_fence, collective: closes the current fence epoch and opens the next one (unless
   * {@link Mode#NOSUCCEED}). Completes when every operation of the closed epoch is complete at
   * its origin and at its target, everywhere. Operations issued after this call, even before its
   * future completes, belong to the next epoch (their targets hold them until they have passed
   * this fence too). Assertions: NOSTORE, NOPUT, NOPRECEDE, NOSUCCEED. Fails with the first
   * unreported error of the operations it completes; RMA_SYNC with NOPRECEDE when operations were
   * issued in the fence epoch it closes, or inside a post/start or lock epoch.
   */
  Future<Void> fence(Mode... assertions);

  /**
   * MPI_Win_post: exposes this rank's window to the ranks of {@code group}; completes at once.
   * Assertions: NOCHECK, NOSTORE, NOPUT.
   */
  Future<Void> post(Group group, Mode... assertions);

  /**
   * MPI_Win_start: opens an access epoch to the ranks of {@code group}; completes once each of
   * them has posted (at once with {@link Mode#NOCHECK}). Operations may be issued before it
   * completes: they are held until then. If no post arrives within the job's wait timeout it fails
   * with TIMEOUT and is withdrawn: the access epoch ends, the operations held for it fail with
   * that TIMEOUT, a {@code complete} already issued fails with it at once, and the next
   * {@code complete} fails at once with RMA_SYNC; the window stays usable.
   */
  Future<Void> start(Group group, Mode... assertions);

  /**
   * MPI_Win_complete: ends the access epoch; completes when its operations are complete at the
   * origin. Fails with the first unreported error of those operations; RMA_SYNC without a start.
   */
  Future<Void> complete();

  /**
   * MPI_Win_wait ({@code wait} is taken by {@link Object}): ends the exposure epoch; completes when
   * every rank of the post group has called complete and its operations are done here.
   */
  Future<Void> waitFor();

  /** MPI_Win_test: {@code true} (and the exposure epoch ended) if waitFor would complete now. */
  Future<Boolean> test();

  // ------------------------------------------------------------------ passive target

  /**
   * MPI_Win_lock: starts a passive-target access epoch to {@code rank}; completes when the lock
   * is granted (at once with {@link Mode#NOCHECK}: the target still records the lock, in the
   * background, and operations issued before it has are held until then; the assertion never
   * lets an operation past the target's lock check). Operations may be issued before the
   * future completes: they belong to this epoch. Exclusive locks exclude every other lock;
   * shared locks exclude exclusive ones; requests are granted in arrival order, so exclusive
   * requests are not starved. RMA_SYNC if this rank already locks {@code rank}, inside a
   * fence/post/start epoch, or on a window created with {@code no_locks=true}; RANK for a rank
   * outside the window's group. {@link Comm#PROC_NULL}: a no-op that succeeds at once (no epoch
   * is opened).
   */
  Future<Void> lock(LockType type, int rank, Mode... assertions);

  /**
   * MPI_Win_unlock: completes when every operation of the epoch is complete at origin and target
   * and the lock is released. RMA_SYNC without a matching lock. Fails with the first error of the
   * epoch's operations that no {@link #flush} has reported. {@link Comm#PROC_NULL}: a no-op.
   */
  Future<Void> unlock(int rank);

  /** MPI_Win_lock_all: a shared lock on every rank of the window; completes when all are granted. */
  Future<Void> lockAll(Mode... assertions);

  /**
   * MPI_Win_unlock_all: ends the lockAll epoch (every operation complete, every lock released).
   * Fails with the first error of the epoch's operations that no flush has reported.
   */
  Future<Void> unlockAll();

  /**
   * MPI_Win_flush: completes when every operation issued so far to {@code rank} is complete at
   * origin and target; the epoch stays open. Fails with the first error among those operations
   * that no earlier synchronization call has reported; once reported here, an error is not
   * reported again by a later flush, {@code unlock} or {@code unlockAll}, and the errors of
   * operations to other targets are left to the calls that complete them (see "Which call reports
   * a failed operation" above). RMA_SYNC outside a passive-target epoch on {@code rank}.
   * {@link Comm#PROC_NULL}: a no-op that succeeds at once.
   */
  Future<Void> flush(int rank);

  /** MPI_Win_flush_all: {@link #flush} for every target (and reports errors as it does). */
  Future<Void> flushAll();

  /**
   * MPI_Win_flush_local: completes when every operation issued so far to {@code rank} is complete
   * at the origin. (vertx-rma completes them at the target too: the stronger guarantee is allowed.)
   */
  Future<Void> flushLocal(int rank);

  /** MPI_Win_flush_local_all: {@link #flushLocal} for every target. */
  Future<Void> flushLocalAll();

  /**
   * MPI_Win_sync: a memory barrier between this rank's loads/stores and the window (in the unified
   * model, orders them with shared-memory peers). RMA_SYNC outside a passive-target epoch.
   */
  Future<Void> sync();

  // ------------------------------------------------------------------ request-based operations

  /**
   * MPI_Rput: {@link #put} inside a passive-target epoch (RMA_SYNC otherwise); the future is the
   * request: it completes at local completion (the origin buffer may be reused).
   */
  Future<Void> rput(Object origin, int originOffset, int originCount, Datatype originType, int targetRank,
      long targetDisp, int targetCount, Datatype targetType);

  /** MPI_Rput with the same count and datatype at origin and target. */
  default Future<Void> rput(Object origin, int originOffset, int count, Datatype type, int targetRank, long targetDisp) {
    return rput(origin, originOffset, count, type, targetRank, targetDisp, count, type);
  }

  /** MPI_Rget: {@link #get} inside a passive-target epoch; completes when the data is in the origin buffer. */
  Future<Void> rget(Object origin, int originOffset, int originCount, Datatype originType, int targetRank,
      long targetDisp, int targetCount, Datatype targetType);

  /** MPI_Rget with the same count and datatype at origin and target. */
  default Future<Void> rget(Object origin, int originOffset, int count, Datatype type, int targetRank, long targetDisp) {
    return rget(origin, originOffset, count, type, targetRank, targetDisp, count, type);
  }

  /** MPI_Raccumulate: {@link #accumulate} inside a passive-target epoch; completes at local completion. */
  Future<Void> raccumulate(Object origin, int originOffset, int originCount, Datatype originType, int targetRank,
      long targetDisp, int targetCount, Datatype targetType, Op op);

  /** MPI_Rget_accumulate: {@link #getAccumulate} inside a passive-target epoch; completes when the result is in. */
  Future<Void> rgetAccumulate(Object origin, int originOffset, int originCount, Datatype originType, Object result,
      int resultOffset, int resultCount, Datatype resultType, int targetRank, long targetDisp, int targetCount,
      Datatype targetType, Op op);

  // ------------------------------------------------------------------ dynamic and shared windows

  /**
   * MPI_Win_attach: exposes a native store in this rank's dynamic window (reserved until
   * detached). RMA_FLAVOR on a window that is not dynamic; RMA_ATTACH if it overlaps attached memory.
   */
  Future<Void> attach(BytesStore<?, ?> memory);

  /**
   * MPI_Win_detach: removes an attached store; operations that arrive later fail with RMA_RANGE.
   * Operations are applied on this rank's event loop, so none is touching the store when detach
   * completes and the caller may then release it.
   */
  Future<Void> detach(BytesStore<?, ?> memory);

  /**
   * MPI_Win_shared_query: {@code rank}'s segment of a shared-memory window, for direct loads and
   * stores. RMA_FLAVOR if the window is not a shared-memory window.
   */
  Future<SharedSegment> sharedQuery(int rank);

  // ------------------------------------------------------------------ lifetime

  /**
   * MPI_Win_free, collective: completes once every rank has freed the window; then the memory is
   * released (allocate, shared), unreserved (create) or detached (dynamic). Fails with RMA_SYNC
   * inside an access, exposure or lock epoch; any later call fails with {@link ErrorClass#WIN}.
   */
  Future<Void> free();
}
