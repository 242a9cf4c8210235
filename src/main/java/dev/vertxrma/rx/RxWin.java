package dev.vertxrma.rx;

import dev.vertxrma.Buf;
import dev.vertxrma.Datatype;
import dev.vertxrma.RmaException;
import dev.vertxrma.ErrorHandler;
import dev.vertxrma.Group;
import dev.vertxrma.Info;
import dev.vertxrma.LockType;
import dev.vertxrma.Mode;
import dev.vertxrma.Op;
import dev.vertxrma.Win;
import io.reactivex.rxjava3.core.Completable;
import io.reactivex.rxjava3.core.Single;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * RxJava 3 view of a {@link Win}: every call of the window, each asynchronous one as a cold
 * {@link Completable} or {@link Single} (the call is made on subscription, once per
 * subscription), and the window creators as {@code Single<RxWin>}. Completion means what it means
 * for the {@link Win} twin (origin completion for operations, the end of the synchronization for
 * epochs), and each call fails with the {@link dev.vertxrma.RmaException} its twin documents.
 *
 * <p>An operation is issued when its Completable is subscribed to: chain it ({@code andThen}) or
 * subscribe to several at once ({@code Completable.merge}, MPI_Waitall; {@code Completable.amb},
 * MPI_Waitany) inside the epoch that must hold it, and subscribe to the epoch's closing call
 * after them.
 */
public final class RxWin {

  private final Win win;

  private RxWin(Win win) {
    RxJava.require();
    this.win = win;
  }

  /**
   * The RxJava view of a window.
   *
   * @param win the window to wrap
   * @return a view whose calls go to {@code win}
   */
  public static RxWin of(Win win) {
    return new RxWin(win);
  }

  /**
   * The underlying window.
   *
   * @return the wrapped {@link Win}
   */
  public Win delegate() {
    return win;
  }

  // ------------------------------------------------------------------ creation

  /**
   * MPI_Win_create ({@link Win#create}), collective: emits once every rank has created its part.
   * Fails at every rank if it fails at one: ARG for a displacement unit below 1, COMM after the
   * job ended.
   *
   * @param comm the communicator of the window's ranks
   * @param memory this rank's memory, reserved until the window is freed
   * @param dispUnit this rank's displacement unit in bytes
   * @param info window hints
   * @return the new window
   */
  public static Single<RxWin> create(RxComm comm, BytesStore<?, ?> memory, int dispUnit, Info info) {
    return Deferred.single(() -> Win.create(comm.delegate(), memory, dispUnit, info).map(RxWin::new));
  }

  /**
   * MPI_Win_allocate ({@link Win#allocate}), collective: emits once every rank has allocated its
   * part. Fails with NO_MEM or ARG at every rank.
   *
   * @param comm the communicator of the window's ranks
   * @param size bytes of zeroed memory for this rank
   * @param dispUnit this rank's displacement unit in bytes
   * @param info window hints
   * @return the new window
   */
  public static Single<RxWin> allocate(RxComm comm, long size, int dispUnit, Info info) {
    return Deferred.single(() -> Win.allocate(comm.delegate(), size, dispUnit, info).map(RxWin::new));
  }

  /**
   * MPI_Win_create_dynamic ({@link Win#createDynamic}), collective: emits once every rank has
   * created its part; memory is added with {@link #attach}. Fails with COMM after the job ended.
   *
   * @param comm the communicator of the window's ranks
   * @param info window hints
   * @return the new window, with no memory attached
   */
  public static Single<RxWin> createDynamic(RxComm comm, Info info) {
    return Deferred.single(() -> Win.createDynamic(comm.delegate(), info).map(RxWin::new));
  }

  /**
   * MPI_Win_allocate_shared ({@link Win#allocateShared}), collective: emits once every rank has
   * its segment. Fails with RMA_SHARED when the ranks do not share memory (not on one host), NO_MEM
   * or ARG.
   *
   * @param comm the communicator of the window's ranks, all on one host
   * @param size bytes of zeroed memory for this rank
   * @param dispUnit this rank's displacement unit in bytes
   * @param info window hints
   * @return the new window, see {@link #sharedQuery}
   */
  public static Single<RxWin> allocateShared(RxComm comm, long size, int dispUnit, Info info) {
    return Deferred.single(() -> Win.allocateShared(comm.delegate(), size, dispUnit, info).map(RxWin::new));
  }

  /**
   * MPI_Get_address ({@link Win#address}): a target displacement for a dynamic window.
   *
   * @param memory a native store
   * @param offset a byte offset in it
   * @return the address of that byte, valid at every rank once the store is attached
   */
  public static long address(BytesStore<?, ?> memory, long offset) {
    return Win.address(memory, offset);
  }

  // ------------------------------------------------------------------ attributes

  /**
   * The communicator the window was created over ({@link Win#comm}).
   *
   * @return its RxJava view
   */
  public RxComm comm() {
    return RxComm.of(win.comm());
  }

  /**
   * MPI_Win_get_group ({@link Win#group}).
   *
   * @return the group of the window
   */
  public Group group() {
    return win.group();
  }

