package dev.vertxrma.win;

import static dev.vertxrma.testing.RmaAssertions.expectError;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.vertxrma.Buf;
import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Info;
import dev.vertxrma.Mode;
import dev.vertxrma.Op;
import dev.vertxrma.Rma;
import dev.vertxrma.RmaException;
import dev.vertxrma.Win;
import dev.vertxrma.impl.memory.WindowMemory;
import dev.vertxrma.testing.FixedWidthModel;
import dev.vertxrma.testing.Jobs;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The fixed-width integer datatypes (INT8..INT64, UINT8..UINT64) and C_BOOL between ranks,
 * embedded and clustered: accumulate and getAccumulate of every op on edge values (min/max of
 * every width, the top bit set, wraparound), fetchAndOp and compareAndSwap chains, derived types
 * built from them, put/get and allreduce. Every window byte and every fetched value is compared
 * with {@link FixedWidthModel}; refused (op, type) pairs fail with OP and arrays of the wrong kind
 * with TYPE, leaving the target window byte for byte as it was.
 */
class FixedWidthTypesRmaTest {

  /** A datatype under test, described independently of the library. */
  enum Ty {
    INT8(Datatype.INT8, 1, false), INT16(Datatype.INT16, 2, false), INT32(Datatype.INT32, 4, false),
    INT64(Datatype.INT64, 8, false), UINT8(Datatype.UINT8, 1, true), UINT16(Datatype.UINT16, 2, true),
    UINT32(Datatype.UINT32, 4, true), UINT64(Datatype.UINT64, 8, true), C_BOOL(Datatype.C_BOOL, 1, true);

    final Datatype dt;
    final int width;
    final boolean unsigned;

    Ty(Datatype dt, int width, boolean unsigned) {
      this.dt = dt;
      this.width = width;
      this.unsigned = unsigned;
    }

    boolean logical() {
      return this == C_BOOL;
    }

    /** MPI's op/type table: integers take every op but MAXLOC/MINLOC; C_BOOL the logical ones. */
    boolean valid(Op op) {
      switch (op) {
        case REPLACE: case NO_OP: case LAND: case LOR: case LXOR:
          return true;
        case MAXLOC: case MINLOC:
          return false;
        default:
          return !logical();
      }
    }

    long model(Op op, long dst, long src) {
      return FixedWidthModel.apply(width, unsigned, op, dst, src);
    }

    /** The Java array of this type's kind holding {@code v} (C_BOOL: a boolean[] of v != 0, or raw bytes). */
    Object array(long[] v, boolean rawBool) {
      int n = v.length;
      switch (this) {
        case C_BOOL:
          if (!rawBool) {
            boolean[] z = new boolean[n];
            for (int i = 0; i < n; i++) {
              z[i] = v[i] != 0;
            }
            return z;
          }
          // fall through: raw bytes
        case INT8: case UINT8: { byte[] a = new byte[n]; for (int i = 0; i < n; i++) { a[i] = (byte) v[i]; } return a; }
        case INT16: case UINT16: { short[] a = new short[n]; for (int i = 0; i < n; i++) { a[i] = (short) v[i]; } return a; }
        case INT32: case UINT32: { int[] a = new int[n]; for (int i = 0; i < n; i++) { a[i] = (int) v[i]; } return a; }
        default: return v.clone();
      }
    }

    Buf buf(Object a) {
      if (a instanceof byte[]) {
        return Buf.of((byte[]) a);
      }
      if (a instanceof boolean[]) {
        return Buf.of((boolean[]) a);
      }
      if (a instanceof short[]) {
        return Buf.of((short[]) a);
      }
      if (a instanceof int[]) {
        return Buf.of((int[]) a);
      }
      return Buf.of((long[]) a);
    }

    /** Element {@code i} of an array made by {@link #array}, widened as the model takes it. */
    static long get(Object a, int i) {
      if (a instanceof byte[]) {
        return ((byte[]) a)[i];
      }
      if (a instanceof boolean[]) {
        return ((boolean[]) a)[i] ? 1 : 0;
      }
      if (a instanceof short[]) {
        return ((short[]) a)[i];
      }
      if (a instanceof int[]) {
        return ((int[]) a)[i];
      }
      return ((long[]) a)[i];
    }

    long load(ByteBuffer b, int at) {
      switch (width) {
        case 1: return b.get(at);
        case 2: return b.getShort(at);
        case 4: return b.getInt(at);
        default: return b.getLong(at);
      }
    }

    void store(ByteBuffer b, int at, long v) {
      switch (width) {
        case 1: b.put(at, (byte) v); break;
        case 2: b.putShort(at, (short) v); break;
        case 4: b.putInt(at, (int) v); break;
        default: b.putLong(at, v); break;
      }
    }

