package dev.vertxrma;

import dev.vertxrma.impl.win.WindowFactory;
import io.vertx.core.Future;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * An RMA window (MPI_Win): memory each rank of a communicator exposes to the others, and the
 * one-sided operations and epoch synchronizations on it. Every call returns a {@link Future};
 * nothing blocks. As for {@link Comm}, a call may be made from any thread: it is moved onto the
 * rank's event loop, in call order, and its future completes there.
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
 * <p><b>Buffers.</b> As for {@link Comm}: {@link Buf}s of arrays, stores or byte buffers, and
 * {@code null} for a buffer of count 0 (the operation then changes nothing, but it must still be
 * issued in an epoch). An operation's buffers belong to the library from the call until the
 * operation's own future completes, and never after: a {@code put} or {@code accumulate} to a
 * rank in another JVM packs its data when issued (its future completes at once), or, from 64 KiB
 * of data on, when the connection can take it (its future completes then, so that a run of large
 * puts is not all copied into memory before the first leaves); to a rank in
 * this JVM the target copies straight from the origin buffer, at once when its window is free,
 * else when it gets to it (the future completes then). A {@code get} or a result buffer is
 * written just before its future completes; {@code compareAndSwap}'s value and compare buffers,
 * like every origin buffer, are read until its future completes (in this JVM the target reads
 * them in place). An operation issued before its lock is granted or its {@code start} is
 * matched reads its buffers when it runs, later. A flush, unlock, complete or fence that fails with TIMEOUT returns no
 * buffer: keep each one until its operation's own future has completed.
 *
 * <p><b>Errors.</b> Futures fail with {@link RmaException}. The operations check, when called:
 * {@link ErrorClass#RMA_SYNC} outside an access epoch to the target (or for a target outside the
 * start group); {@link ErrorClass#RANK} for a target outside {@code [0, size())};
 * {@link ErrorClass#RMA_RANGE} when the target range leaves the target window;
 * {@link ErrorClass#TYPE} for a null or uncommitted datatype, type signatures that do not match,
 * or a Java array whose element type contradicts its datatype; {@link ErrorClass#TRUNCATE} when
 * the receiving side of an operation holds less data than the sending side;
 * {@link ErrorClass#OP} for an op not defined on the datatype; {@link ErrorClass#COUNT},
 * {@link ErrorClass#BUFFER} and {@link ErrorClass#ARG} for buffers as in {@link Comm};
 * {@link ErrorClass#WIN} after {@link #free()}. The target checks again and may reject an
 * operation with {@link ErrorClass#RMA_RANGE} (memory of a dynamic window not attached there),
 * {@link ErrorClass#RMA_SYNC} (mismatched epochs) or {@link ErrorClass#WIN} (window freed there).
 * Every call also fails with {@link ErrorClass#TIMEOUT} when a wait exceeds
 * {@link JobOptions#getWaitTimeoutMs()}, {@link ErrorClass#PROC_FAILED} when a rank it waits for
 * is lost, {@link ErrorClass#COMM} after the job ended. A rejected operation leaves the target
 * window unchanged.
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
 *
 * <p><b>Notified RMA</b> (MPI 5.1 draft): {@code putNotify}, {@code getNotify},
 * {@code accumulateNotify}, {@code getAccumulateNotify} and their request forms also increment a
 * counter at the target once their data is there; the target reads its counters
 * ({@link #notifyValue}, {@link #resetNotifyValue}) or waits for them ({@link #awaitNotify}).
 * See docs/notifications.md.
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
   * A rank's memory in a window as MPI_Win_shared_query returns it.
   *
   * @param memory the segment, for direct loads and stores (valid until the window is freed);
   *     {@code null} (size 0) where the rank's memory is not reachable by load and store
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
   * MPI_Win_create: a window over the caller's memory, collective over {@code comm}. Ranks may
   * give different sizes (0 too) and displacement units.
   *
   * @param comm the communicator whose ranks all call this
   * @param memory this rank's part: a native or {@code byte[]}-backed Chronicle store, kept
   *     reserved until {@link #free()}; {@code null} for none (size 0 at this rank: every
   *     operation aimed at it fails with {@link ErrorClass#RMA_RANGE}, and {@link #memory()}
   *     is an empty placeholder)
   * @param dispUnit this rank's displacement unit in bytes, {@code >= 1}
   * @param info hints ({@link Info}), or {@code null} for none
   * @return completes with the window once every rank has created its part. Fails at every rank
   *     when one rank's memory is refused: {@link ErrorClass#BUFFER} for a released store
   *     or one without a native address, {@link ErrorClass#ARG} for a Chronicle {@code Bytes} or a
   *     store neither native nor {@code byte[]}-backed. Fails at the calling rank only with
   *     {@link ErrorClass#ARG} for a displacement unit below 1 (the other ranks then fail with
   *     TIMEOUT) and with {@link ErrorClass#COMM} for a communicator that is not the library's or
   *     whose job ended.
   */
  static Future<Win> create(Comm comm, BytesStore<?, ?> memory, int dispUnit, Info info) {
    return WindowFactory.create(comm, memory, dispUnit, info);
  }

  /**
   * MPI_Win_allocate: a window of zeroed off-heap memory owned by the library (a fixed native
   * store, released by {@link #free()}), collective over {@code comm}. A part of 1 MiB or more is
   * allocated and zeroed on a worker thread, in steps the JVM can reach a safepoint between (about
   * a second per GiB), never on the rank's event loop; the future completes on the rank's context.
   *
   * @param comm the communicator whose ranks all call this
   * @param size this rank's part in bytes, {@code >= 0}
   * @param dispUnit this rank's displacement unit in bytes, {@code >= 1}
   * @param info hints ({@link Info}), or {@code null} for none
   * @return completes with the window once every rank has created its part. Fails at every rank
   *     when it fails at one: {@link ErrorClass#NO_MEM}, naming the size, when a rank cannot get
   *     that much native memory or its host has less memory available than that (Linux:
   *     {@code MemAvailable + SwapFree}; the window is refused rather than the JVM killed by the
   *     kernel as it is zeroed); {@link ErrorClass#ARG} for a negative size; {@link ErrorClass#INFO}
   *     for a value {@link Info#MINIMUM_MEMORY_ALIGNMENT} does not take. Fails at the calling
   *     rank only, as for {@link #create}, for a displacement unit below 1 and with
   *     {@link ErrorClass#COMM}.
   */
  static Future<Win> allocate(Comm comm, long size, int dispUnit, Info info) {
    return WindowFactory.allocate(comm, size, dispUnit, info);
  }

  /**
   * MPI_Win_create_dynamic: a window with no memory yet, collective over {@code comm}; memory is
   * added with {@link #attach} and addressed by {@link #address} values (displacement unit 1).
   * Its base is MPI_BOTTOM: {@link #baseAddress()} is 0, {@link #size()} is 0, and
   * {@link #memory()} fails with {@link ErrorClass#RMA_FLAVOR} (no store stands at address 0). An
   * access may span stores attached end to end ({@link #attach}).
   *
   * @param comm the communicator whose ranks all call this
   * @param info hints ({@link Info}), or {@code null} for none
   * @return completes with the window once every rank has created it. Fails with
   *     {@link ErrorClass#COMM} as for {@link #create}; TIMEOUT when a rank does not take part.
   */
  static Future<Win> createDynamic(Comm comm, Info info) {
    return WindowFactory.createDynamic(comm, info);
  }

  /**
   * MPI_Win_allocate_shared: like {@link #allocate}, but every rank can also load and store
   * directly into every other rank's segment ({@link #sharedQuery}). All ranks of {@code comm}
   * must share memory (one host, in JVMs that share its memory segment directory; a communicator
   * from {@link Comm#splitType} with {@link SplitType#SHARED} is such a one): the segments live in
   * one memory-mapped file, created zero-filled under a random name by rank 0 in {@code /dev/shm}
   * (else the temporary directory) and removed once every rank has mapped it; a rank that finds
   * no such file does not share rank 0's memory, whatever its host name. Creating, mapping,
   * removing and (at {@link #free()}) unmapping the file run on worker threads, never on an event
   * loop. A file that cannot be
   * removed is logged at WARNING and tried again twice, then logged at ERROR with its path and
   * left to be deleted when the JVM exits; the window works all the same.
   *
   * <p>The segments are contiguous, as MPI requires by default: rank r's segment starts at the
   * byte after rank r-1's last, so a program may compute a peer's address from its own; only the
   * start of the whole (the lowest rank's segment) is aligned
   * ({@link Info#MINIMUM_MEMORY_ALIGNMENT}, default 16; it starts on a page), and a rank's words
   * may be unaligned when a lower rank's size is odd (RMA operations and accumulates work on them
   * all the same: they never need aligned words). With {@link Info#ALLOC_SHARED_NONCONTIG}
   * {@code "true"} (at any rank) each segment starts on a boundary of that alignment (at least 64
   * bytes, a cache line), padding between them. {@link #info()} reports both values in use.
   *
   * @param comm the communicator whose ranks all call this
   * @param size this rank's segment in bytes, {@code >= 0}
   * @param dispUnit this rank's displacement unit in bytes, {@code >= 1}
   * @param info hints ({@link Info}), or {@code null} for none
   * @return completes with the window once every rank has mapped the segments. Fails at every
   *     rank when it fails at one: {@link ErrorClass#RMA_SHARED} when a rank does not share rank
   *     0's memory (another host) or the file cannot be created or mapped; {@link ErrorClass#INFO}
   *     for a value {@link Info#MINIMUM_MEMORY_ALIGNMENT} or {@link Info#ALLOC_SHARED_NONCONTIG}
   *     does not take; {@link ErrorClass#NO_MEM} when the segments
   *     of all ranks add up to more than one mapping can hold (2^31 - 1 bytes). Fails at the
   *     calling rank only, as for {@link #create}, with {@link ErrorClass#ARG} for a negative size
   *     or a displacement unit below 1 and with {@link ErrorClass#COMM}.
   */
  static Future<Win> allocateShared(Comm comm, long size, int dispUnit, Info info) {
    return WindowFactory.allocateShared(comm, size, dispUnit, info);
  }

  /**
   * MPI_Get_address: the address of a byte of a native store, usable as a target displacement
   * of a dynamic window from any rank once the store is attached there.
   *
   * <p>Taking the address of a store that owns its memory also lets a {@link Comm#BOTTOM} buffer
   * reach that store while it is open. A {@code PointerBytesStore} ({@code BytesStore.wrap(address,
   * length)}, a shared window's {@link #memory()}) does not own what it points at and stays open
   * after that memory is freed: its address is returned, but bytes under it are reachable at
   * {@code BOTTOM} only inside an open owning store whose address was taken.
   *
   * @param memory a native Chronicle store
   * @param offset a byte offset in it, {@code 0 <= offset <= capacity}
   * @return the address
   * @throws RmaException {@link ErrorClass#ARG} for a null or non-native store, or an offset
   *     outside it
   */
  static long address(BytesStore<?, ?> memory, long offset) {
    return WindowFactory.address(memory, offset);
  }

  // ------------------------------------------------------------------ attributes

  /**
   * The communicator the window was created over. Every rank a window call takes or reports
   * (targets, {@link #size(int)}, {@link #sharedQuery}) is a rank of this communicator.
   *
   * @return the communicator
   */
  Comm comm();

  /**
   * MPI_Win_get_group: the group of the window.
   *
   * @return the group of the window's communicator
   */
  Group group();

  /**
   * MPI_WIN_BASE as a store: this rank's window memory, for local loads and stores. Its address is
   * {@link #baseAddress()}.
   *
   * <p>A dynamic window ({@link #createDynamic}) has no memory of its own: MPI reports its base
   * as MPI_BOTTOM (address 0), which {@link #baseAddress()} returns, and its size as 0, which
   * {@link #size()} returns. No store can stand for MPI_BOTTOM: Chronicle refuses a store at
   * address 0, and an empty store elsewhere would have an address that is not MPI's base while its
   * unchecked accessors still read and write the bytes there. So this call refuses a dynamic
   * window with {@link ErrorClass#RMA_FLAVOR}: the memory of a dynamic window is the stores the
   * program {@link #attach attached}, which it holds already, and their addresses for the other
   * ranks' displacements come from {@link #address}.
   *
   * @return the store behind this rank's part of the window
   * @throws RmaException {@link ErrorClass#RMA_FLAVOR} for a dynamic window (see above),
   *     {@link ErrorClass#WIN} after {@link #free()}
   */
  BytesStore<?, ?> memory();

  /**
   * MPI_WIN_BASE as MPI reports it: the address of this rank's window memory, in the address
   * space {@link #address} and {@link Comm#BOTTOM} use. For a dynamic window it is 0, MPI_BOTTOM:
   * there the target displacement of an access is the absolute address ({@link #address}) of the
   * attached byte, that is {@code address - baseAddress()} as in MPI. Otherwise it is
   * {@code Win.address(memory(), 0)}: the window's own memory (for a part of size 0 the
   * placeholder {@link #memory()} returns, which no access reaches; for a shared window this
   * rank's segment).
   *
   * @return the base address; 0 for a dynamic window
   * @throws RmaException {@link ErrorClass#BUFFER} for a window over a {@code byte[]}-backed store
   *     (it has no native address), {@link ErrorClass#WIN} after {@link #free()}
   */
  long baseAddress();

  /**
   * MPI_WIN_SIZE: the size of this rank's window.
   *
   * @return the size in bytes (0 for a dynamic window)
   */
  long size();

  /**
   * MPI_WIN_DISP_UNIT: this rank's displacement unit.
   *
   * @return the displacement unit in bytes
   */
  int dispUnit();

  /**
   * The size of another rank's window, as announced at creation.
   *
   * @param rank a rank of the window
   * @return the size in bytes
   * @throws RmaException {@link ErrorClass#RANK} if {@code rank} is not in {@code [0, size())}
   */
  long size(int rank);

  /**
   * The displacement unit of another rank's window, as announced at creation.
   *
   * @param rank a rank of the window
   * @return the displacement unit in bytes
   * @throws RmaException {@link ErrorClass#RANK} if {@code rank} is not in {@code [0, size())}
   */
  int dispUnit(int rank);

  /**
   * MPI_WIN_CREATE_FLAVOR: how the window's memory was provided.
   *
   * @return the flavor
   */
  Flavor flavor();

  /**
   * MPI_WIN_MODEL: the memory model.
   *
   * @return always {@link MemoryModel#UNIFIED}
   */
  MemoryModel model();

  /**
   * MPI_Win_get_info: the hints in effect.
   *
   * @return the hints given at creation (and changed by {@link #setInfo}), with the values in
   *     use of the keys the library honours filled in: {@link Info#ACCUMULATE_ORDERING},
   *     {@link Info#ACCUMULATE_OPS}, {@link Info#NO_LOCKS}, {@link Info#ACCUMULATE_GRANULARITY}
   *     (default "0"; whatever its value, accumulates are atomic per element — each is in fact
   *     applied whole under the target's owner word), and, fixed at creation,
   *     {@link Info#MINIMUM_MEMORY_ALIGNMENT} of {@link #allocate} and {@link #allocateShared}
   *     windows and {@link Info#ALLOC_SHARED_NONCONTIG} of {@link #allocateShared} windows
   */
  Info info();

  /**
   * MPI_Win_set_info: changes the window's hints, collectively over its communicator (every rank
   * calls it, with the same hints). The keys honoured: {@link Info#NO_LOCKS} ({@code true} or
   * {@code false}) switches the window's locks off or on, {@link Info#ACCUMULATE_ORDERING}
   * ({@code none} or a comma list of {@code rar raw war waw}) and {@link Info#ACCUMULATE_OPS}
   * ({@code same_op}, {@code same_op_no_op}) are recorded (the implementation always gives the
   * strongest ordering, so any value holds). Other keys are recorded and ignored. A change takes
   * effect at every rank before the call completes at any rank; {@link #info()} then shows it.
   *
   * @param hints the keys to change; {@code null} or {@link Info#NULL} for none
   * @return completes once every rank has applied the hints. Fails at every rank with
   *     {@link ErrorClass#RMA_SYNC} when switching {@code no_locks} while a rank holds a
   *     passive-target epoch or a lock is held or waited for (the hints are then unchanged);
   *     at the calling rank with {@link ErrorClass#INFO} for a value a key does not take (the
   *     others then fail with TIMEOUT); {@link ErrorClass#WIN} after {@link #free()}.
   */
  Future<Void> setInfo(Info hints);

  /**
   * MPI_Win_get_name: the window's name.
   *
   * @return the name; {@code win} and the window's id until {@link #setName} is called
   */
  String name();

  /**
   * MPI_Win_set_name: names the window, locally (error messages use the name).
   *
   * @param name the new name; {@code null} is taken as the empty string
   */
  void setName(String name);

  /**
   * MPI_Win_get_errhandler: the error handler of this window.
   *
   * @return the handler; {@link ErrorHandler#ERRORS_RETURN} until one is set
   */
  ErrorHandler getErrhandler();

  /**
   * MPI_Win_set_errhandler: from now on, every call on this window that fails (operations,
   * synchronizations, attach/detach, free) shows its {@link RmaException} to {@code handler} on
   * this rank's context, before its future fails (a failure passed on through nested calls, as
   * from {@code rput} to its {@code put}, is shown once). Local to the calling rank. A lambda is
   * MPI_Win_create_errhandler.
   *
   * @param handler the handler, or {@link ErrorHandler#ERRORS_RETURN} / {@link ErrorHandler#ERRORS_ARE_FATAL}
   * @throws RmaException {@link ErrorClass#ARG} for {@code null}
   */
  void setErrhandler(ErrorHandler handler);

  /**
   * MPI_Win_call_errhandler: calls this window's error handler with {@code error}, as if a call
   * had failed with it (with {@link ErrorHandler#ERRORS_ARE_FATAL}, aborts the job).
   *
   * @param error the error to report
   * @return completes once the handler has run on the rank's context
   */
  Future<Void> callErrhandler(RmaException error);

  // ------------------------------------------------------------------ communication

  /**
   * MPI_Put: writes {@code originCount} elements of {@code originType} from {@code origin} to
   * {@code targetCount} elements of {@code targetType} at displacement {@code targetDisp} of
   * {@code targetRank}'s window.
   *
   * @param origin the data ({@code null} with count 0)
   * @param originOffset where the data starts in {@code origin}: array elements, or bytes for other buffers
   * @param originCount the number of elements of {@code originType}
   * @param originType the origin datatype, committed
   * @param targetRank the target rank, or {@link Comm#PROC_NULL} (no-op)
   * @param targetDisp the target displacement, in units of the target's displacement unit
   * @param targetCount the number of elements of {@code targetType}
   * @param targetType the target datatype, committed; its type signature must match the origin's
   * @return completes at origin completion, when {@code origin} may be reused: for a target in
   *     another JVM once the data is packed (at once below 64 KiB, else when the connection can
   *     take it), when the target has copied it for one in this JVM.
   *     Fails with the errors listed in the class comment.
   */
  Future<Void> put(Buf origin, int originOffset, int originCount, Datatype originType, int targetRank,
      long targetDisp, int targetCount, Datatype targetType);

  /**
   * MPI_Put with the same count and datatype at origin and target.
   *
   * @param origin the data ({@code null} with count 0)
   * @param originOffset where the data starts in {@code origin}: array elements, or bytes for other buffers
   * @param count the number of elements of {@code type}
   * @param type the datatype, committed
   * @param targetRank the target rank, or {@link Comm#PROC_NULL} (no-op)
   * @param targetDisp the target displacement, in units of the target's displacement unit
   * @return as {@link #put(Buf, int, int, Datatype, int, long, int, Datatype)}
   */
  default Future<Void> put(Buf origin, int originOffset, int count, Datatype type, int targetRank, long targetDisp) {
    return put(origin, originOffset, count, type, targetRank, targetDisp, count, type);
  }

  /**
   * MPI_Get: reads {@code targetCount} elements of {@code targetType} at displacement
   * {@code targetDisp} of {@code targetRank}'s window into {@code origin}.
   *
   * @param origin the buffer the data goes to ({@code null} with count 0)
   * @param originOffset where the data goes in {@code origin}: array elements, or bytes for other buffers
   * @param originCount the number of elements of {@code originType}
   * @param originType the origin datatype, committed
   * @param targetRank the target rank, or {@link Comm#PROC_NULL} (no-op)
   * @param targetDisp the target displacement, in units of the target's displacement unit
   * @param targetCount the number of elements of {@code targetType}
   * @param targetType the target datatype, committed; its type signature must match the origin's
   * @return completes when the data is in {@code origin}. Fails with the errors listed in the
   *     class comment, also with an error the target reports.
   */
  Future<Void> get(Buf origin, int originOffset, int originCount, Datatype originType, int targetRank,
      long targetDisp, int targetCount, Datatype targetType);

  /**
   * MPI_Get with the same count and datatype at origin and target.
   *
   * @param origin the buffer the data goes to ({@code null} with count 0)
   * @param originOffset where the data goes in {@code origin}: array elements, or bytes for other buffers
   * @param count the number of elements of {@code type}
   * @param type the datatype, committed
   * @param targetRank the target rank, or {@link Comm#PROC_NULL} (no-op)
   * @param targetDisp the target displacement, in units of the target's displacement unit
   * @return as {@link #get(Buf, int, int, Datatype, int, long, int, Datatype)}
   */
  default Future<Void> get(Buf origin, int originOffset, int count, Datatype type, int targetRank, long targetDisp) {
    return get(origin, originOffset, count, type, targetRank, targetDisp, count, type);
  }

  /**
   * MPI_Accumulate: {@code target = target op origin}, element-wise atomic with respect to other
   * accumulates on the same location; accumulates of one origin to one target are applied in
   * order.
   *
   * @param origin the operands ({@code null} with count 0)
   * @param originOffset where they start in {@code origin}: array elements, or bytes for other buffers
   * @param originCount the number of elements of {@code originType}
   * @param originType the origin datatype, committed
   * @param targetRank the target rank, or {@link Comm#PROC_NULL} (no-op)
   * @param targetDisp the target displacement, in units of the target's displacement unit
   * @param targetCount the number of elements of {@code targetType}
   * @param targetType the target datatype, committed; both datatypes must be built from the same
   *     predefined type
   * @param op the operation ({@link Op#REPLACE}: an atomic put)
   * @return completes at origin completion, as {@link #put(Buf, int, int, Datatype, int, long,
   *     int, Datatype) put}. Fails with the errors listed in the class comment:
   *     {@link ErrorClass#OP} for a null op or one not defined on the datatype,
   *     {@link ErrorClass#TYPE} when the datatypes are not of one and the same basic type.
   */
  Future<Void> accumulate(Buf origin, int originOffset, int originCount, Datatype originType, int targetRank,
      long targetDisp, int targetCount, Datatype targetType, Op op);

  /**
   * MPI_Accumulate with the same count and datatype at origin and target.
   *
   * @param origin the operands ({@code null} with count 0)
   * @param originOffset where they start in {@code origin}: array elements, or bytes for other buffers
   * @param count the number of elements of {@code type}
   * @param type the datatype, committed
   * @param targetRank the target rank, or {@link Comm#PROC_NULL} (no-op)
   * @param targetDisp the target displacement, in units of the target's displacement unit
   * @param op the operation
   * @return as {@link #accumulate(Buf, int, int, Datatype, int, long, int, Datatype, Op)}
   */
  default Future<Void> accumulate(Buf origin, int originOffset, int count, Datatype type, int targetRank,
      long targetDisp, Op op) {
    return accumulate(origin, originOffset, count, type, targetRank, targetDisp, count, type, op);
  }

  /**
   * MPI_Get_accumulate: atomically fetches the target data into {@code result} and then applies
   * {@code target = target op origin}.
   *
   * @param origin the operands; ignored, and may be {@code null}, with {@link Op#NO_OP}
   * @param originOffset where they start in {@code origin}: array elements, or bytes for other buffers
   * @param originCount the number of elements of {@code originType}
   * @param originType the origin datatype, committed
   * @param result the buffer the previous target data goes to
   * @param resultOffset where it goes in {@code result}
   * @param resultCount the number of elements of {@code resultType}
   * @param resultType the result datatype, committed
   * @param targetRank the target rank, or {@link Comm#PROC_NULL} (no-op)
   * @param targetDisp the target displacement, in units of the target's displacement unit
   * @param targetCount the number of elements of {@code targetType}
   * @param targetType the target datatype, committed; all three datatypes must be built from the
   *     same predefined type
   * @param op the operation ({@link Op#NO_OP}: fetch only)
   * @return completes when the previous target data is in {@code result}. Fails as
   *     {@link #accumulate(Buf, int, int, Datatype, int, long, int, Datatype, Op) accumulate},
   *     also with an error the target reports.
   */
  Future<Void> getAccumulate(Buf origin, int originOffset, int originCount, Datatype originType, Buf result,
      int resultOffset, int resultCount, Datatype resultType, int targetRank, long targetDisp, int targetCount,
      Datatype targetType, Op op);

  /**
   * MPI_Fetch_and_op: one element of a predefined datatype: {@code result = old target},
   * {@code target = target op origin}.
   *
   * @param origin the operand; ignored, and may be {@code null}, with {@link Op#NO_OP}
   * @param originOffset where it is in {@code origin}: array elements, or bytes for other buffers
   * @param result the buffer the previous target element goes to
   * @param resultOffset where it goes in {@code result}
   * @param type a predefined datatype
   * @param targetRank the target rank, or {@link Comm#PROC_NULL} (no-op)
   * @param targetDisp the target displacement, in units of the target's displacement unit
   * @param op the operation
   * @return completes when the previous target element is in {@code result}. Fails as
   *     {@link #getAccumulate getAccumulate}, and with {@link ErrorClass#TYPE} for a derived
   *     datatype.
   */
  Future<Void> fetchAndOp(Buf origin, int originOffset, Buf result, int resultOffset, Datatype type,
      int targetRank, long targetDisp, Op op);

  /**
   * MPI_Fetch_and_op on one {@code long} ({@link Datatype#LONG}).
   *
   * @param value the operand
   * @param targetRank the target rank, or {@link Comm#PROC_NULL} (completes with 0)
   * @param targetDisp the target displacement, in units of the target's displacement unit
   * @param op the operation, defined on LONG
   * @return completes with the target's previous value. Fails as
   *     {@link #fetchAndOp(Buf, int, Buf, int, Datatype, int, long, Op)}.
   */
  Future<Long> fetchAndOp(long value, int targetRank, long targetDisp, Op op);

  /**
   * MPI_Compare_and_swap: one element of an integer, logical or byte type: {@code result = old
   * target}; if the old target equals {@code compare}, {@code target = origin}.
   *
   * @param origin the new value (read until the future completes)
   * @param originOffset where it is in {@code origin}: array elements, or bytes for other buffers
   * @param compare the value to compare with (read until the future completes)
   * @param compareOffset where it is in {@code compare}
   * @param result the buffer the previous target element goes to
   * @param resultOffset where it goes in {@code result}
   * @param type a predefined integer, logical or byte datatype
   * @param targetRank the target rank, or {@link Comm#PROC_NULL} (no-op)
   * @param targetDisp the target displacement, in units of the target's displacement unit
   * @return completes when the previous target element is in {@code result}. Fails with the
   *     errors listed in the class comment: {@link ErrorClass#TYPE} for a derived, floating or
   *     pair datatype.
   */
  Future<Void> compareAndSwap(Buf origin, int originOffset, Buf compare, int compareOffset, Buf result,
      int resultOffset, Datatype type, int targetRank, long targetDisp);

  /**
   * MPI_Compare_and_swap on one {@code long} ({@link Datatype#LONG}).
   *
   * @param compare the value to compare with
   * @param value the new value
   * @param targetRank the target rank, or {@link Comm#PROC_NULL} (completes with 0)
   * @param targetDisp the target displacement, in units of the target's displacement unit
   * @return completes with the target's previous value. Fails as
   *     {@link #compareAndSwap(Buf, int, Buf, int, Buf, int, Datatype, int, long)}.
   */
  Future<Long> compareAndSwap(long compare, long value, int targetRank, long targetDisp);

  // ------------------------------------------------------------------ active target

  /**
   * MPI_Win_fence, collective: closes the current fence epoch and opens the next one (unless
   * {@link Mode#NOSUCCEED}). Operations issued after this call, even before its future
   * completes, belong to the next epoch (their targets hold them until they have passed this
   * fence too).
   *
   * @param assertions {@link Mode#NOSTORE}, {@link Mode#NOPUT}, {@link Mode#NOPRECEDE},
   *     {@link Mode#NOSUCCEED}
   * @return completes when every operation of the closed epoch is complete at its origin and at
   *     its target, everywhere. Fails with the first unreported error of the operations it
   *     completes; {@link ErrorClass#RMA_SYNC} inside a post/start or lock epoch, or with
   *     NOPRECEDE when operations were issued in the fence epoch it closes;
   *     {@link ErrorClass#ARG} for a null assertion; {@link ErrorClass#WIN} after free; TIMEOUT.
   */
  Future<Void> fence(Mode... assertions);

  /**
   * MPI_Win_post: exposes this rank's window to the ranks of {@code group}, opening an exposure
   * epoch.
   *
   * @param group the origin ranks that will access this window: processes, as
   *     {@code group().incl(r...)} names them by their ranks {@code r} in the window's communicator
   * @param assertions {@link Mode#NOCHECK}, {@link Mode#NOSTORE}, {@link Mode#NOPUT}
   * @return completes at once. Fails with {@link ErrorClass#GROUP} for a null group or one with
   *     a process outside the window's communicator, {@link ErrorClass#RANK} for a job rank
   *     outside the job,
   *     {@link ErrorClass#RMA_SYNC} while an exposure epoch is still open, inside a lock epoch,
   *     or while a fence epoch with operations is open; {@link ErrorClass#ARG} for a null
   *     assertion; {@link ErrorClass#WIN} after free.
   */
  Future<Void> post(Group group, Mode... assertions);

  /**
   * MPI_Win_start: opens an access epoch to the ranks of {@code group}. Operations may be issued
   * before it completes: they are held until then. If no post arrives within the job's wait
   * timeout it fails with TIMEOUT and is withdrawn: the access epoch ends, the operations held
   * for it fail with that TIMEOUT, a {@code complete} already issued fails with it at once, and
   * the next {@code complete} fails at once with RMA_SYNC; the window stays usable.
   *
   * @param group the target ranks this rank will access: processes, as {@code group().incl(r...)}
   *     names them by their ranks {@code r} in the window's communicator
   * @param assertions {@link Mode#NOCHECK}
   * @return completes once each member of {@code group} has posted (at once with
   *     {@link Mode#NOCHECK}). Fails with {@link ErrorClass#GROUP} for a null group or one with
   *     a process outside the window's communicator, {@link ErrorClass#RANK} for a job rank
   *     outside the job,
   *     {@link ErrorClass#RMA_SYNC} while an access epoch is still open, inside a lock epoch,
   *     or while a fence epoch with operations is open; {@link ErrorClass#ARG} for a null
   *     assertion; {@link ErrorClass#WIN} after free; TIMEOUT as above.
   */
  Future<Void> start(Group group, Mode... assertions);

  /**
   * MPI_Win_complete: ends the access epoch opened by {@link #start}.
   *
   * @return completes when the epoch's operations are complete at the origin (the targets are
   *     then told how many to expect). Fails with the first unreported error of those
   *     operations; {@link ErrorClass#RMA_SYNC} without a start, or after a start that timed out;
   *     {@link ErrorClass#WIN} after free; TIMEOUT.
   */
  Future<Void> complete();

  /**
   * MPI_Win_wait ({@code wait} is taken by {@link Object}): ends the exposure epoch opened by
   * {@link #post}.
   *
   * @return completes when every rank of the post group has called complete and its operations
   *     are done here. Fails with {@link ErrorClass#RMA_SYNC} without a post,
   *     {@link ErrorClass#WIN} after free, TIMEOUT.
   */
  Future<Void> waitFor();

  /**
   * MPI_Win_test: {@link #waitFor} if it would complete now.
   *
   * @return completes with {@code true} (and the exposure epoch ended) if every rank of the post
   *     group has completed, else with {@code false} (the epoch stays open). Fails with
   *     {@link ErrorClass#RMA_SYNC} without a post, {@link ErrorClass#WIN} after free.
   */
  Future<Boolean> test();

  // ------------------------------------------------------------------ passive target

  /**
   * MPI_Win_lock: starts a passive-target access epoch to {@code rank}. Operations may be issued
   * before the future completes: they belong to this epoch. Exclusive locks exclude every other
   * lock; shared locks exclude exclusive ones; requests are granted in arrival order, so exclusive
   * requests are not starved.
   *
   * @param type exclusive or shared
   * @param rank the target rank, or {@link Comm#PROC_NULL} (a no-op that succeeds at once; no
   *     epoch is opened)
   * @param assertions {@link Mode#NOCHECK}: the target still records the lock, in the background,
   *     and operations issued before it has are held until then; the assertion never lets an
   *     operation past the target's lock check
   * @return completes when the lock is granted (at once with NOCHECK). Fails with
   *     {@link ErrorClass#RMA_SYNC} if this rank already locks {@code rank}, inside lockAll,
   *     inside a post/start epoch or a fence epoch with operations, or on a window created with
   *     {@code no_locks=true}; {@link ErrorClass#RANK} for a rank outside the window;
   *     {@link ErrorClass#ARG} for a null type or assertion; {@link ErrorClass#WIN} after free;
   *     TIMEOUT when the lock is not granted within the wait timeout (the request is withdrawn).
   */
  Future<Void> lock(LockType type, int rank, Mode... assertions);

  /**
   * MPI_Win_unlock: ends the passive-target epoch on {@code rank}.
   *
   * @param rank the target rank, or {@link Comm#PROC_NULL} (a no-op)
   * @return completes when every operation of the epoch is complete at origin and target and the
   *     lock is released. Fails with the first error of the epoch's operations that no
   *     {@link #flush} has reported; {@link ErrorClass#RMA_SYNC} without a matching lock or inside
   *     lockAll; {@link ErrorClass#RANK} for a rank outside the window; {@link ErrorClass#WIN}
   *     after free; TIMEOUT; the lock's own failure if it was never granted.
   */
  Future<Void> unlock(int rank);

  /**
   * MPI_Win_lock_all: a shared lock on every rank of the window.
   *
   * @param assertions {@link Mode#NOCHECK}, as for {@link #lock}
   * @return completes when all locks are granted. Fails with {@link ErrorClass#RMA_SYNC} if this
   *     rank already holds a lock on the window, inside a post/start epoch or a fence epoch with
   *     operations, or on a window created with {@code no_locks=true}; {@link ErrorClass#ARG}
   *     for a null assertion; {@link ErrorClass#WIN} after free; TIMEOUT.
   */
  Future<Void> lockAll(Mode... assertions);

  /**
   * MPI_Win_unlock_all: ends the lockAll epoch.
   *
   * @return completes when every operation of the epoch is complete and every lock released.
   *     Fails with the first error of the epoch's operations that no flush has reported;
   *     {@link ErrorClass#RMA_SYNC} without a matching lockAll; {@link ErrorClass#WIN} after free;
   *     TIMEOUT.
   */
  Future<Void> unlockAll();

  /**
   * MPI_Win_flush: completes the operations issued so far to {@code rank}; the epoch stays open.
   * An error reported here is not reported again by a later flush, {@code unlock} or
   * {@code unlockAll}, and the errors of operations to other targets are left to the calls that
   * complete them (see "Which call reports a failed operation" above).
   *
   * @param rank the target rank, or {@link Comm#PROC_NULL} (a no-op that succeeds at once)
   * @return completes when every operation issued so far to {@code rank} is complete at origin
   *     and target. Fails with the first error among those operations that no earlier
   *     synchronization call has reported; {@link ErrorClass#RMA_SYNC} outside a passive-target
   *     epoch on {@code rank}; {@link ErrorClass#RANK} for a rank outside the window;
   *     {@link ErrorClass#WIN} after free; TIMEOUT.
   */
  Future<Void> flush(int rank);

  /**
   * MPI_Win_flush_all: {@link #flush} for every target, reporting errors as it does.
   *
   * @return completes when every operation issued so far, to any target, is complete at origin
   *     and target. Fails with the first unreported error among them;
   *     {@link ErrorClass#RMA_SYNC} outside a passive-target epoch; {@link ErrorClass#WIN} after
   *     free; TIMEOUT.
   */
  Future<Void> flushAll();

  /**
   * MPI_Win_flush_local: completes the operations issued so far to {@code rank} at the origin.
   * vertx-rma completes them at the target too (the stronger guarantee is allowed): it is
   * {@link #flush}.
   *
   * @param rank the target rank, or {@link Comm#PROC_NULL} (a no-op that succeeds at once)
   * @return as {@link #flush}
   */
  Future<Void> flushLocal(int rank);

  /**
   * MPI_Win_flush_local_all: {@link #flushLocal} for every target; it is {@link #flushAll}.
   *
   * @return as {@link #flushAll}
   */
  Future<Void> flushLocalAll();

  /**
   * MPI_Win_sync: a memory barrier between this rank's loads/stores and the window (in the unified
   * model, orders them with shared-memory peers).
   *
   * @return completes at once, after the barrier. Fails with {@link ErrorClass#RMA_SYNC} outside
   *     a passive-target epoch, {@link ErrorClass#WIN} after free.
   */
  Future<Void> sync();

  // ------------------------------------------------------------------ request-based operations

  /**
   * MPI_Rput: {@link #put(Buf, int, int, Datatype, int, long, int, Datatype) put} inside a
   * passive-target epoch; the future is the request.
   *
   * @param origin the data ({@code null} with count 0)
   * @param originOffset where the data starts in {@code origin}: array elements, or bytes for other buffers
   * @param originCount the number of elements of {@code originType}
   * @param originType the origin datatype, committed
   * @param targetRank the target rank, or {@link Comm#PROC_NULL} (no-op)
   * @param targetDisp the target displacement, in units of the target's displacement unit
   * @param targetCount the number of elements of {@code targetType}
   * @param targetType the target datatype, committed
   * @return completes at local completion (the origin buffer may be reused). Fails as put, and
   *     with {@link ErrorClass#RMA_SYNC} outside a passive-target epoch on {@code targetRank}.
   */
  Future<Void> rput(Buf origin, int originOffset, int originCount, Datatype originType, int targetRank,
      long targetDisp, int targetCount, Datatype targetType);

  /**
   * MPI_Rput with the same count and datatype at origin and target.
   *
   * @param origin the data ({@code null} with count 0)
   * @param originOffset where the data starts in {@code origin}: array elements, or bytes for other buffers
   * @param count the number of elements of {@code type}
   * @param type the datatype, committed
   * @param targetRank the target rank, or {@link Comm#PROC_NULL} (no-op)
   * @param targetDisp the target displacement, in units of the target's displacement unit
   * @return as {@link #rput(Buf, int, int, Datatype, int, long, int, Datatype)}
   */
  default Future<Void> rput(Buf origin, int originOffset, int count, Datatype type, int targetRank, long targetDisp) {
    return rput(origin, originOffset, count, type, targetRank, targetDisp, count, type);
  }

  /**
   * MPI_Rget: {@link #get(Buf, int, int, Datatype, int, long, int, Datatype) get} inside a
   * passive-target epoch; the future is the request.
   *
   * @param origin the buffer the data goes to ({@code null} with count 0)
   * @param originOffset where the data goes in {@code origin}: array elements, or bytes for other buffers
   * @param originCount the number of elements of {@code originType}
   * @param originType the origin datatype, committed
   * @param targetRank the target rank, or {@link Comm#PROC_NULL} (no-op)
   * @param targetDisp the target displacement, in units of the target's displacement unit
   * @param targetCount the number of elements of {@code targetType}
   * @param targetType the target datatype, committed
   * @return completes when the data is in {@code origin}. Fails as get, and with
   *     {@link ErrorClass#RMA_SYNC} outside a passive-target epoch on {@code targetRank}.
   */
  Future<Void> rget(Buf origin, int originOffset, int originCount, Datatype originType, int targetRank,
      long targetDisp, int targetCount, Datatype targetType);

  /**
   * MPI_Rget with the same count and datatype at origin and target.
   *
   * @param origin the buffer the data goes to ({@code null} with count 0)
   * @param originOffset where the data goes in {@code origin}: array elements, or bytes for other buffers
   * @param count the number of elements of {@code type}
   * @param type the datatype, committed
   * @param targetRank the target rank, or {@link Comm#PROC_NULL} (no-op)
   * @param targetDisp the target displacement, in units of the target's displacement unit
   * @return as {@link #rget(Buf, int, int, Datatype, int, long, int, Datatype)}
   */
  default Future<Void> rget(Buf origin, int originOffset, int count, Datatype type, int targetRank, long targetDisp) {
    return rget(origin, originOffset, count, type, targetRank, targetDisp, count, type);
  }

  /**
   * MPI_Raccumulate: {@link #accumulate(Buf, int, int, Datatype, int, long, int, Datatype, Op)
   * accumulate} inside a passive-target epoch; the future is the request.
   *
   * @param origin the operands ({@code null} with count 0)
   * @param originOffset where they start in {@code origin}: array elements, or bytes for other buffers
   * @param originCount the number of elements of {@code originType}
   * @param originType the origin datatype, committed
   * @param targetRank the target rank, or {@link Comm#PROC_NULL} (no-op)
   * @param targetDisp the target displacement, in units of the target's displacement unit
   * @param targetCount the number of elements of {@code targetType}
   * @param targetType the target datatype, committed
   * @param op the operation
   * @return completes at local completion (the origin buffer may be reused). Fails as
   *     accumulate, and with {@link ErrorClass#RMA_SYNC} outside a passive-target epoch on
   *     {@code targetRank}.
   */
  Future<Void> raccumulate(Buf origin, int originOffset, int originCount, Datatype originType, int targetRank,
      long targetDisp, int targetCount, Datatype targetType, Op op);

  /**
   * MPI_Rget_accumulate: {@link #getAccumulate getAccumulate} inside a passive-target epoch; the
   * future is the request.
   *
   * @param origin the operands; ignored, and may be {@code null}, with {@link Op#NO_OP}
   * @param originOffset where they start in {@code origin}: array elements, or bytes for other buffers
   * @param originCount the number of elements of {@code originType}
   * @param originType the origin datatype, committed
   * @param result the buffer the previous target data goes to
   * @param resultOffset where it goes in {@code result}
   * @param resultCount the number of elements of {@code resultType}
   * @param resultType the result datatype, committed
   * @param targetRank the target rank, or {@link Comm#PROC_NULL} (no-op)
   * @param targetDisp the target displacement, in units of the target's displacement unit
   * @param targetCount the number of elements of {@code targetType}
   * @param targetType the target datatype, committed
   * @param op the operation
   * @return completes when the previous target data is in {@code result}. Fails as
   *     getAccumulate, and with {@link ErrorClass#RMA_SYNC} outside a passive-target epoch on
   *     {@code targetRank}.
   */
  Future<Void> rgetAccumulate(Buf origin, int originOffset, int originCount, Datatype originType, Buf result,
      int resultOffset, int resultCount, Datatype resultType, int targetRank, long targetDisp, int targetCount,
      Datatype targetType, Op op);

  // ------------------------------------------------------------------ notified RMA (MPI 5.1 draft)

  /**
   * MPI_Put_notify (MPI 5.1 draft, notified communication): {@link #put(Buf, int, int, Datatype,
   * int, long, int, Datatype) put}, then, once its data is in the target's window, the target's
   * notification counter {@code notificationIdx} grows by one. Whoever reads the counter at the
   * target ({@link #notifyValue}, {@link #awaitNotify}) and finds the increment also finds the
   * data. Allowed in passive-target epochs only (lock, lockAll), on windows of every flavor.
   *
   * @param origin the data ({@code null} with count 0)
   * @param originOffset where the data starts in {@code origin}
   * @param originCount the number of elements of {@code originType}
   * @param originType the origin datatype, committed
   * @param targetRank the target rank, or {@link Comm#PROC_NULL} (no-op, nothing counted)
   * @param targetDisp the target displacement, in units of the target's displacement unit
   * @param targetCount the number of elements of {@code targetType}
   * @param targetType the target datatype, committed
   * @param notificationIdx the target's counter, in {@code [0, target's numNotify)}
   * @return completes at origin completion, as put. Fails as put, and with
   *     {@link ErrorClass#RMA_SYNC} in a fence or post/start epoch (the draft defines notified
   *     operations for passive-target epochs only), {@link ErrorClass#RMA_NOTIFICATION} for an
   *     index outside the target's counters; a refused operation moves no data and counts nothing.
   */
  Future<Void> putNotify(Buf origin, int originOffset, int originCount, Datatype originType, int targetRank,
      long targetDisp, int targetCount, Datatype targetType, int notificationIdx);

  /**
   * MPI_Put_notify with the same count and datatype at origin and target.
   *
   * @param origin the data ({@code null} with count 0)
   * @param originOffset where the data starts in {@code origin}
   * @param count the number of elements of {@code type}
   * @param type the datatype, committed
   * @param targetRank the target rank, or {@link Comm#PROC_NULL} (no-op)
   * @param targetDisp the target displacement, in units of the target's displacement unit
   * @param notificationIdx the target's counter
   * @return as {@link #putNotify(Buf, int, int, Datatype, int, long, int, Datatype, int)}
   */
  default Future<Void> putNotify(Buf origin, int originOffset, int count, Datatype type, int targetRank,
      long targetDisp, int notificationIdx) {
    return putNotify(origin, originOffset, count, type, targetRank, targetDisp, count, type, notificationIdx);
  }

  /**
   * MPI_Get_notify: {@link #get(Buf, int, int, Datatype, int, long, int, Datatype) get}, and the
   * target's counter {@code notificationIdx} grows by one once the data has been read there (the
   * target may then reuse that memory). Passive-target epochs only.
   *
   * @param origin the buffer the data goes to ({@code null} with count 0)
   * @param originOffset where the data goes in {@code origin}
   * @param originCount the number of elements of {@code originType}
   * @param originType the origin datatype, committed
   * @param targetRank the target rank, or {@link Comm#PROC_NULL} (no-op)
   * @param targetDisp the target displacement, in units of the target's displacement unit
   * @param targetCount the number of elements of {@code targetType}
   * @param targetType the target datatype, committed
   * @param notificationIdx the target's counter
   * @return completes when the data is in {@code origin}. Fails as get and as
   *     {@link #putNotify(Buf, int, int, Datatype, int, long, int, Datatype, int) putNotify}.
   */
  Future<Void> getNotify(Buf origin, int originOffset, int originCount, Datatype originType, int targetRank,
      long targetDisp, int targetCount, Datatype targetType, int notificationIdx);

  /**
   * MPI_Accumulate_notify: {@link #accumulate(Buf, int, int, Datatype, int, long, int, Datatype,
   * Op) accumulate}, then the target's counter {@code notificationIdx} grows by one once the
   * result is in place. Passive-target epochs only.
   *
   * @param origin the operands ({@code null} with count 0)
   * @param originOffset where they start in {@code origin}
   * @param originCount the number of elements of {@code originType}
   * @param originType the origin datatype, committed
   * @param targetRank the target rank, or {@link Comm#PROC_NULL} (no-op)
   * @param targetDisp the target displacement, in units of the target's displacement unit
   * @param targetCount the number of elements of {@code targetType}
   * @param targetType the target datatype, committed
   * @param op the operation
   * @param notificationIdx the target's counter
   * @return completes at origin completion. Fails as accumulate and as
   *     {@link #putNotify(Buf, int, int, Datatype, int, long, int, Datatype, int) putNotify}.
   */
  Future<Void> accumulateNotify(Buf origin, int originOffset, int originCount, Datatype originType, int targetRank,
      long targetDisp, int targetCount, Datatype targetType, Op op, int notificationIdx);

  /**
   * MPI_Get_accumulate_notify: {@link #getAccumulate getAccumulate}, then the target's counter
   * {@code notificationIdx} grows by one once the old data was read and the new is in place.
   * Passive-target epochs only.
   *
   * @param origin the operands; ignored, and may be {@code null}, with {@link Op#NO_OP}
   * @param originOffset where they start in {@code origin}
   * @param originCount the number of elements of {@code originType}
   * @param originType the origin datatype, committed
   * @param result the buffer the previous target data goes to
   * @param resultOffset where it goes in {@code result}
   * @param resultCount the number of elements of {@code resultType}
   * @param resultType the result datatype, committed
   * @param targetRank the target rank, or {@link Comm#PROC_NULL} (no-op)
   * @param targetDisp the target displacement, in units of the target's displacement unit
   * @param targetCount the number of elements of {@code targetType}
   * @param targetType the target datatype, committed
   * @param op the operation
   * @param notificationIdx the target's counter
   * @return completes when the previous target data is in {@code result}. Fails as getAccumulate
   *     and as {@link #putNotify(Buf, int, int, Datatype, int, long, int, Datatype, int) putNotify}.
   */
  Future<Void> getAccumulateNotify(Buf origin, int originOffset, int originCount, Datatype originType, Buf result,
      int resultOffset, int resultCount, Datatype resultType, int targetRank, long targetDisp, int targetCount,
      Datatype targetType, Op op, int notificationIdx);

  /**
   * MPI_Rput_notify: {@link #putNotify(Buf, int, int, Datatype, int, long, int, Datatype, int)
   * putNotify} whose future is the request.
   *
   * @param origin the data
   * @param originOffset where the data starts in {@code origin}
   * @param originCount the number of elements of {@code originType}
   * @param originType the origin datatype, committed
   * @param targetRank the target rank, or {@link Comm#PROC_NULL} (no-op)
   * @param targetDisp the target displacement
   * @param targetCount the number of elements of {@code targetType}
   * @param targetType the target datatype, committed
   * @param notificationIdx the target's counter
   * @return completes at local completion. Fails as putNotify, and with
   *     {@link ErrorClass#RMA_SYNC} outside a passive-target epoch on {@code targetRank}.
   */
  Future<Void> rputNotify(Buf origin, int originOffset, int originCount, Datatype originType, int targetRank,
      long targetDisp, int targetCount, Datatype targetType, int notificationIdx);

  /**
   * MPI_Rget_notify: {@link #getNotify getNotify} whose future is the request.
   *
   * @param origin the buffer the data goes to
   * @param originOffset where the data goes in {@code origin}
   * @param originCount the number of elements of {@code originType}
   * @param originType the origin datatype, committed
   * @param targetRank the target rank, or {@link Comm#PROC_NULL} (no-op)
   * @param targetDisp the target displacement
   * @param targetCount the number of elements of {@code targetType}
   * @param targetType the target datatype, committed
   * @param notificationIdx the target's counter
   * @return completes when the data is in {@code origin}. Fails as getNotify.
   */
  Future<Void> rgetNotify(Buf origin, int originOffset, int originCount, Datatype originType, int targetRank,
      long targetDisp, int targetCount, Datatype targetType, int notificationIdx);

  /**
   * MPI_Raccumulate_notify: {@link #accumulateNotify accumulateNotify} whose future is the request.
   *
   * @param origin the operands
   * @param originOffset where they start in {@code origin}
   * @param originCount the number of elements of {@code originType}
   * @param originType the origin datatype, committed
   * @param targetRank the target rank, or {@link Comm#PROC_NULL} (no-op)
   * @param targetDisp the target displacement
   * @param targetCount the number of elements of {@code targetType}
   * @param targetType the target datatype, committed
   * @param op the operation
   * @param notificationIdx the target's counter
   * @return completes at local completion. Fails as accumulateNotify.
   */
  Future<Void> raccumulateNotify(Buf origin, int originOffset, int originCount, Datatype originType, int targetRank,
      long targetDisp, int targetCount, Datatype targetType, Op op, int notificationIdx);

  /**
   * MPI_Rget_accumulate_notify: {@link #getAccumulateNotify getAccumulateNotify} whose future is
   * the request.
   *
   * @param origin the operands; ignored with {@link Op#NO_OP}
   * @param originOffset where they start in {@code origin}
   * @param originCount the number of elements of {@code originType}
   * @param originType the origin datatype, committed
   * @param result the buffer the previous target data goes to
   * @param resultOffset where it goes in {@code result}
   * @param resultCount the number of elements of {@code resultType}
   * @param resultType the result datatype, committed
   * @param targetRank the target rank, or {@link Comm#PROC_NULL} (no-op)
   * @param targetDisp the target displacement
   * @param targetCount the number of elements of {@code targetType}
   * @param targetType the target datatype, committed
   * @param op the operation
   * @param notificationIdx the target's counter
   * @return completes when the previous target data is in {@code result}. Fails as getAccumulateNotify.
   */
  Future<Void> rgetAccumulateNotify(Buf origin, int originOffset, int originCount, Datatype originType, Buf result,
      int resultOffset, int resultCount, Datatype resultType, int targetRank, long targetDisp, int targetCount,
      Datatype targetType, Op op, int notificationIdx);

  /**
   * MPI_Win_set_num_notify (collective over the window's group): this rank gets {@code n}
   * notification counters, all 0; each rank may ask for its own number, and every rank learns
   * every rank's, so that an origin refuses an index its target lacks before any data moves. No
   * notified operation may be in flight to this rank meanwhile. An {@link #awaitNotify} still
   * waiting here fails with {@link ErrorClass#RMA_NOTIFICATION}.
   *
   * @param n the number of counters at this rank, at most the window's info
   *     {@code mpi_assert_max_num_notify} when it was given
   * @return completes once every rank has switched to its new counters. Fails with
   *     {@link ErrorClass#ARG} for a negative {@code n} or one above {@code mpi_assert_max_num_notify},
   *     {@link ErrorClass#WIN} after free.
   */
  Future<Void> setNumNotify(int n);

  /**
   * MPI_Win_get_num_notify: how many notification counters this rank has (0 until
   * {@link #setNumNotify}).
   *
   * @return the count set by the last completed setNumNotify at this rank
   */
  int numNotify();

  /**
   * MPI_Win_get_notify_value: counter {@code notificationIdx} of this rank.
   *
   * @param notificationIdx the counter, in {@code [0, numNotify())}
   * @return completes with the counter's value. Fails with {@link ErrorClass#RMA_NOTIFICATION}
   *     for an index outside the counters.
   */
  Future<Long> notifyValue(int notificationIdx);

  /**
   * MPI_Win_reset_notify_value: atomically takes counter {@code notificationIdx} of this rank to 0
   * (a notification that arrives meanwhile is counted either in the value returned or after the
   * reset, never lost).
   *
   * @param notificationIdx the counter, in {@code [0, numNotify())}
   * @return completes with the value the counter held. Fails with
   *     {@link ErrorClass#RMA_NOTIFICATION} for an index outside the counters.
   */
  Future<Long> resetNotifyValue(int notificationIdx);

  /**
   * Waits for notifications, what MPI leaves to a polling loop over MPI_Win_get_notify_value:
   * completes once counter {@code notificationIdx} of this rank is at least {@code threshold}. No
   * thread blocks and no loop spins for ever: where another rank can change the counter without
   * waking this one (a rank of this JVM, or of this host's other JVMs through shared memory), the
   * call spins a few microseconds and the rank then polls for some tens of microseconds between its
   * other tasks; then it parks until an increment wakes it.
   * Several waiters on one counter, with any thresholds, each complete exactly once.
   *
   * @param notificationIdx the counter, in {@code [0, numNotify())}
   * @param threshold the value to reach
   * @return completes with the counter's value seen (at least {@code threshold}); by then the data
   *     of the notified operations counted is in this rank's window. Fails with
   *     {@link ErrorClass#RMA_NOTIFICATION} for an index outside the counters or when
   *     {@link #setNumNotify} resets them meanwhile, {@link ErrorClass#WIN} when the window is
   *     freed meanwhile, {@link ErrorClass#TIMEOUT} after {@link JobOptions#getWaitTimeoutMs()}.
   */
  Future<Long> awaitNotify(int notificationIdx, long threshold);

  // ------------------------------------------------------------------ dynamic and shared windows

  /**
   * MPI_Win_attach: exposes a native store in this rank's dynamic window, addressed by
   * {@link #address} values; the store is reserved until detached.
   *
   * <p>An operation aimed at this rank must lie inside attached memory from the first to the last
   * byte its target datatype spans (its true extent, gaps of a strided type included). Stores
   * attached end to end (one ends at the address where the next begins, as two slices of one
   * allocation) count as one run of memory, as in MPICH: an access may span them, and an element
   * may straddle the boundary; every kind of operation applies as for one region, an accumulate
   * element-wise atomically (the window's owner applies operations one at a time). An access
   * whose span reaches into a gap between regions, or past the last one, fails whole with
   * {@link ErrorClass#RMA_RANGE} and changes no byte, even where each byte the datatype touches is
   * attached. A store may not start where another attached store starts, even one of 0 bytes.
   *
   * @param memory a native Chronicle store
   * @return completes once the store is attached. Fails with {@link ErrorClass#RMA_FLAVOR} on a
   *     window that is not dynamic, {@link ErrorClass#RMA_ATTACH} if it overlaps attached memory
   *     or starts where an attached store starts, {@link ErrorClass#ARG} for a null or non-native
   *     store, {@link ErrorClass#WIN} after free.
   */
  Future<Void> attach(BytesStore<?, ?> memory);

  /**
   * MPI_Win_detach: removes an attached store; operations that arrive later fail with
   * RMA_RANGE. The window's owner applies operations and detach one at a time, so none is
   * touching the store when detach completes and the caller may then release it. An operation
   * spanning stores attached end to end is applied whole before the detach of any of them, or
   * fails whole after it. A correct MPI program does not detach memory an operation in flight
   * still targets; here such a race at worst fails the operation, never corrupts the window, and
   * never writes detached memory.
   *
   * @param memory a store attached with {@link #attach}
   * @return completes once the store is detached. Fails with {@link ErrorClass#RMA_FLAVOR} on a
   *     window that is not dynamic, {@link ErrorClass#RMA_ATTACH} if the store is not attached,
   *     {@link ErrorClass#ARG} for a null or non-native store, {@link ErrorClass#WIN} after free.
   */
  Future<Void> detach(BytesStore<?, ?> memory);

  /**
   * MPI_Win_shared_query: a rank's memory in the window, for direct loads and stores from this
   * rank (valid until the window is freed). For an {@link #allocateShared} window, the rank's
   * segment. As MPI 4.1 allows, for an {@link #allocate} or {@link #create} window too: this
   * rank's own memory, the memory of a rank in this JVM (one address space), and an
   * {@code allocate} window's memory at a rank of another JVM of this host when it lives in a
   * host segment mapped here (the on-node path: a direct view of the other JVM's window); the
   * memory of any other rank (another host, another JVM's {@code create} memory, or with the
   * on-node path off) is not reachable so: size 0 and a {@code null} memory, and RMA reaches it.
   * Loads and stores through a view follow MPI's rules for shared memory (order them with
   * {@link #sync} and a barrier, or a synchronization of the window).
   *
   * @param rank a rank of the window, or {@link Comm#PROC_NULL} for the memory of the lowest
   *     rank whose size is not zero (MPI's rule; rank 0's, empty, if every size is zero)
   * @return completes at once with the rank's memory, its size and its displacement unit. Fails
   *     with {@link ErrorClass#RMA_FLAVOR} for a {@link #createDynamic} window (its memory has
   *     no one base), {@link ErrorClass#RANK} for a rank outside the window,
   *     {@link ErrorClass#WIN} after free.
   */
  Future<SharedSegment> sharedQuery(int rank);

  // ------------------------------------------------------------------ lifetime

  /**
   * MPI_Win_free, collective: frees the window at every rank. Then the memory is released
   * (allocate, shared), unreserved (create) or detached (dynamic); memory of 1 MiB or more is
   * released on a worker thread, after which no operation touches it.
   *
   * @return completes once every rank has freed the window and the memory is no longer touched.
   *     Fails with {@link ErrorClass#RMA_SYNC} inside an access, exposure or lock epoch,
   *     {@link ErrorClass#WIN} when called again, TIMEOUT. Any later call on the window fails
   *     with {@link ErrorClass#WIN}.
   */
  Future<Void> free();
}