  /**
   * MPI_WIN_BASE ({@link Win#memory}): this rank's memory, for local loads and stores.
   *
   * @return this rank's window memory
   */
  public BytesStore<?, ?> memory() {
    return win.memory();
  }

  /**
   * MPI_WIN_BASE as an address ({@link Win#baseAddress}): 0, MPI_BOTTOM, for a dynamic window.
   *
   * @return the address of this rank's window memory
   */
  public long baseAddress() {
    return win.baseAddress();
  }

  /**
   * MPI_WIN_SIZE ({@link Win#size()}).
   *
   * @return size in bytes of this rank's window
   */
  public long size() {
    return win.size();
  }

  /**
   * MPI_WIN_DISP_UNIT ({@link Win#dispUnit()}).
   *
   * @return this rank's displacement unit in bytes
   */
  public int dispUnit() {
    return win.dispUnit();
  }

  /**
   * A rank's window size, as announced at creation ({@link Win#size(int)}).
   *
   * @param rank a rank of the window
   * @return its window size in bytes
   */
  public long size(int rank) {
    return win.size(rank);
  }

  /**
   * A rank's displacement unit, as announced at creation ({@link Win#dispUnit(int)}).
   *
   * @param rank a rank of the window
   * @return its displacement unit in bytes
   */
  public int dispUnit(int rank) {
    return win.dispUnit(rank);
  }

  /**
   * MPI_WIN_CREATE_FLAVOR ({@link Win#flavor}).
   *
   * @return how the window's memory was provided
   */
  public Win.Flavor flavor() {
    return win.flavor();
  }

  /**
   * MPI_WIN_MODEL ({@link Win#model}).
   *
   * @return the memory model (unified)
   */
  public Win.MemoryModel model() {
    return win.model();
  }

  /**
   * MPI_Win_get_info ({@link Win#info}).
   *
   * @return the hints in effect
   */
  public Info info() {
    return win.info();
  }

  /**
   * MPI_Win_get_name ({@link Win#name}).
   *
   * @return the window's name
   */
  public String name() {
    return win.name();
  }

  /**
   * MPI_Win_set_name ({@link Win#setName}), at once.
   *
   * @param name the window's new name
   */
  public void setName(String name) {
    win.setName(name);
  }

  /**
   * MPI_Win_set_info ({@link Win#setInfo}), collective, on subscription.
   *
   * @param hints the keys to change
   * @return completes once every rank has applied the hints
   */
  public Completable setInfo(Info hints) {
    return Deferred.completable(() -> win.setInfo(hints));
  }

  /**
   * MPI_Win_get_errhandler ({@link Win#getErrhandler}).
   *
   * @return the handler
   */
  public ErrorHandler getErrhandler() {
    return win.getErrhandler();
  }

  /**
   * MPI_Win_set_errhandler ({@link Win#setErrhandler}), at once.
   *
   * @param handler the handler
   */
  public void setErrhandler(ErrorHandler handler) {
    win.setErrhandler(handler);
  }

  /**
   * MPI_Win_call_errhandler ({@link Win#callErrhandler}), on subscription.
   *
   * @param error the error to report
   * @return completes once the handler has run
   */
  public Completable callErrhandler(RmaException error) {
    return Deferred.completable(() -> win.callErrhandler(error));
  }

  // ------------------------------------------------------------------ communication

  /**
   * MPI_Put ({@link Win#put(Buf, int, int, Datatype, int, long, int, Datatype)}): completes at
   * origin completion. Fails with RMA_RANGE, RMA_SYNC, TYPE, RANK, COUNT, BUFFER or WIN.
   *
   * @param origin the origin buffer
   * @param originOffset its first element
   * @param originCount elements at the origin
   * @param originType their datatype
   * @param targetRank the target rank
   * @param targetDisp displacement in the target window, in the target's units
   * @param targetCount elements at the target
   * @param targetType their datatype
   * @return completes when the origin buffer may be reused
   */
  public Completable put(Buf origin, int originOffset, int originCount, Datatype originType, int targetRank,
      long targetDisp, int targetCount, Datatype targetType) {
    return Deferred.completable(() -> win.put(origin, originOffset, originCount, originType, targetRank, targetDisp,
        targetCount, targetType));
  }

  /**
   * MPI_Put with one count and datatype ({@link Win#put(Buf, int, int, Datatype, int, long)}).
   * Fails with RMA_RANGE, RMA_SYNC, TYPE, RANK, COUNT, BUFFER or WIN.
   *
   * @param origin the origin buffer
   * @param originOffset its first element
   * @param count elements at origin and target
   * @param type their datatype
   * @param targetRank the target rank
   * @param targetDisp displacement in the target window, in the target's units
   * @return completes when the origin buffer may be reused
   */
  public Completable put(Buf origin, int originOffset, int count, Datatype type, int targetRank, long targetDisp) {
    return Deferred.completable(() -> win.put(origin, originOffset, count, type, targetRank, targetDisp));
  }