    String show(long v) {
      return FixedWidthModel.meaning(width, unsigned, v) + " (0x" + Long.toHexString(v) + ")";
    }
  }

  static final Ty[] TYPES = Ty.values();
  static final Op[] OPS = Op.values();
  static final int E = 12;

  /** {@value #E} distinct values per type: 0, ±1, the top bit alone and its complement in every width, alternating bits. */
  static long[] edges(Ty t) {
    if (t.logical()) {
      return new long[] {0, 1, 2, (byte) 0x80, (byte) 0xFF, 0, 1, 0x40, 0, 7, 1, 0};
    }
    long[] raw = {0, 1, -1, Long.MIN_VALUE, Long.MAX_VALUE, 0x80, 0x7F, 0x8000, 0x7FFF, 0x8000_0000L, 0x7FFF_FFFFL,
        0xAAAA_AAAA_AAAA_AAAAL, 0x5555_5555_5555_5555L, 2, -2, 3, 100, 200};
    Set<Long> distinct = new LinkedHashSet<>();
    for (long v : raw) {
      distinct.add(FixedWidthModel.narrow(t.width, v));
    }
    return distinct.stream().mapToLong(Long::longValue).limit(E).toArray();
  }

  /** Accumulate operands: a permutation of the edges, so that each edge meets others. */
  static long[] operandX(Ty t) {
    long[] e = edges(t);
    long[] x = new long[E];
    for (int i = 0; i < E; i++) {
      x[i] = e[(5 * i + 3) % E];
    }
    if (t.logical()) {
      for (int i = 0; i < E; i++) {
        x[i] = x[i] != 0 ? 1 : 0; // a boolean[] holds 0 and 1
      }
    }
    return x;
  }

  /** Get-accumulate operands: another permutation (for C_BOOL raw bytes, any true). */
  static long[] operandY(Ty t) {
    long[] e = edges(t);
    long[] y = new long[E];
    for (int i = 0; i < E; i++) {
      y[i] = e[(7 * i + 1) % E];
    }
    return y;
  }

  // ------------------------------------------------------------------ window layout

  static final int SLOT = E * 8;
  static final int GRID = TYPES.length * OPS.length * SLOT;
  static final int FAO = GRID;                        // one 16-byte slot per type: fetch-and-op and CAS
  static final int DERIVED = FAO + TYPES.length * 16; // derived-type region
  static final int DERIVED_BYTES = 256;
  static final int WINDOW = DERIVED + DERIVED_BYTES;
  /** {@link #initialImage} of ranks 0..2, made when the class loads (not on an event loop). */
  static final byte[][] IMAGES = {initialImage(0), initialImage(1), initialImage(2)};

  static int slot(Ty t, Op op) {
    return (t.ordinal() * OPS.length + op.ordinal()) * SLOT;
  }

  /** The window before any access: every grid slot holds its type's edges, the rest a byte pattern. */
  static byte[] initialImage(int rank) {
    byte[] img = new byte[WINDOW];
    for (int i = 0; i < WINDOW; i++) {
      img[i] = (byte) (31 * i + 7 * rank);
    }
    ByteBuffer b = bb(img);
    for (Ty t : TYPES) {
      long[] e = edges(t);
      for (Op op : OPS) {
        for (int i = 0; i < E; i++) {
          t.store(b, slot(t, op) + i * t.width, e[i]);
        }
      }
      t.store(b, FAO + 16 * t.ordinal(), faoStart(t));
    }
    return img;
  }

  static ByteBuffer bb(byte[] b) {
    return ByteBuffer.wrap(b).order(ByteOrder.nativeOrder());
  }

  static byte[] read(BytesStore<?, ?> s, int from, int len) {
    byte[] out = new byte[len];
    for (int i = 0; i < len; i++) {
      out[i] = s.readByte(from + i);
    }
    return out;
  }

  static void write(BytesStore<?, ?> s, byte[] data) {
    for (int i = 0; i < data.length; i++) {
      s.writeByte(i, data[i]);
    }
  }

  static void assertBytes(byte[] expected, byte[] actual, String what) {
    if (!Arrays.equals(expected, actual)) {
      int i = Arrays.mismatch(expected, actual);
      throw new AssertionError(what + ": first difference at byte " + i + " of " + expected.length + ": expected "
          + (i < expected.length ? expected[i] : "end") + " but was " + (i < actual.length ? actual[i] : "end"));
    }
  }

  static RmaException rmaCause(Throwable e) {
    for (Throwable c = e; c != null; c = c.getCause()) {
      if (c instanceof RmaException) {
        return (RmaException) c;
      }
    }
    return null;
  }