  /**
   * MPI_Get ({@link Win#get(Buf, int, int, Datatype, int, long, int, Datatype)}). Fails with
   * RMA_RANGE, RMA_SYNC, TYPE, RANK, COUNT, BUFFER or WIN.
   *
   * @param origin the buffer the data is read into
   * @param originOffset its first element
   * @param originCount elements at the origin
   * @param originType their datatype
   * @param targetRank the target rank
   * @param targetDisp displacement in the target window, in the target's units
   * @param targetCount elements at the target
   * @param targetType their datatype
   * @return completes when the data is in {@code origin}
   */
  public Completable get(Buf origin, int originOffset, int originCount, Datatype originType, int targetRank,
      long targetDisp, int targetCount, Datatype targetType) {
    return Deferred.completable(() -> win.get(origin, originOffset, originCount, originType, targetRank, targetDisp,
        targetCount, targetType));
  }

  /**
   * MPI_Get with one count and datatype ({@link Win#get(Buf, int, int, Datatype, int, long)}).
   * Fails with RMA_RANGE, RMA_SYNC, TYPE, RANK, COUNT, BUFFER or WIN.
   *
   * @param origin the buffer the data is read into
   * @param originOffset its first element
   * @param count elements at origin and target
   * @param type their datatype
   * @param targetRank the target rank
   * @param targetDisp displacement in the target window, in the target's units
   * @return completes when the data is in {@code origin}
   */
  public Completable get(Buf origin, int originOffset, int count, Datatype type, int targetRank, long targetDisp) {
    return Deferred.completable(() -> win.get(origin, originOffset, count, type, targetRank, targetDisp));
  }

  /**
   * MPI_Accumulate ({@link Win#accumulate(Buf, int, int, Datatype, int, long, int, Datatype, Op)}).
   * Fails with RMA_RANGE, RMA_SYNC, TYPE, OP, RANK, COUNT, BUFFER or WIN.
   *
   * @param origin the origin operand
   * @param originOffset its first element
   * @param originCount elements at the origin
   * @param originType their datatype
   * @param targetRank the target rank
   * @param targetDisp displacement in the target window, in the target's units
   * @param targetCount elements at the target
   * @param targetType their datatype
   * @param op {@code target = target op origin}
   * @return completes when the origin buffer may be reused
   */
  public Completable accumulate(Buf origin, int originOffset, int originCount, Datatype originType,
      int targetRank, long targetDisp, int targetCount, Datatype targetType, Op op) {
    return Deferred.completable(() -> win.accumulate(origin, originOffset, originCount, originType, targetRank,
        targetDisp, targetCount, targetType, op));
  }

  /**
   * MPI_Accumulate with one count and datatype
   * ({@link Win#accumulate(Buf, int, int, Datatype, int, long, Op)}). Fails with RMA_RANGE,
   * RMA_SYNC, TYPE, OP, RANK, COUNT, BUFFER or WIN.
   *
   * @param origin the origin operand
   * @param originOffset its first element
   * @param count elements at origin and target
   * @param type their datatype
   * @param targetRank the target rank
   * @param targetDisp displacement in the target window, in the target's units
   * @param op {@code target = target op origin}
   * @return completes when the origin buffer may be reused
   */
  public Completable accumulate(Buf origin, int originOffset, int count, Datatype type, int targetRank,
      long targetDisp, Op op) {
    return Deferred.completable(() -> win.accumulate(origin, originOffset, count, type, targetRank, targetDisp, op));
  }

  /**
   * MPI_Get_accumulate ({@link Win#getAccumulate}): fetches the target data, then applies
   * {@code op}, atomically. Fails with RMA_RANGE, RMA_SYNC, TYPE, OP, RANK, COUNT, BUFFER or WIN.
   *
   * @param origin the origin operand ({@code null} with {@link Op#NO_OP})
   * @param originOffset its first element
   * @param originCount elements at the origin
   * @param originType their datatype
   * @param result the buffer the previous target data is read into
   * @param resultOffset its first element
   * @param resultCount elements of the result
   * @param resultType their datatype
   * @param targetRank the target rank
   * @param targetDisp displacement in the target window, in the target's units
   * @param targetCount elements at the target
   * @param targetType their datatype
   * @param op {@code target = target op origin}
   * @return completes when the previous target data is in {@code result}
   */
  public Completable getAccumulate(Buf origin, int originOffset, int originCount, Datatype originType,
      Buf result, int resultOffset, int resultCount, Datatype resultType, int targetRank, long targetDisp,
      int targetCount, Datatype targetType, Op op) {
    return Deferred.completable(() -> win.getAccumulate(origin, originOffset, originCount, originType, result,
        resultOffset, resultCount, resultType, targetRank, targetDisp, targetCount, targetType, op));
  }

  /**
   * MPI_Fetch_and_op on one element
   * ({@link Win#fetchAndOp(Buf, int, Buf, int, Datatype, int, long, Op)}). Fails with
   * RMA_RANGE, RMA_SYNC, TYPE, OP, RANK, BUFFER or WIN.
   *
   * @param origin the origin operand
   * @param originOffset its element
   * @param result the buffer the previous target value is read into
   * @param resultOffset its element
   * @param type a predefined datatype
   * @param targetRank the target rank
   * @param targetDisp displacement in the target window, in the target's units
   * @param op {@code target = target op origin}
   * @return completes when the previous target value is in {@code result}
   */
  public Completable fetchAndOp(Buf origin, int originOffset, Buf result, int resultOffset, Datatype type,
      int targetRank, long targetDisp, Op op) {
    return Deferred.completable(() -> win.fetchAndOp(origin, originOffset, result, resultOffset, type, targetRank,
        targetDisp, op));
  }

  /**
   * MPI_Fetch_and_op on one long ({@link Win#fetchAndOp(long, int, long, Op)}). Fails with
   * RMA_RANGE, RMA_SYNC, OP, RANK or WIN.
   *
   * @param value the origin operand
   * @param targetRank the target rank
   * @param targetDisp displacement in the target window, in the target's units
   * @param op {@code target = target op value}
   * @return the previous target value
   */
  public Single<Long> fetchAndOp(long value, int targetRank, long targetDisp, Op op) {
    return Deferred.single(() -> win.fetchAndOp(value, targetRank, targetDisp, op));
  }

  /**
   * MPI_Compare_and_swap on one element
   * ({@link Win#compareAndSwap(Buf, int, Buf, int, Buf, int, Datatype, int, long)}).
   * Fails with RMA_RANGE, RMA_SYNC, TYPE, RANK, BUFFER or WIN.
   *
   * @param origin the value to store when the target equals {@code compare}
   * @param originOffset its element
   * @param compare the value compared with the target
   * @param compareOffset its element
   * @param result the buffer the previous target value is read into
   * @param resultOffset its element
   * @param type an integer, logical or byte datatype
   * @param targetRank the target rank
   * @param targetDisp displacement in the target window, in the target's units
   * @return completes when the previous target value is in {@code result}
   */
  public Completable compareAndSwap(Buf origin, int originOffset, Buf compare, int compareOffset,
      Buf result, int resultOffset, Datatype type, int targetRank, long targetDisp) {
    return Deferred.completable(() -> win.compareAndSwap(origin, originOffset, compare, compareOffset, result,
        resultOffset, type, targetRank, targetDisp));
  }

  /**
   * MPI_Compare_and_swap on one long ({@link Win#compareAndSwap(long, long, int, long)}). Fails
   * with RMA_RANGE, RMA_SYNC, RANK or WIN.
   *
   * @param compare the value compared with the target
   * @param value the value stored when the target equals {@code compare}
   * @param targetRank the target rank
   * @param targetDisp displacement in the target window, in the target's units
   * @return the previous target value
   */
  public Single<Long> compareAndSwap(long compare, long value, int targetRank, long targetDisp) {
    return Deferred.single(() -> win.compareAndSwap(compare, value, targetRank, targetDisp));
  }

  // ------------------------------------------------------------------ active target

  /**
   * MPI_Win_fence ({@link Win#fence}), collective: completes when the closed epoch's operations
   * are complete everywhere. Fails with the first unreported operation error, or RMA_SYNC.
   *
   * @param assertions NOSTORE, NOPUT, NOPRECEDE, NOSUCCEED
   * @return completes when the fence epoch is closed
   */
  public Completable fence(Mode... assertions) {
    return Deferred.completable(() -> win.fence(assertions));
  }

  /**
   * MPI_Win_post ({@link Win#post}): completes at once, the exposure epoch open. Fails with
   * RMA_SYNC or GROUP.
   *
   * @param group the ranks that may access this rank's window
   * @param assertions NOCHECK, NOSTORE, NOPUT
   * @return completes when the exposure epoch is open
   */
  public Completable post(Group group, Mode... assertions) {
    return Deferred.completable(() -> win.post(group, assertions));
  }

  /**
   * MPI_Win_start ({@link Win#start}): completes once every rank of {@code group} has posted.
   * Fails with RMA_SYNC, GROUP or TIMEOUT.
   *
   * @param group the ranks to access
   * @param assertions NOCHECK
   * @return completes when the access epoch is granted
   */
  public Completable start(Group group, Mode... assertions) {
    return Deferred.completable(() -> win.start(group, assertions));
  }

  /**
   * MPI_Win_complete ({@link Win#complete}): completes when the access epoch's operations are
   * complete at the origin. Fails with the first unreported operation error, or RMA_SYNC.
   *
   * @return completes when the access epoch is closed
   */
  public Completable complete() {
    return Deferred.completable(win::complete);
  }

  /**
   * MPI_Win_wait ({@link Win#waitFor}): completes when every rank of the post group has completed
   * and its operations are done here. Fails with RMA_SYNC or TIMEOUT.
   *
   * @return completes when the exposure epoch is closed
   */
  public Completable waitFor() {
    return Deferred.completable(win::waitFor);
  }

  /**
   * MPI_Win_test ({@link Win#test}). Fails with RMA_SYNC.
   *
   * @return {@code true} (and the exposure epoch ended) if {@link #waitFor} would complete now
   */
  public Single<Boolean> test() {
    return Deferred.single(win::test);
  }