  /** A fence closing an epoch with calls rejected at the origin may report the epoch's first error. */
  static Future<Void> syncAllowing(Future<Void> sync, ErrorClass... allowed) {
    return sync.recover(e -> {
      RmaException re = rmaCause(e);
      if (re != null && Arrays.asList(allowed).contains(re.errorClass())) {
        return Future.succeededFuture();
      }
      return Future.failedFuture(e);
    });
  }

  static Future<Void> named(String what, Future<Void> f) {
    return f.recover(e -> Future.failedFuture(new AssertionError(what + ": " + e.getMessage(), e)));
  }

  static Future<Void> nextTask() {
    Promise<Void> p = Promise.promise();
    Vertx.currentContext().runOnContext(x -> p.complete());
    return p.future();
  }

  // ------------------------------------------------------------------ the accumulate grid

  /** The grid after the epoch at one target, and what each get-accumulate fetched, by the model. */
  static byte[] gridModel(int target, long[][][] fetched) {
    byte[] img = initialImage(target);
    ByteBuffer w = bb(img);
    for (Ty t : TYPES) {
      long[] x = operandX(t);
      long[] y = operandY(t);
      for (Op op : OPS) {
        long[] f = new long[E];
        Arrays.fill(f, SENTINEL);
        if (t.valid(op)) {
          for (int i = 0; i < E; i++) {
            int at = slot(t, op) + i * t.width;
            long afterAcc = t.model(op, t.load(w, at), x[i]);
            f[i] = afterAcc;
            t.store(w, at, t.model(op, afterAcc, y[i]));
          }
        }
        fetched[t.ordinal()][op.ordinal()] = f;
      }
    }
    return img;
  }

  static final long SENTINEL = 0x5A;

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void accumulateAndGetAccumulateEveryOpOnEdgeValues(Jobs.Mode mode) {
    // the model, computed here rather than on an event loop: each rank's window after the epoch,
    // and what rank t + 1 fetches from rank t
    byte[][] initial = IMAGES;
    long[][][][] fetchedFrom = new long[2][TYPES.length][OPS.length][];
    byte[][] after = {gridModel(0, fetchedFrom[0]), gridModel(1, fetchedFrom[1]), initial[2]};
    // rank 1 works on rank 0's window, rank 2 on rank 1's (clustered: 1 -> 0 crosses the codec, 2 -> 1 stays local)
    Jobs.run(mode, 3, (world, args) -> Win.allocate(world, WINDOW, 1, Info.NULL).compose(win -> {
      int r = world.rank();
      int tr = r - 1;
      write(win.memory(), initial[r]);
      Object[][] results = new Object[TYPES.length][OPS.length];
      List<Future<?>> calls = new ArrayList<>();
      Future<Void> epoch = win.fence(Mode.NOPRECEDE).compose(v -> {
        if (r == 0) {
          return Future.succeededFuture();
        }
        return Rma.repeat(TYPES.length, k -> {
          Ty t = TYPES[k];
          for (Op op : OPS) {
            Object x = t.array(operandX(t), false);
            Object y = t.array(operandY(t), true);
            long[] sentinel = new long[E];
            Arrays.fill(sentinel, SENTINEL);
            Object res = t.array(sentinel, true);
            results[k][op.ordinal()] = res;
            int at = slot(t, op);
            Future<Void> acc = win.accumulate(t.buf(x), 0, E, t.dt, tr, at, op);
            Future<Void> gacc = win.getAccumulate(t.buf(y), 0, E, t.dt, t.buf(res), 0, E, t.dt, tr, at, E, t.dt, op);
            String what = op + " on " + t;
            if (t.valid(op)) {
              calls.add(named("accumulate " + what, acc));
              calls.add(named("getAccumulate " + what, gacc));
            } else {
              calls.add(expectError(acc, ErrorClass.OP, op.mpiName(), t.dt.name()));
              calls.add(expectError(gacc, ErrorClass.OP, op.mpiName(), t.dt.name()));
              Object one = t.array(new long[] {SENTINEL}, true);
              calls.add(expectError(win.fetchAndOp(t.buf(x), 0, t.buf(one), 0, t.dt, tr, at, op), ErrorClass.OP,
                  op.mpiName(), t.dt.name()).map(z -> {
                    assertEquals(SENTINEL, Ty.get(one, 0), "a refused fetchAndOp leaves its result alone");
                    return null;
                  }));
            }
          }
          return nextTask();
        }).compose(z -> Future.all(calls)).mapEmpty();
      });
      return epoch
          .compose(v -> syncAllowing(win.fence(), ErrorClass.OP))
          .map(v -> {
            assertBytes(after[r], read(win.memory(), 0, WINDOW), r <= 1 ? "window of rank " + r + " after rank "
                + (r + 1) + "'s accumulates and get-accumulates" : "nobody touched rank " + r);
            if (r >= 1) {
              long[][][] fetched = fetchedFrom[tr];
              for (Ty t : TYPES) {
                for (Op op : OPS) {
                  Object res = results[t.ordinal()][op.ordinal()];
                  long[] expected = fetched[t.ordinal()][op.ordinal()];
                  for (int i = 0; i < E; i++) {
                    long got = Ty.get(res, i);
                    long want = FixedWidthModel.narrow(t.width, expected[i]);
                    if (got != want) {
                      throw new AssertionError("getAccumulate " + op + " on " + t + " element " + i + " at rank " + r
                          + ": fetched " + t.show(got) + ", expected " + t.show(want) + " (target value "
                          + t.show(edges(t)[i]) + ", accumulated " + t.show(operandX(t)[i]) + ")");
                    }
                  }
                }
              }
            }
            return null;
          })
          .compose(v -> win.fence(Mode.NOSUCCEED))
          .compose(v -> win.free());
    }));
    assertEquals(0, WindowMemory.live());
  }