  // ------------------------------------------------------------------ passive target

  /**
   * MPI_Win_lock ({@link Win#lock}): completes when the lock is granted. Fails with RMA_SYNC or
   * RANK.
   *
   * @param type shared or exclusive
   * @param rank the target rank
   * @param assertions NOCHECK
   * @return completes when the passive-target epoch is open
   */
  public Completable lock(LockType type, int rank, Mode... assertions) {
    return Deferred.completable(() -> win.lock(type, rank, assertions));
  }

  /**
   * MPI_Win_unlock ({@link Win#unlock}): completes when the epoch's operations are complete at
   * origin and target and the lock is released. Fails with the first unreported operation error,
   * or RMA_SYNC.
   *
   * @param rank the target rank
   * @return completes when the epoch is closed
   */
  public Completable unlock(int rank) {
    return Deferred.completable(() -> win.unlock(rank));
  }

  /**
   * MPI_Win_lock_all ({@link Win#lockAll}): completes when a shared lock on every rank is granted.
   * Fails with RMA_SYNC.
   *
   * @param assertions NOCHECK
   * @return completes when the epoch is open
   */
  public Completable lockAll(Mode... assertions) {
    return Deferred.completable(() -> win.lockAll(assertions));
  }

  /**
   * MPI_Win_unlock_all ({@link Win#unlockAll}): completes when every operation is complete and
   * every lock released. Fails with the first unreported operation error, or RMA_SYNC.
   *
   * @return completes when the epoch is closed
   */
  public Completable unlockAll() {
    return Deferred.completable(win::unlockAll);
  }

  /**
   * MPI_Win_flush ({@link Win#flush}): completes when the operations issued so far to
   * {@code rank} are complete at origin and target. Fails with the first unreported error among
   * them, or RMA_SYNC.
   *
   * @param rank the target rank
   * @return completes when those operations are complete
   */
  public Completable flush(int rank) {
    return Deferred.completable(() -> win.flush(rank));
  }

  /**
   * MPI_Win_flush_all ({@link Win#flushAll}): {@link #flush} for every target.
   *
   * @return completes when every operation issued so far is complete
   */
  public Completable flushAll() {
    return Deferred.completable(win::flushAll);
  }

  /**
   * MPI_Win_flush_local ({@link Win#flushLocal}): completes when the operations issued so far to
   * {@code rank} are complete at the origin. Fails as {@link #flush}.
   *
   * @param rank the target rank
   * @return completes when their origin buffers may be reused
   */
  public Completable flushLocal(int rank) {
    return Deferred.completable(() -> win.flushLocal(rank));
  }

  /**
   * MPI_Win_flush_local_all ({@link Win#flushLocalAll}): {@link #flushLocal} for every target.
   *
   * @return completes when the origin buffers of every operation issued so far may be reused
   */
  public Completable flushLocalAll() {
    return Deferred.completable(win::flushLocalAll);
  }

  /**
   * MPI_Win_sync ({@link Win#sync}): a memory barrier between local loads/stores and the window.
   * Fails with RMA_SYNC outside a passive-target epoch.
   *
   * @return completes when the barrier is done
   */
  public Completable sync() {
    return Deferred.completable(win::sync);
  }

  // ------------------------------------------------------------------ request-based operations

  /**
   * MPI_Rput ({@link Win#rput(Buf, int, int, Datatype, int, long, int, Datatype)}), inside a
   * passive-target epoch. Fails as {@link #put}, and with RMA_SYNC outside such an epoch.
   *
   * @param origin the origin buffer
   * @param originOffset its first element
   * @param originCount elements at the origin
   * @param originType their datatype
   * @param targetRank the target rank
   * @param targetDisp displacement in the target window, in the target's units
   * @param targetCount elements at the target
   * @param targetType their datatype
   * @return the request: completes when the origin buffer may be reused
   */
  public Completable rput(Buf origin, int originOffset, int originCount, Datatype originType, int targetRank,
      long targetDisp, int targetCount, Datatype targetType) {
    return Deferred.completable(() -> win.rput(origin, originOffset, originCount, originType, targetRank, targetDisp,
        targetCount, targetType));
  }

  /**
   * MPI_Rput with one count and datatype ({@link Win#rput(Buf, int, int, Datatype, int, long)}).
   * Fails as {@link #put}, and with RMA_SYNC outside a passive-target epoch.
   *
   * @param origin the origin buffer
   * @param originOffset its first element
   * @param count elements at origin and target
   * @param type their datatype
   * @param targetRank the target rank
   * @param targetDisp displacement in the target window, in the target's units
   * @return the request: completes when the origin buffer may be reused
   */
  public Completable rput(Buf origin, int originOffset, int count, Datatype type, int targetRank, long targetDisp) {
    return Deferred.completable(() -> win.rput(origin, originOffset, count, type, targetRank, targetDisp));
  }

  /**
   * MPI_Rget ({@link Win#rget(Buf, int, int, Datatype, int, long, int, Datatype)}), inside a
   * passive-target epoch. Fails as {@link #get}, and with RMA_SYNC outside such an epoch.
   *
   * @param origin the buffer the data is read into
   * @param originOffset its first element
   * @param originCount elements at the origin
   * @param originType their datatype
   * @param targetRank the target rank
   * @param targetDisp displacement in the target window, in the target's units
   * @param targetCount elements at the target
   * @param targetType their datatype
   * @return the request: completes when the data is in {@code origin}
   */
  public Completable rget(Buf origin, int originOffset, int originCount, Datatype originType, int targetRank,
      long targetDisp, int targetCount, Datatype targetType) {
    return Deferred.completable(() -> win.rget(origin, originOffset, originCount, originType, targetRank, targetDisp,
        targetCount, targetType));
  }

  /**
   * MPI_Rget with one count and datatype ({@link Win#rget(Buf, int, int, Datatype, int, long)}).
   * Fails as {@link #get}, and with RMA_SYNC outside a passive-target epoch.
   *
   * @param origin the buffer the data is read into
   * @param originOffset its first element
   * @param count elements at origin and target
   * @param type their datatype
   * @param targetRank the target rank
   * @param targetDisp displacement in the target window, in the target's units
   * @return the request: completes when the data is in {@code origin}
   */
  public Completable rget(Buf origin, int originOffset, int count, Datatype type, int targetRank, long targetDisp) {
    return Deferred.completable(() -> win.rget(origin, originOffset, count, type, targetRank, targetDisp));
  }

  /**
   * MPI_Raccumulate ({@link Win#raccumulate}), inside a passive-target epoch. Fails as
   * {@link #accumulate(Buf, int, int, Datatype, int, long, int, Datatype, Op)}, and with
   * RMA_SYNC outside such an epoch.
   *
   * @param origin the origin operand
   * @param originOffset its first element
   * @param originCount elements at the origin
   * @param originType their datatype
   * @param targetRank the target rank
   * @param targetDisp displacement in the target window, in the target's units
   * @param targetCount elements at the target
   * @param targetType their datatype
   * @param op {@code target = target op origin}
   * @return the request: completes when the origin buffer may be reused
   */
  public Completable raccumulate(Buf origin, int originOffset, int originCount, Datatype originType,
      int targetRank, long targetDisp, int targetCount, Datatype targetType, Op op) {
    return Deferred.completable(() -> win.raccumulate(origin, originOffset, originCount, originType, targetRank,
        targetDisp, targetCount, targetType, op));
  }

  /**
   * MPI_Rget_accumulate ({@link Win#rgetAccumulate}), inside a passive-target epoch. Fails as
   * {@link #getAccumulate}, and with RMA_SYNC outside such an epoch.
   *
   * @param origin the origin operand ({@code null} with {@link Op#NO_OP})
   * @param originOffset its first element
   * @param originCount elements at the origin
   * @param originType their datatype
   * @param result the buffer the previous target data is read into
   * @param resultOffset its first element
   * @param resultCount elements of the result
   * @param resultType their datatype
   * @param targetRank the target rank
   * @param targetDisp displacement in the target window, in the target's units
   * @param targetCount elements at the target
   * @param targetType their datatype
   * @param op {@code target = target op origin}
   * @return the request: completes when the previous target data is in {@code result}
   */
  public Completable rgetAccumulate(Buf origin, int originOffset, int originCount, Datatype originType,
      Buf result, int resultOffset, int resultCount, Datatype resultType, int targetRank, long targetDisp,
      int targetCount, Datatype targetType, Op op) {
    return Deferred.completable(() -> win.rgetAccumulate(origin, originOffset, originCount, originType, result,
        resultOffset, resultCount, resultType, targetRank, targetDisp, targetCount, targetType, op));
  }

  // ------------------------------------------------------------------ notified RMA (MPI 5.1 draft)

  /**
   * MPI_Put_notify ({@link Win#putNotify(Buf, int, int, Datatype, int, long, int, Datatype, int)}).
   *
   * @param origin the origin buffer
   * @param originOffset its first element
   * @param originCount elements at the origin
   * @param originType their datatype
   * @param targetRank the target rank
   * @param targetDisp displacement in the target window, in the target's units
   * @param targetCount elements at the target
   * @param targetType their datatype
   * @param notificationIdx the target's counter
   * @return completes at origin completion; fails as the Win call (RMA_SYNC, RMA_NOTIFICATION, ...)
   */
  public Completable putNotify(Buf origin, int originOffset, int originCount, Datatype originType, int targetRank,
      long targetDisp, int targetCount, Datatype targetType, int notificationIdx) {
    return Deferred.completable(() -> win.putNotify(origin, originOffset, originCount, originType, targetRank,
        targetDisp, targetCount, targetType, notificationIdx));
  }