  // ------------------------------------------------------------------ fetch-and-op and compare-and-swap

  /** The value each type's fetch-and-op slot starts with: the top bit alone (C_BOOL: 0x80, a true that is not 1). */
  static long faoStart(Ty t) {
    return FixedWidthModel.narrow(t.width, t.logical() ? 0x80 : 1L << (8 * t.width - 1));
  }

  /** The fetch-and-op steps of a type: op and operand. */
  static Object[][] faoSteps(Ty t) {
    if (t.logical()) {
      return new Object[][] {{Op.LOR, 0L}, {Op.LAND, 1L}, {Op.LXOR, 1L}, {Op.LXOR, 1L}, {Op.REPLACE, 0L},
          {Op.LOR, 1L}, {Op.NO_OP, 0L}};
    }
    long top = faoStart(t);
    return new Object[][] {{Op.MAX, 1L}, {Op.MIN, top}, {Op.SUM, -1L}, {Op.MAX, top}, {Op.SUM, 1L}, {Op.SUM, top},
        {Op.PROD, 3L}, {Op.BXOR, -1L}, {Op.MIN, 5L}, {Op.PROD, top}, {Op.BOR, top}, {Op.BAND, -1L}, {Op.LOR, 0L},
        {Op.REPLACE, -1L}, {Op.LXOR, 0L}, {Op.REPLACE, top ^ 1}, {Op.NO_OP, 0L}};
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void fetchAndOpAndCompareAndSwapChains(Jobs.Mode mode) {
    Jobs.run(mode, 3, (world, args) -> Win.allocate(world, WINDOW, 1, Info.NULL).compose(win -> {
      int r = world.rank();
      int tr = r - 1;
      write(win.memory(), IMAGES[r]);
      Future<Void> chain = win.fence();
      if (r >= 1) {
        for (Ty t : TYPES) {
          int at = FAO + 16 * t.ordinal();
          long[] cur = {faoStart(t)};
          for (Object[] s : faoSteps(t)) {
            Op op = (Op) s[0];
            long operand = FixedWidthModel.narrow(t.width, (Long) s[1]);
            Object origin = t.array(new long[] {operand}, false);
            Object result = t.array(new long[] {SENTINEL}, true);
            chain = chain.compose(v -> win.fetchAndOp(t.buf(origin), 0, t.buf(result), 0, t.dt, tr, at, op)).map(v -> {
              long want = cur[0];
              long got = Ty.get(result, 0);
              if (got != want) {
                throw new AssertionError("fetchAndOp " + op + " " + t.show(operand) + " on " + t + " at rank " + r
                    + " fetched " + t.show(got) + ", expected " + t.show(want));
              }
              cur[0] = t.model(op, cur[0], t.logical() ? (operand != 0 ? 1 : 0) : operand);
              return null;
            });
          }
          // compare-and-swap: a matching compare swaps (the top bit set in both), a stale one does not
          // (C_BOOL: the raw byte 2, a true whose bits differ from the 1 the chain left)
          long swapIn = FixedWidthModel.narrow(t.width, t.logical() ? 2 : 0xA5A5_A5A5_A5A5_A5A5L);
          Object casResult = t.array(new long[] {SENTINEL}, true);
          Object casResult2 = t.array(new long[] {SENTINEL}, true);
          Object casResult3 = t.array(new long[] {SENTINEL}, true);
          chain = chain.compose(v -> {
            Object compare = t.array(new long[] {cur[0]}, true);
            Object value = t.array(new long[] {swapIn}, true);
            return win.compareAndSwap(t.buf(value), 0, t.buf(compare), 0, t.buf(casResult), 0, t.dt, tr, at);
          }).compose(v -> {
            assertEquals(cur[0], Ty.get(casResult, 0), "compareAndSwap (matching) on " + t + " fetched the old value");
            Object stale = t.array(new long[] {cur[0]}, true);
            Object value = t.array(new long[] {FixedWidthModel.narrow(t.width, t.logical() ? 0 : 7)}, true);
            return win.compareAndSwap(t.buf(value), 0, t.buf(stale), 0, t.buf(casResult2), 0, t.dt, tr, at);
          }).compose(v -> {
            assertEquals(swapIn, Ty.get(casResult2, 0), "compareAndSwap (stale compare) on " + t + " fetched the swapped-in value");
            // the top bit of an unsigned value does not make it compare as a different number: bits are compared
            Object compare = t.array(new long[] {swapIn}, true);
            Object value = t.array(new long[] {faoStart(t)}, true);
            return win.compareAndSwap(t.buf(value), 0, t.buf(compare), 0, t.buf(casResult3), 0, t.dt, tr, at);
          }).map(v -> {
            assertEquals(swapIn, Ty.get(casResult3, 0), "compareAndSwap back on " + t);
            return null;
          });
        }
      }
      return chain
          .compose(v -> win.fence())
          .map(v -> {
            byte[] expected = IMAGES[r];
            // each chain ends with the slot back at its start value: the window is as it was
            assertBytes(expected, read(win.memory(), 0, WINDOW), "window of rank " + r + " after the fetch-and-op and "
                + "compare-and-swap chains");
            return null;
          })
          .compose(v -> win.fence(Mode.NOSUCCEED))
          .compose(v -> win.free());
    }));
    assertEquals(0, WindowMemory.live());
  }

  // ------------------------------------------------------------------ refused calls leave the window alone

  /** A call expected to fail with an error class, naming some parts. */
  private record Refused(String what, Supplier<Future<?>> call, ErrorClass cls, String... parts) {
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void wrongArrayKindsAndRefusedOpsFailAndLeaveTheWindowAlone(Jobs.Mode mode) {
    Jobs.run(mode, 3, (world, args) -> Win.allocate(world, WINDOW, 1, Info.NULL).compose(win -> {
      int r = world.rank();
      int tr = (r + world.size() - 1) % world.size();
      write(win.memory(), IMAGES[r]);
      long[] longs = {-1, -1};
      int[] ints = {-1, -1};
      short[] shorts = {-1, -1};
      byte[] bytes = {-1, -1};
      boolean[] bools = {true, true};
      int at = slot(Ty.UINT64, Op.SUM);
      List<Refused> refused = List.of(
          // arrays of the wrong kind: TYPE
          new Refused("put int[] as UINT64", () -> win.put(Buf.of(new int[] {1, 2}), 0, 1, Datatype.UINT64, tr, at),
              ErrorClass.TYPE, "int[]", "UINT64", "long[]"),
          new Refused("put long[] as INT32", () -> win.put(Buf.of(new long[] {1}), 0, 1, Datatype.INT32, tr, at),
              ErrorClass.TYPE, "long[]", "INT32", "int[]"),
          new Refused("accumulate short[] as UINT32", () -> win.accumulate(Buf.of(new short[] {1, 2}), 0, 1,
              Datatype.UINT32, tr, at, Op.SUM), ErrorClass.TYPE, "short[]", "UINT32"),
          new Refused("accumulate char[] as UINT16", () -> win.accumulate(Buf.of(new char[] {1}), 0, 1,
              Datatype.UINT16, tr, at, Op.MAX), ErrorClass.TYPE, "char[]", "UINT16", "short[]"),
          new Refused("accumulate boolean[] as UINT8", () -> win.accumulate(Buf.of(new boolean[] {true}), 0, 1,
              Datatype.UINT8, tr, at, Op.LOR), ErrorClass.TYPE, "boolean[]", "UINT8"),
          new Refused("accumulate short[] as INT8", () -> win.accumulate(Buf.of(new short[] {1}), 0, 1,
              Datatype.INT8, tr, at, Op.SUM), ErrorClass.TYPE, "short[]", "INT8", "byte[]"),
          new Refused("getAccumulate into a long[] result as INT32", () -> win.getAccumulate(Buf.of(new int[] {1}), 0,
              1, Datatype.INT32, Buf.of(longs), 0, 1, Datatype.INT32, tr, at, 1, Datatype.INT32, Op.SUM),
              ErrorClass.TYPE, "long[]", "INT32"),
          new Refused("fetchAndOp of a long[] as INT16", () -> win.fetchAndOp(Buf.of(new long[] {1}), 0, Buf.of(shorts),
              0, Datatype.INT16, tr, at, Op.SUM), ErrorClass.TYPE, "long[]", "INT16"),
          new Refused("fetchAndOp into an int[] as UINT64", () -> win.fetchAndOp(Buf.of(new long[] {1}), 0, Buf.of(ints),
              0, Datatype.UINT64, tr, at, Op.MAX), ErrorClass.TYPE, "int[]", "UINT64"),
          new Refused("compareAndSwap with an int[] compare as C_BOOL", () -> win.compareAndSwap(Buf.of(bools), 0,
              Buf.of(new int[] {1}), 0, Buf.of(bytes), 0, Datatype.C_BOOL, tr, at), ErrorClass.TYPE, "int[]", "C_BOOL"),
          new Refused("compareAndSwap into a short[] as UINT32", () -> win.compareAndSwap(Buf.of(new int[] {1}), 0,
              Buf.of(new int[] {1}), 0, Buf.of(shorts), 0, Datatype.UINT32, tr, at), ErrorClass.TYPE, "short[]", "UINT32"),
          new Refused("put long[] as contiguous(2, UINT32)", () -> win.put(Buf.of(new long[] {1}), 0, 1,
              Datatype.contiguous(2, Datatype.UINT32).commit(), tr, at), ErrorClass.TYPE, "long[]", "UINT32"),
          // a type signature that differs: INT is not INT32, INT64 not UINT64
          new Refused("accumulate INT into INT32", () -> win.accumulate(Buf.of(new int[] {1}), 0, 1, Datatype.INT, tr,
              at, 1, Datatype.INT32, Op.SUM), ErrorClass.TYPE, "INT", "INT32"),
          new Refused("put INT64 into UINT64", () -> win.put(Buf.of(new long[] {1}), 0, 1, Datatype.INT64, tr, at, 1,
              Datatype.UINT64), ErrorClass.TYPE, "INT64", "UINT64"),
          // ops MPI does not define on the type: OP
          new Refused("accumulate SUM on BYTE", () -> win.accumulate(Buf.of(new byte[] {1}), 0, 1, Datatype.BYTE, tr,
              at, Op.SUM), ErrorClass.OP, "MPI_SUM", "BYTE"),
          new Refused("accumulate SUM on C_BOOL", () -> win.accumulate(Buf.of(bools), 0, 2, Datatype.C_BOOL, tr, at,
              Op.SUM), ErrorClass.OP, "MPI_SUM", "C_BOOL"),
          new Refused("accumulate BOR on C_BOOL", () -> win.accumulate(Buf.of(bools), 0, 2, Datatype.C_BOOL, tr, at,
              Op.BOR), ErrorClass.OP, "MPI_BOR", "C_BOOL"),
          new Refused("getAccumulate MAX on C_BOOL", () -> win.getAccumulate(Buf.of(bools), 0, 1, Datatype.C_BOOL,
              Buf.of(bytes), 0, 1, Datatype.C_BOOL, tr, at, 1, Datatype.C_BOOL, Op.MAX), ErrorClass.OP, "MPI_MAX", "C_BOOL"),
          new Refused("fetchAndOp PROD on C_BOOL", () -> win.fetchAndOp(Buf.of(bools), 0, Buf.of(bytes), 0,
              Datatype.C_BOOL, tr, at, Op.PROD), ErrorClass.OP, "MPI_PROD", "C_BOOL"),
          new Refused("accumulate MAXLOC on UINT64", () -> win.accumulate(Buf.of(longs), 0, 2, Datatype.UINT64, tr,
              at, Op.MAXLOC), ErrorClass.OP, "MPI_MAXLOC", "UINT64"),
          new Refused("accumulate SUM on contiguous(2, C_BOOL)", () -> win.accumulate(
              Buf.of(bools), 0, 1, Datatype.contiguous(2, Datatype.C_BOOL).commit(), tr, at, Op.SUM), ErrorClass.OP,
              "MPI_SUM", "C_BOOL"),
          new Refused("fetchAndOp MINLOC on INT8", () -> win.fetchAndOp(Buf.of(bytes), 0, Buf.of(new byte[2]), 0,
              Datatype.INT8, tr, at, Op.MINLOC), ErrorClass.OP, "MPI_MINLOC", "INT8"));
      Future<Void> chain = win.fence();
      for (Refused c : refused) {
        chain = chain.compose(v -> {
          Future<?> f;
          try {
            f = c.call().get();
          } catch (RuntimeException e) {
            f = Future.failedFuture(e);
          }
          return named(c.what(), expectError(f, c.cls(), c.parts()));
        });
      }
      return chain
          .compose(v -> syncAllowing(win.fence(), ErrorClass.OP, ErrorClass.TYPE))
          .map(v -> {
            assertBytes(IMAGES[r], read(win.memory(), 0, WINDOW), "window of rank " + r + " after the refused calls");
            assertArrayEquals(new long[] {-1, -1}, longs, "refused calls leave the long[] result alone");
            assertArrayEquals(new int[] {-1, -1}, ints);
            assertArrayEquals(new short[] {-1, -1}, shorts);
            assertArrayEquals(new byte[] {-1, -1}, bytes);
            return null;
          })
          .compose(v -> win.fence(Mode.NOSUCCEED))
          .compose(v -> win.free());
    }));
    assertEquals(0, WindowMemory.live());
  }

  // ------------------------------------------------------------------ derived types, put/get, allreduce

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void derivedTypesOfTheNewKinds(Jobs.Mode mode) {
    Jobs.run(mode, 3, (world, args) -> Win.allocate(world, WINDOW, 1, Info.NULL).compose(win -> {
      int r = world.rank();
      int tr = r - 1;
      byte[] init = IMAGES[r].clone();
      ByteBuffer ib = bb(init);
      // the derived region: 4 UINT64 at +0 (8 apart with gaps of 8), 6 INT8 at +64, 4 UINT16 at +80, 4 C_BOOL at +96
      long[] u64 = {-1L, 1L, Long.MIN_VALUE, 0L};
      for (int i = 0; i < 4; i++) {
        ib.putLong(DERIVED + 16 * i, u64[i]);
      }
      byte[] i8 = {127, -128, 9, 9, 100, 9};
      for (int i = 0; i < 6; i++) {
        ib.put(DERIVED + 64 + i, i8[i]);
      }
      short[] u16 = {(short) 0xFFFF, 77, 0x100, (short) 0x8000};
      for (int i = 0; i < 4; i++) {
        ib.putShort(DERIVED + 80 + 2 * i, u16[i]);
      }
      byte[] cb = {0, (byte) 0x80, 2, 0};
      for (int i = 0; i < 4; i++) {
        ib.put(DERIVED + 96 + i, cb[i]);
      }
      write(win.memory(), init);
      Datatype vec = Datatype.vector(4, 1, 2, Datatype.UINT64).commit();       // every other UINT64
      Datatype idx = Datatype.indexed(new int[] {2, 1}, new int[] {0, 4}, Datatype.INT8).commit();
      Datatype st = Datatype.struct(new int[] {1, 2}, new long[] {0, 4},
          new Datatype[] {Datatype.UINT16, Datatype.UINT16}).commit();        // elements 0, 2, 3
      Datatype bools = Datatype.contiguous(4, Datatype.C_BOOL).commit();
      Datatype pairOfU32 = Datatype.contiguous(2, Datatype.UINT32).commit();
      long[] minOperand = {1L, -1L, Long.MAX_VALUE, Long.MIN_VALUE};
      byte[] addOperand = {1, -1, 100};
      short[] prodOperand = {(short) 0xFFFF, 0x100, 2};
      boolean[] xorOperand = {true, true, false, false};
      byte[] i8Fetched = {-9, -9, -9};
      short[] u16Fetched = {-9, -9, -9, -9};
      int[] putU32 = {-1, 0x8000_0000, 7, 0};
      int[] gotU32 = new int[4];
      Future<Void> epoch = win.fence();
      if (r >= 1) {
        epoch = epoch.compose(v -> Future.all(List.of(
            named("accumulate MIN UINT64 into a vector", win.accumulate(Buf.of(minOperand), 0, 4, Datatype.UINT64, tr,
                DERIVED, 1, vec, Op.MIN)),
            named("getAccumulate SUM INT8 into an indexed type", win.getAccumulate(Buf.of(addOperand), 0, 3,
                Datatype.INT8, Buf.of(i8Fetched), 0, 3, Datatype.INT8, tr, DERIVED + 64, 1, idx, Op.SUM)),
            named("getAccumulate PROD UINT16 into a struct", win.getAccumulate(Buf.of(prodOperand), 0, 3,
                Datatype.UINT16, Buf.of(u16Fetched), 0, 1, Datatype.contiguous(3, Datatype.UINT16).commit(), tr,
                DERIVED + 80, 1, st, Op.PROD)),
            named("accumulate LXOR of a boolean[] into contiguous(4, C_BOOL)", win.accumulate(Buf.of(xorOperand), 0, 1,
                bools, tr, DERIVED + 96, 1, bools, Op.LXOR)),
            named("put two contiguous(2, UINT32)", win.put(Buf.of(putU32), 0, 2, pairOfU32, tr, DERIVED + 112))))
            .mapEmpty());
      }
      return epoch
          .compose(v -> win.fence())
          .compose(v -> r >= 1 ? win.get(Buf.of(gotU32), 0, 4, Datatype.UINT32, tr, DERIVED + 112)
              : Future.<Void>succeededFuture())
          .compose(v -> win.fence(Mode.NOSUCCEED))
          .map(v -> {
            if (r <= 1) {
              byte[] expected = init.clone();
              ByteBuffer e = bb(expected);
              // MIN unsigned: min(2^64-1, 1) = 1, min(1, 2^64-1) = 1, min(2^63, 2^63-1) = 2^63-1, min(0, 2^63) = 0
              long[] mins = {1L, 1L, Long.MAX_VALUE, 0L};
              for (int i = 0; i < 4; i++) {
                e.putLong(DERIVED + 16 * i, mins[i]);
              }
              // SUM INT8 at 0, 1, 4: 127 + 1 = -128, -128 - 1 = 127, 100 + 100 = -56
              e.put(DERIVED + 64, (byte) -128).put(DERIVED + 65, (byte) 127).put(DERIVED + 68, (byte) -56);
              // PROD UINT16 at 0, 2, 3: 0xFFFF * 0xFFFF = 1, 0x100 * 0x100 = 0, 0x8000 * 2 = 0 (mod 2^16)
              e.putShort(DERIVED + 80, (short) 1).putShort(DERIVED + 84, (short) 0).putShort(DERIVED + 86, (short) 0);
              // LXOR C_BOOL: (false, true) -> 1, (true, true) -> 0, (true, false) -> 1, (false, false) -> 0
              e.put(DERIVED + 96, (byte) 1).put(DERIVED + 97, (byte) 0).put(DERIVED + 98, (byte) 1).put(DERIVED + 99,
                  (byte) 0);
              for (int i = 0; i < 4; i++) {
                e.putInt(DERIVED + 112 + 4 * i, putU32[i]);
              }
              assertBytes(expected, read(win.memory(), 0, WINDOW), "window of rank " + r + " after the derived-type calls");
            } else {
              assertBytes(init, read(win.memory(), 0, WINDOW), "nobody touched rank " + r);
            }
            if (r >= 1) {
              assertArrayEquals(new byte[] {127, -128, 100}, i8Fetched, "INT8 values fetched through the indexed type");
              assertArrayEquals(new short[] {(short) 0xFFFF, 0x100, (short) 0x8000, -9}, u16Fetched,
                  "UINT16 values fetched through the struct");
              assertArrayEquals(putU32, gotU32, "UINT32 values put and got back");
            }
            return null;
          })
          .compose(v -> win.free());
    }));
    assertEquals(0, WindowMemory.live());
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void allreduceUsesTheSameKernel(Jobs.Mode mode) {
    Jobs.run(mode, 3, (world, args) -> {
      int r = world.rank();
      long[] u64 = {r == 2 ? -1L : r, Long.MIN_VALUE + r, r == 1 ? -1L : 1L};
      long[] max = new long[3];
      long[] sum = new long[3];
      byte[] u8 = {(byte) (100 + 50 * r), (byte) (0x80 >> r)};
      byte[] u8max = new byte[2];
      boolean[] flags = {r == 1, true, r == 0};
      boolean[] lor = new boolean[3];
      boolean[] land = new boolean[3];
      return world.allreduce(Buf.of(u64), 0, Buf.of(max), 0, 3, Datatype.UINT64, Op.MAX)
          .compose(v -> world.allreduce(Buf.of(u64), 0, Buf.of(sum), 0, 3, Datatype.UINT64, Op.SUM))
          .compose(v -> world.allreduce(Buf.of(u8), 0, Buf.of(u8max), 0, 2, Datatype.UINT8, Op.MAX))
          .compose(v -> world.allreduce(Buf.of(flags), 0, Buf.of(lor), 0, 3, Datatype.C_BOOL, Op.LOR))
          .compose(v -> world.allreduce(Buf.of(flags), 0, Buf.of(land), 0, 3, Datatype.C_BOOL, Op.LAND))
          .compose(v -> expectError(world.allreduce(Buf.of(flags), 0, Buf.of(land), 0, 3, Datatype.C_BOOL, Op.SUM),
              ErrorClass.OP, "MPI_SUM", "C_BOOL"))
          .map(v -> {
            assertArrayEquals(new long[] {-1L, Long.MIN_VALUE + 2, -1L}, max, "UINT64 MAX at rank " + r);
            // 0 + 1 + (2^64 - 1) = 0, 3 * 2^63 + 3 = 2^63 + 3, 1 + (2^64 - 1) + 1 = 1 (mod 2^64)
            assertArrayEquals(new long[] {0L, Long.MIN_VALUE + 3, 1L}, sum, "UINT64 SUM (mod 2^64) at rank " + r);
            assertArrayEquals(new byte[] {(byte) 200, (byte) 0x80}, u8max, "UINT8 MAX at rank " + r);
            assertArrayEquals(new boolean[] {true, true, true}, lor, "C_BOOL LOR at rank " + r);
            assertArrayEquals(new boolean[] {false, true, false}, land, "C_BOOL LAND at rank " + r);
            return null;
          });
    });
  }
}