  /**
   * MPI_Put_notify with one count and datatype ({@link Win#putNotify(Buf, int, int, Datatype, int, long, int)}).
   *
   * @param origin the origin buffer
   * @param originOffset its first element
   * @param count elements at origin and target
   * @param type their datatype
   * @param targetRank the target rank
   * @param targetDisp displacement in the target window, in the target's units
   * @param notificationIdx the target's counter
   * @return completes at origin completion; fails as the Win call
   */
  public Completable putNotify(Buf origin, int originOffset, int count, Datatype type, int targetRank, long targetDisp,
      int notificationIdx) {
    return Deferred.completable(() -> win.putNotify(origin, originOffset, count, type, targetRank, targetDisp,
        notificationIdx));
  }

  /**
   * MPI_Get_notify ({@link Win#getNotify}).
   *
   * @param origin the buffer the data goes to
   * @param originOffset its first element
   * @param originCount elements at the origin
   * @param originType their datatype
   * @param targetRank the target rank
   * @param targetDisp displacement in the target window
   * @param targetCount elements at the target
   * @param targetType their datatype
   * @param notificationIdx the target's counter
   * @return completes when the data is in {@code origin}; fails as the Win call
   */
  public Completable getNotify(Buf origin, int originOffset, int originCount, Datatype originType, int targetRank,
      long targetDisp, int targetCount, Datatype targetType, int notificationIdx) {
    return Deferred.completable(() -> win.getNotify(origin, originOffset, originCount, originType, targetRank,
        targetDisp, targetCount, targetType, notificationIdx));
  }

  /**
   * MPI_Accumulate_notify ({@link Win#accumulateNotify}).
   *
   * @param origin the operands
   * @param originOffset their first element
   * @param originCount elements at the origin
   * @param originType their datatype
   * @param targetRank the target rank
   * @param targetDisp displacement in the target window
   * @param targetCount elements at the target
   * @param targetType their datatype
   * @param op the operation
   * @param notificationIdx the target's counter
   * @return completes at origin completion; fails as the Win call
   */
  public Completable accumulateNotify(Buf origin, int originOffset, int originCount, Datatype originType,
      int targetRank, long targetDisp, int targetCount, Datatype targetType, Op op, int notificationIdx) {
    return Deferred.completable(() -> win.accumulateNotify(origin, originOffset, originCount, originType, targetRank,
        targetDisp, targetCount, targetType, op, notificationIdx));
  }

  /**
   * MPI_Get_accumulate_notify ({@link Win#getAccumulateNotify}).
   *
   * @param origin the operands
   * @param originOffset their first element
   * @param originCount elements at the origin
   * @param originType their datatype
   * @param result the buffer the previous target data goes to
   * @param resultOffset its first element
   * @param resultCount elements of the result
   * @param resultType their datatype
   * @param targetRank the target rank
   * @param targetDisp displacement in the target window
   * @param targetCount elements at the target
   * @param targetType their datatype
   * @param op the operation
   * @param notificationIdx the target's counter
   * @return completes when the previous data is in {@code result}; fails as the Win call
   */
  public Completable getAccumulateNotify(Buf origin, int originOffset, int originCount, Datatype originType,
      Buf result, int resultOffset, int resultCount, Datatype resultType, int targetRank, long targetDisp,
      int targetCount, Datatype targetType, Op op, int notificationIdx) {
    return Deferred.completable(() -> win.getAccumulateNotify(origin, originOffset, originCount, originType, result,
        resultOffset, resultCount, resultType, targetRank, targetDisp, targetCount, targetType, op, notificationIdx));
  }

  /**
   * MPI_Rput_notify ({@link Win#rputNotify}).
   *
   * @param origin the origin buffer
   * @param originOffset its first element
   * @param originCount elements at the origin
   * @param originType their datatype
   * @param targetRank the target rank
   * @param targetDisp displacement in the target window
   * @param targetCount elements at the target
   * @param targetType their datatype
   * @param notificationIdx the target's counter
   * @return the request; fails as the Win call
   */
  public Completable rputNotify(Buf origin, int originOffset, int originCount, Datatype originType, int targetRank,
      long targetDisp, int targetCount, Datatype targetType, int notificationIdx) {
    return Deferred.completable(() -> win.rputNotify(origin, originOffset, originCount, originType, targetRank,
        targetDisp, targetCount, targetType, notificationIdx));
  }

  /**
   * MPI_Rget_notify ({@link Win#rgetNotify}).
   *
   * @param origin the buffer the data goes to
   * @param originOffset its first element
   * @param originCount elements at the origin
   * @param originType their datatype
   * @param targetRank the target rank
   * @param targetDisp displacement in the target window
   * @param targetCount elements at the target
   * @param targetType their datatype
   * @param notificationIdx the target's counter
   * @return the request; fails as the Win call
   */
  public Completable rgetNotify(Buf origin, int originOffset, int originCount, Datatype originType, int targetRank,
      long targetDisp, int targetCount, Datatype targetType, int notificationIdx) {
    return Deferred.completable(() -> win.rgetNotify(origin, originOffset, originCount, originType, targetRank,
        targetDisp, targetCount, targetType, notificationIdx));
  }

  /**
   * MPI_Raccumulate_notify ({@link Win#raccumulateNotify}).
   *
   * @param origin the operands
   * @param originOffset their first element
   * @param originCount elements at the origin
   * @param originType their datatype
   * @param targetRank the target rank
   * @param targetDisp displacement in the target window
   * @param targetCount elements at the target
   * @param targetType their datatype
   * @param op the operation
   * @param notificationIdx the target's counter
   * @return the request; fails as the Win call
   */
  public Completable raccumulateNotify(Buf origin, int originOffset, int originCount, Datatype originType,
      int targetRank, long targetDisp, int targetCount, Datatype targetType, Op op, int notificationIdx) {
    return Deferred.completable(() -> win.raccumulateNotify(origin, originOffset, originCount, originType, targetRank,
        targetDisp, targetCount, targetType, op, notificationIdx));
  }

  /**
   * MPI_Rget_accumulate_notify ({@link Win#rgetAccumulateNotify}).
   *
   * @param origin the operands
   * @param originOffset their first element
   * @param originCount elements at the origin
   * @param originType their datatype
   * @param result the buffer the previous target data goes to
   * @param resultOffset its first element
   * @param resultCount elements of the result
   * @param resultType their datatype
   * @param targetRank the target rank
   * @param targetDisp displacement in the target window
   * @param targetCount elements at the target
   * @param targetType their datatype
   * @param op the operation
   * @param notificationIdx the target's counter
   * @return the request; fails as the Win call
   */
  public Completable rgetAccumulateNotify(Buf origin, int originOffset, int originCount, Datatype originType,
      Buf result, int resultOffset, int resultCount, Datatype resultType, int targetRank, long targetDisp,
      int targetCount, Datatype targetType, Op op, int notificationIdx) {
    return Deferred.completable(() -> win.rgetAccumulateNotify(origin, originOffset, originCount, originType, result,
        resultOffset, resultCount, resultType, targetRank, targetDisp, targetCount, targetType, op, notificationIdx));
  }

  /**
   * MPI_Win_set_num_notify ({@link Win#setNumNotify}), collective.
   *
   * @param n this rank's number of counters
   * @return completes once every rank switched; fails as the Win call
   */
  public Completable setNumNotify(int n) {
    return Deferred.completable(() -> win.setNumNotify(n));
  }

  /**
   * MPI_Win_get_num_notify ({@link Win#numNotify}).
   *
   * @return this rank's number of counters
   */
  public int numNotify() {
    return win.numNotify();
  }

  /**
   * MPI_Win_get_notify_value ({@link Win#notifyValue}).
   *
   * @param notificationIdx the counter
   * @return the counter's value; fails with RMA_NOTIFICATION for a bad index
   */
  public Single<Long> notifyValue(int notificationIdx) {
    return Deferred.single(() -> win.notifyValue(notificationIdx));
  }

  /**
   * MPI_Win_reset_notify_value ({@link Win#resetNotifyValue}): atomic fetch-and-zero.
   *
   * @param notificationIdx the counter
   * @return the value it held; fails with RMA_NOTIFICATION for a bad index
   */
  public Single<Long> resetNotifyValue(int notificationIdx) {
    return Deferred.single(() -> win.resetNotifyValue(notificationIdx));
  }

  /**
   * Waits until counter {@code notificationIdx} is at least {@code threshold} ({@link Win#awaitNotify}).
   *
   * @param notificationIdx the counter
   * @param threshold the value to reach
   * @return the counter's value seen; fails as the Win call
   */
  public Single<Long> awaitNotify(int notificationIdx, long threshold) {
    return Deferred.single(() -> win.awaitNotify(notificationIdx, threshold));
  }

  // ------------------------------------------------------------------ dynamic and shared windows

  /**
   * MPI_Win_attach ({@link Win#attach}): completes once the store is exposed in this rank's
   * dynamic window. Fails with RMA_FLAVOR or RMA_ATTACH.
   *
   * @param memory a native store, reserved until detached
   * @return completes when the store is attached
   */
  public Completable attach(BytesStore<?, ?> memory) {
    return Deferred.completable(() -> win.attach(memory));
  }

  /**
   * MPI_Win_detach ({@link Win#detach}): completes once no operation touches the store any more.
   * Fails with RMA_FLAVOR or RMA_ATTACH.
   *
   * @param memory an attached store
   * @return completes when the store may be released
   */
  public Completable detach(BytesStore<?, ?> memory) {
    return Deferred.completable(() -> win.detach(memory));
  }

  /**
   * MPI_Win_shared_query ({@link Win#sharedQuery}). Fails with RMA_FLAVOR on a dynamic window,
   * RANK.
   *
   * @param rank a rank of the window
   * @return that rank's memory, for direct loads and stores (size 0, no memory, where this rank
   *     cannot reach it by load and store)
   */
  public Single<Win.SharedSegment> sharedQuery(int rank) {
    return Deferred.single(() -> win.sharedQuery(rank));
  }

  // ------------------------------------------------------------------ lifetime

  /**
   * MPI_Win_free ({@link Win#free}), collective: completes once every rank has freed the window.
   * Fails with RMA_SYNC inside an epoch.
   *
   * @return completes when the window is gone
   */
  public Completable free() {
    return Deferred.completable(win::free);
  }
}
