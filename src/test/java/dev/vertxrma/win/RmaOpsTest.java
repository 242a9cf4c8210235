package dev.vertxrma.win;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.Buf;
import dev.vertxrma.Comm;
import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Group;
import dev.vertxrma.Info;
import dev.vertxrma.Mode;
import dev.vertxrma.Op;
import dev.vertxrma.Rma;
import dev.vertxrma.RmaException;
import dev.vertxrma.Win;
import dev.vertxrma.impl.memory.WindowMemory;
import dev.vertxrma.testing.AnyBuf;
import dev.vertxrma.testing.Jobs;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.Supplier;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every predefined operation on every predefined datatype (the fixed-width and unsigned integers
 * and C_BOOL included) through accumulate and get-accumulate,
 * put/get of every type, fetch-and-op and compare-and-swap, MPI's op/type table, per-rank sizes
 * and displacement units, PROC_NULL, and windows over the caller's memory. Every result is
 * compared byte by byte with a sequential Java model of the same operations.
 */
class RmaOpsTest {

  // ------------------------------------------------------------------ the sequential model

  enum Cls { INT, FLT, LOG, BYTE, PAIR }

  /** The predefined types, described independently of the library. */
  enum T {
    BYTE(Datatype.BYTE, 1, 1, Cls.BYTE, 0),
    CHAR(Datatype.CHAR, 2, 2, Cls.INT, 0),
    SHORT(Datatype.SHORT, 2, 2, Cls.INT, 0),
    INT(Datatype.INT, 4, 4, Cls.INT, 0),
    LONG(Datatype.LONG, 8, 8, Cls.INT, 0),
    FLOAT(Datatype.FLOAT, 4, 4, Cls.FLT, 0),
    DOUBLE(Datatype.DOUBLE, 8, 8, Cls.FLT, 0),
    BOOLEAN(Datatype.BOOLEAN, 1, 1, Cls.LOG, 0),
    AINT(Datatype.AINT, 8, 8, Cls.INT, 0),
    INT_INT(Datatype.INT_INT, 8, 8, Cls.PAIR, 4),
    LONG_INT(Datatype.LONG_INT, 12, 16, Cls.PAIR, 8),
    FLOAT_INT(Datatype.FLOAT_INT, 8, 8, Cls.PAIR, 4),
    DOUBLE_INT(Datatype.DOUBLE_INT, 12, 16, Cls.PAIR, 8),
    INT8(Datatype.INT8, 1, 1, Cls.INT, 0),
    INT16(Datatype.INT16, 2, 2, Cls.INT, 0),
    INT32(Datatype.INT32, 4, 4, Cls.INT, 0),
    INT64(Datatype.INT64, 8, 8, Cls.INT, 0),
    UINT8(Datatype.UINT8, 1, 1, Cls.INT, 0),
    UINT16(Datatype.UINT16, 2, 2, Cls.INT, 0),
    UINT32(Datatype.UINT32, 4, 4, Cls.INT, 0),
    UINT64(Datatype.UINT64, 8, 8, Cls.INT, 0),
    C_BOOL(Datatype.C_BOOL, 1, 1, Cls.LOG, 0);

    final Datatype dt;
    final int size;
    final int extent;
    final Cls cls;
    /** For pairs: bytes of the value part (the index follows it). */
    final int valueSize;

    T(Datatype dt, int size, int extent, Cls cls, int valueSize) {
      this.dt = dt;
      this.size = size;
      this.extent = extent;
      this.cls = cls;
      this.valueSize = valueSize;
    }

    boolean pairFloating() {
      return this == FLOAT_INT || this == DOUBLE_INT;
    }

    /** CHAR and UINT8..UINT64: zero-extended, MAX/MIN compare unsigned. */
    boolean unsigned() {
      return this == CHAR || name().startsWith("UINT");
    }

    /** A Java boolean[] holds it (origins), a byte[] any byte (results). */
    boolean bool() {
      return this == BOOLEAN || this == C_BOOL;
    }

    /** Origin/result buffer offset: one element in (typed arrays count elements, byte[] counts bytes). */
    int offset() {
      return cls == Cls.PAIR ? extent : 1;
    }
  }

  /** MPI's table of which predefined operation is defined on which type class. */
  static boolean valid(Op op, T t) {
    switch (op) {
      case SUM: case PROD: case MAX: case MIN:
        return t.cls == Cls.INT || t.cls == Cls.FLT;
      case LAND: case LOR: case LXOR:
        return t.cls == Cls.INT || t.cls == Cls.LOG;
      case BAND: case BOR: case BXOR:
        return t.cls == Cls.INT || t.cls == Cls.BYTE;
      case MAXLOC: case MINLOC:
        return t.cls == Cls.PAIR;
      case REPLACE: case NO_OP:
        return true;
      default:
        throw new IllegalStateException();
    }
  }

  static ByteBuffer bb(byte[] b) {
    return ByteBuffer.wrap(b).order(ByteOrder.nativeOrder());
  }

  static long loadLong(T t, ByteBuffer b, int at) {
    if (t.cls == Cls.FLT || t.cls == Cls.PAIR) {
      throw new IllegalStateException(t.name());
    }
    switch (t.size) {
      case 1: return t.unsigned() ? Byte.toUnsignedLong(b.get(at)) : b.get(at);
      case 2: return t.unsigned() ? b.getChar(at) : b.getShort(at);
      case 4: return t.unsigned() ? Integer.toUnsignedLong(b.getInt(at)) : b.getInt(at);
      default: return b.getLong(at);
    }
  }

  static void storeLong(T t, ByteBuffer b, int at, long v) {
    if (t.cls == Cls.FLT || t.cls == Cls.PAIR) {
      throw new IllegalStateException(t.name());
    }
    switch (t.size) {
      case 1: b.put(at, (byte) v); break;
      case 2: b.putShort(at, (short) v); break;
      case 4: b.putInt(at, (int) v); break;
      default: b.putLong(at, v); break;
    }
  }

  static double loadDouble(T t, ByteBuffer b, int at) {
    return t.size == 4 || t == T.FLOAT_INT ? b.getFloat(at) : b.getDouble(at);
  }

  static void storeDouble(T t, ByteBuffer b, int at, double v) {
    if (t == T.FLOAT) {
      b.putFloat(at, (float) v);
    } else {
      b.putDouble(at, v);
    }
  }

  /** Sequential reference: element {@code dst[d] = dst[d] op src[s]} of type {@code t}. */
  static void combine(T t, Op op, ByteBuffer dst, int d, ByteBuffer src, int s) {
    if (op == Op.NO_OP) {
      return;
    }
    if (op == Op.REPLACE) {
      for (int i = 0; i < t.size; i++) {
        dst.put(d + i, src.get(s + i));
      }
      return;
    }
    if (t.cls == Cls.PAIR) {
      double sv;
      double dv;
      if (t.pairFloating()) {
        sv = t == T.FLOAT_INT ? src.getFloat(s) : src.getDouble(s);
        dv = t == T.FLOAT_INT ? dst.getFloat(d) : dst.getDouble(d);
      } else {
        sv = t.valueSize == 4 ? src.getInt(s) : src.getLong(s);
        dv = t.valueSize == 4 ? dst.getInt(d) : dst.getLong(d);
      }
      int si = src.getInt(s + t.valueSize);
      int di = dst.getInt(d + t.valueSize);
      if (sv == dv) {
        dst.putInt(d + t.valueSize, Math.min(si, di));
      } else if (op == Op.MAXLOC ? sv > dv : sv < dv) {
        for (int i = 0; i < t.size; i++) {
          dst.put(d + i, src.get(s + i));
        }
      }
      return;
    }
    if (t.cls == Cls.FLT) {
      double a = loadDouble(t, dst, d);
      double b = loadDouble(t, src, s);
      double r;
      switch (op) {
        case SUM: r = a + b; break;
        case PROD: r = a * b; break;
        case MAX: r = Math.max(a, b); break;
        case MIN: r = Math.min(a, b); break;
        default: throw new IllegalStateException(op + " on " + t);
      }
      storeDouble(t, dst, d, r);
      return;
    }
    long a = loadLong(t, dst, d);
    long b = loadLong(t, src, s);
    long r;
    switch (op) {
      case SUM: r = a + b; break;
      case PROD: r = a * b; break;
      case MAX: r = t.unsigned() ? (Long.compareUnsigned(a, b) >= 0 ? a : b) : Math.max(a, b); break;
      case MIN: r = t.unsigned() ? (Long.compareUnsigned(a, b) <= 0 ? a : b) : Math.min(a, b); break;
      case LAND: r = a != 0 && b != 0 ? 1 : 0; break;
      case LOR: r = a != 0 || b != 0 ? 1 : 0; break;
      case LXOR: r = (a != 0) != (b != 0) ? 1 : 0; break;
      case BAND: r = a & b; break;
      case BOR: r = a | b; break;
      case BXOR: r = a ^ b; break;
      default: throw new IllegalStateException(op + " on " + t);
    }
    storeLong(t, dst, d, r);
  }

  /**
   * Writes one element of {@code t} (the whole extent: padding gets random bytes) with values
   * that keep every result exact: small numbers for SUM/PROD, 0/1/other for the logical ops,
   * ties for MAXLOC/MINLOC, wide values otherwise. BOOLEAN origins are 0/1 (a Java boolean[]);
   * BOOLEAN window bytes may be any "true".
   */
  static void genElement(T t, Op op, Random rnd, boolean origin, ByteBuffer b, int at) {
    for (int i = 0; i < t.extent; i++) {
      b.put(at + i, (byte) rnd.nextInt());
    }
    boolean small = op == Op.SUM || op == Op.PROD;
    boolean logic = op == Op.LAND || op == Op.LOR || op == Op.LXOR;
    switch (t.cls) {
      case PAIR: {
        int v = rnd.nextInt(5) - 2;
        if (t.pairFloating()) {
          if (t == T.FLOAT_INT) {
            b.putFloat(at, v / 2f);
          } else {
            b.putDouble(at, v / 2.0);
          }
        } else if (t.valueSize == 4) {
          b.putInt(at, v);
        } else {
          b.putLong(at, v * 0x1_0000_0001L);
        }
        b.putInt(at + t.valueSize, rnd.nextInt(1000));
        return;
      }
      case FLT: {
        double v = small ? (rnd.nextInt(13) - 6) / 2.0 : (rnd.nextInt(2_000_001) - 1_000_000) / 4.0;
        storeDouble(t, b, at, v);
        return;
      }
      case LOG: {
        long[] choices = origin ? new long[] {0, 1} : new long[] {0, 1, 3};
        storeLong(t, b, at, choices[rnd.nextInt(choices.length)]);
        return;
      }
      case BYTE:
        return; // random bits already
      default: {
        long v;
        if (small) {
          v = t == T.CHAR ? rnd.nextInt(6) : rnd.nextInt(7) - 3;
        } else if (logic) {
          long[] choices = t == T.CHAR ? new long[] {0, 0, 1, 7, 65535} : new long[] {0, 0, 1, -1, 7};
          v = choices[rnd.nextInt(choices.length)];
        } else {
          v = rnd.nextLong();
        }
        storeLong(t, b, at, v);
      }
    }
  }

  /** {@code n} generated elements laid out after one dummy element (the buffer offset skips it). */
  static byte[] genData(T t, Op op, long seed, int n, boolean origin) {
    Random rnd = new Random(seed);
    byte[] out = new byte[(n + 1) * t.extent];
    ByteBuffer b = bb(out);
    for (int i = 0; i <= n; i++) {
      genElement(t, op, rnd, origin, b, i * t.extent);
    }
    return out;
  }

  /** The Java array the API takes for {@code t}, holding {@code bytes} (pairs and result BOOLEANs: byte[]). */
  static Object typed(T t, byte[] bytes, boolean forResult) {
    ByteBuffer b = bb(bytes);
    switch (t) {
      case CHAR: { char[] a = new char[bytes.length / 2]; b.asCharBuffer().get(a); return a; }
      case SHORT: case INT16: case UINT16: { short[] a = new short[bytes.length / 2]; b.asShortBuffer().get(a); return a; }
      case INT: case INT32: case UINT32: { int[] a = new int[bytes.length / 4]; b.asIntBuffer().get(a); return a; }
      case LONG: case AINT: case INT64: case UINT64: { long[] a = new long[bytes.length / 8]; b.asLongBuffer().get(a); return a; }
      case FLOAT: { float[] a = new float[bytes.length / 4]; b.asFloatBuffer().get(a); return a; }
      case DOUBLE: { double[] a = new double[bytes.length / 8]; b.asDoubleBuffer().get(a); return a; }
      case BOOLEAN: case C_BOOL:
        if (!forResult) {
          boolean[] a = new boolean[bytes.length];
          for (int i = 0; i < a.length; i++) {
            a[i] = bytes[i] != 0;
          }
          return a;
        }
        return bytes.clone();
      default:
        return bytes.clone();
    }
  }

  /** The bytes of a primitive array, native order. */
  static byte[] bytesOf(Object a) {
    if (a instanceof byte[]) {
      return ((byte[]) a).clone();
    }
    if (a instanceof boolean[]) {
      boolean[] z = (boolean[]) a;
      byte[] out = new byte[z.length];
      for (int i = 0; i < z.length; i++) {
        out[i] = (byte) (z[i] ? 1 : 0);
      }
      return out;
    }
    ByteBuffer b;
    if (a instanceof char[]) {
      b = ByteBuffer.allocate(((char[]) a).length * 2).order(ByteOrder.nativeOrder());
      b.asCharBuffer().put((char[]) a);
    } else if (a instanceof short[]) {
      b = ByteBuffer.allocate(((short[]) a).length * 2).order(ByteOrder.nativeOrder());
      b.asShortBuffer().put((short[]) a);
    } else if (a instanceof int[]) {
      b = ByteBuffer.allocate(((int[]) a).length * 4).order(ByteOrder.nativeOrder());
      b.asIntBuffer().put((int[]) a);
    } else if (a instanceof long[]) {
      b = ByteBuffer.allocate(((long[]) a).length * 8).order(ByteOrder.nativeOrder());
      b.asLongBuffer().put((long[]) a);
    } else if (a instanceof float[]) {
      b = ByteBuffer.allocate(((float[]) a).length * 4).order(ByteOrder.nativeOrder());
      b.asFloatBuffer().put((float[]) a);
    } else {
      b = ByteBuffer.allocate(((double[]) a).length * 8).order(ByteOrder.nativeOrder());
      b.asDoubleBuffer().put((double[]) a);
    }
    return b.array();
  }

  static byte[] read(BytesStore<?, ?> s, long from, int len) {
    byte[] out = new byte[len];
    s.read(from, out, 0, len); // one bulk copy, as write
    return out;
  }

  static void write(BytesStore<?, ?> s, long at, byte[] data) {
    s.write(at, data, 0, data.length); // one bulk copy: a byte loop runs interpreted on a cold JVM's event loop
  }

  static void assertBytes(byte[] expected, byte[] actual, String what) {
    if (!Arrays.equals(expected, actual)) {
      int i = Arrays.mismatch(expected, actual);
      throw new AssertionError(what + ": first difference at byte " + i + " of " + expected.length + ": expected "
          + (i < expected.length ? expected[i] : "end") + " but was " + (i < actual.length ? actual[i] : "end"));
    }
  }

  /** The RmaException in a failure's cause chain, or null. */
  static RmaException rmaCause(Throwable e) {
    for (Throwable c = e; c != null; c = c.getCause()) {
      if (c instanceof RmaException) {
        return (RmaException) c;
      }
    }
    return null;
  }

  /** Succeeds iff {@code f} failed with an RmaException of {@code cls} whose message contains every part. */
  static Future<Void> expectFailure(String what, Future<?> f, ErrorClass cls, String... parts) {
    return f.transform(ar -> {
      if (ar.succeeded()) {
        return Future.failedFuture(new AssertionError(what + ": expected " + cls + " but the call succeeded"));
      }
      RmaException e = rmaCause(ar.cause());
      if (e == null) {
        return Future.failedFuture(new AssertionError(what + ": expected RmaException " + cls + ", got " + ar.cause(),
            ar.cause()));
      }
      if (e.errorClass() != cls) {
        return Future.failedFuture(new AssertionError(what + ": expected " + cls + " but got " + e.errorClass() + ": "
            + e.getMessage(), e));
      }
      for (String p : parts) {
        if (!e.getMessage().contains(p)) {
          return Future.failedFuture(new AssertionError(what + ": message \"" + e.getMessage() + "\" does not name "
              + "\"" + p + "\""));
        }
      }
      return Future.succeededFuture();
    });
  }

  /** Same, for a call that may also throw synchronously. */
  static Future<Void> expectFailure(String what, Supplier<Future<?>> call, ErrorClass cls, String... parts) {
    Future<?> f;
    try {
      f = call.get();
    } catch (RuntimeException e) {
      f = Future.failedFuture(e);
    }
    return expectFailure(what, f, cls, parts);
  }

  /**
   * A synchronization call closing an epoch in which calls were rejected at the origin: the Win
   * contract lets it report the epoch's first error after synchronizing, so a failure of one of
   * the {@code allowed} classes counts as completion; anything else fails.
   */
  static Future<Void> syncAllowing(Future<Void> sync, ErrorClass... allowed) {
    return sync.recover(e -> {
      RmaException re = rmaCause(e);
      if (re != null && Arrays.asList(allowed).contains(re.errorClass())) {
        return Future.succeededFuture();
      }
      return Future.failedFuture(e);
    });
  }

  static Future<Void> all(List<Future<?>> fs) {
    return Future.all(new ArrayList<>(fs)).mapEmpty();
  }

  // ------------------------------------------------------------------ accumulate grid

  static final int N = 6;
  static final int SLOT = N * 16;
  static final Op[] OPS = Op.values();
  static final T[] TYPES = T.values();
  static final int COMBOS = OPS.length * TYPES.length;
  static final int PUT_BASE = COMBOS * SLOT;
  static final int GRID_BYTES = PUT_BASE + TYPES.length * SLOT + 64;

  static int comboBase(Op op, T t) {
    return (op.ordinal() * TYPES.length + t.ordinal()) * SLOT;
  }

  static long seed(int target, int k, int role) {
    return 1_000_003L * target + 7919L * k + role;
  }

  /** The window of target {@code tr} before the epoch: random bytes, then per combination its initial elements. */
  static byte[] initImage(int tr) {
    byte[] img = new byte[GRID_BYTES];
    new Random(seed(tr, -1, 0)).nextBytes(img);
    ByteBuffer b = bb(img);
    for (Op op : OPS) {
      for (T t : TYPES) {
        Random rnd = new Random(seed(tr, comboBase(op, t), 0));
        for (int i = 0; i < N; i++) {
          genElement(t, op, rnd, false, b, comboBase(op, t) + i * t.extent);
        }
      }
    }
    return img;
  }

  /** Origin data of role 1 (accumulate), 2 (get-accumulate) or 3 (put), with a leading dummy element. */
  static byte[] originData(int tr, Op op, T t, int role) {
    return genData(t, op, seed(tr, role == 3 ? PUT_BASE + t.ordinal() : comboBase(op, t), role), N, true);
  }

  /** Result buffer contents before the call: a recognizable pattern. */
  static byte[] sentinel(T t) {
    byte[] s = new byte[(N + 1) * t.extent];
    for (int i = 0; i < s.length; i++) {
      s[i] = (byte) (0x5A + i);
    }
    if (t.bool()) {
      Arrays.fill(s, (byte) 0x5A);
    }
    return s;
  }

  /** Model of the epoch at target {@code tr}: final window image; {@code fetched[combo]} = get-accumulate results. */
  static byte[] model(int tr, byte[][] fetched) {
    byte[] img = initImage(tr);
    ByteBuffer w = bb(img);
    for (Op op : OPS) {
      for (T t : TYPES) {
        int k = op.ordinal() * TYPES.length + t.ordinal();
        byte[] res = sentinel(t);
        if (valid(op, t)) {
          ByteBuffer x = bb(originData(tr, op, t, 1));
          ByteBuffer y = bb(originData(tr, op, t, 2));
          ByteBuffer rb = bb(res);
          int base = comboBase(op, t);
          for (int i = 0; i < N; i++) {
            int at = base + i * t.extent;
            combine(t, op, w, at, x, (i + 1) * t.extent);
            for (int j = 0; j < t.size; j++) {
              rb.put((i + 1) * t.extent + j, w.get(at + j));
            }
            combine(t, op, w, at, y, (i + 1) * t.extent);
          }
        }
        fetched[k] = res;
      }
    }
    for (T t : TYPES) {
      ByteBuffer p = bb(originData(tr, null, t, 3));
      int base = PUT_BASE + t.ordinal() * SLOT;
      for (int i = 0; i < N; i++) {
        combine(t, Op.REPLACE, w, base + i * t.extent, p, (i + 1) * t.extent);
      }
    }
    return img;
  }

  /** The expected contents of a get of the put region of {@code t} into a sentinel-filled buffer. */
  static byte[] expectedGet(int tr, T t) {
    byte[] res = sentinel(t);
    ByteBuffer rb = bb(res);
    ByteBuffer p = bb(originData(tr, null, t, 3));
    for (int i = 1; i <= N; i++) {
      combine(t, Op.REPLACE, rb, i * t.extent, p, i * t.extent);
    }
    return res;
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void accumulateAndGetAccumulateEveryOpOnEveryType(Jobs.Mode mode) {
    // rank 1 works on rank 0's window, rank 2 on rank 1's (clustered: 1 -> 0 crosses the codec, 2 -> 1 stays local)
    Jobs.run(mode, 3, (world, args) -> Win.allocate(world, GRID_BYTES, 1, Info.NULL).compose(win -> {
      int r = world.rank();
      int tr = r - 1;
      if (r <= 1) {
        write(win.memory(), 0, initImage(r));
      }
      Object[][] results = new Object[COMBOS][];
      Object[] gets = new Object[TYPES.length];
      List<Future<?>> ops = new ArrayList<>();
      Future<Void> epoch1 = win.fence(Mode.NOPRECEDE).compose(v -> {
        if (r == 0) {
          return Future.succeededFuture();
        }
        // one op's calls per event-loop task: all of them in one task hold a cold JVM's loop too long
        return Rma.repeat(OPS.length, i -> {
          Op op = OPS[i];
          for (T t : TYPES) {
            int k = op.ordinal() * TYPES.length + t.ordinal();
            int base = comboBase(op, t);
            Object x = typed(t, originData(tr, op, t, 1), false);
            Object y = op == Op.NO_OP ? null : typed(t, originData(tr, op, t, 2), false);
            Object res = typed(t, sentinel(t), true);
            results[k] = new Object[] {res};
            Future<Void> acc = win.accumulate(AnyBuf.of(x), t.offset(), N, t.dt, tr, base, op);
            Future<Void> gacc = win.getAccumulate(AnyBuf.of(y), t.offset(), N, t.dt, AnyBuf.of(res), t.offset(), N, t.dt, tr, base, N, t.dt,
                op);
            if (valid(op, t)) {
              ops.add(acc);
              ops.add(gacc);
            } else {
              String what = op + " on " + t;
              ops.add(expectFailure("accumulate " + what, acc, ErrorClass.OP, op.mpiName(), t.dt.name()));
              ops.add(expectFailure("getAccumulate " + what, gacc, ErrorClass.OP, op.mpiName(), t.dt.name()));
              ops.add(expectFailure("fetchAndOp " + what, win.fetchAndOp(AnyBuf.of(x), t.offset(), AnyBuf.of(res), t.offset(), t.dt, tr, base,
                  op), ErrorClass.OP, op.mpiName(), t.dt.name()));
            }
          }
          Promise<Void> nextTask = Promise.promise();
          Vertx.currentContext().runOnContext(x -> nextTask.complete());
          return nextTask.future();
        }).compose(x -> {
          for (T t : TYPES) {
            ops.add(win.put(AnyBuf.of(typed(t, originData(tr, null, t, 3), false)), t.offset(), N, t.dt, tr,
                PUT_BASE + t.ordinal() * SLOT));
          }
          return all(ops);
        });
      });
      return epoch1
          .compose(v -> syncAllowing(win.fence(), ErrorClass.OP))
          .compose(v -> {
            if (r <= 1) {
              byte[][] fetchedUnused = new byte[COMBOS][];
              assertBytes(model(r, fetchedUnused), read(win.memory(), 0, GRID_BYTES), "window of rank " + r
                  + " after every accumulate and get-accumulate of rank " + (r + 1));
            }
            if (r == 0) {
              return Future.succeededFuture();
            }
            byte[][] fetched = new byte[COMBOS][];
            model(tr, fetched);
            for (Op op : OPS) {
              for (T t : TYPES) {
                int k = op.ordinal() * TYPES.length + t.ordinal();
                assertBytes(fetched[k], bytesOf(results[k][0]), "getAccumulate " + op + " on " + t
                    + " result at rank " + r + " (fetched from rank " + tr + ")");
              }
            }
            List<Future<?>> g = new ArrayList<>();
            for (T t : TYPES) {
              Object buf = typed(t, sentinel(t), true);
              gets[t.ordinal()] = buf;
              g.add(win.get(AnyBuf.of(buf), t.offset(), N, t.dt, tr, PUT_BASE + t.ordinal() * SLOT));
            }
            return all(g).map(x -> {
              for (T t : TYPES) {
                assertBytes(expectedGet(tr, t), bytesOf(gets[t.ordinal()]), "get of the " + t + " elements put at rank "
                    + tr);
              }
              return null;
            });
          })
          .compose(v -> win.fence(Mode.NOSUCCEED))
          .compose(v -> win.free());
    }));
    assertEquals(0, WindowMemory.live());
  }

  // ------------------------------------------------------------------ fetch-and-op, compare-and-swap

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void fetchAndOpAndCompareAndSwap(Jobs.Mode mode) {
    // rank 1 works on rank 0 (unit 8), rank 2 on rank 1 (unit 1)
    Jobs.run(mode, 3, (world, args) -> {
      int r = world.rank();
      int unit = r % 2 == 0 ? 8 : 1;
      return Win.allocate(world, 256, unit, Info.NULL).compose(win -> {
        int tr = r - 1;
        int tUnit = tr % 2 == 0 ? 8 : 1;
        if (r <= 1) {
          win.memory().writeLong(0, 10);
          for (int i = 0; i < GENERAL.length; i++) {
            T t = (T) GENERAL[i][0];
            write(win.memory(), 64 + 16L * i, elem(t, GENERAL[i][3]));
          }
        }
        long d0 = 0;
        List<Long> seen = new ArrayList<>();
        Future<Void> chain = win.fence();
        if (r >= 1) {
          // long convenience forms on byte 0 of the target
          long[][] steps = {
              {5, Op.SUM.ordinal()}, {3, Op.PROD.ordinal()}, {-7, Op.MAX.ordinal()}, {-7, Op.MIN.ordinal()},
              {0xF0, Op.BXOR.ordinal()}, {0x3C, Op.BAND.ordinal()}, {0x101, Op.BOR.ordinal()}, {0, Op.LAND.ordinal()},
              {99, Op.REPLACE.ordinal()}, {0, Op.NO_OP.ordinal()}};
          for (long[] s : steps) {
            chain = chain.compose(v -> win.fetchAndOp(s[0], tr, d0, OPS[(int) s[1]])).map(old -> {
              seen.add(old);
              return null;
            });
          }
          chain = chain.compose(v -> win.compareAndSwap(98, 1, tr, d0)).map(old -> {
            seen.add(old);
            return null;
          }).compose(v -> win.compareAndSwap(99, 1234, tr, d0)).map(old -> {
            seen.add(old);
            return null;
          }).compose(v -> win.fetchAndOp(0, tr, d0, Op.NO_OP)).map(old -> {
            seen.add(old);
            long x = 10;
            List<Long> expected = new ArrayList<>();
            for (long[] s : steps) {
              expected.add(x);
              Op op = OPS[(int) s[1]];
              switch (op) {
                case SUM: x += s[0]; break;
                case PROD: x *= s[0]; break;
                case MAX: x = Math.max(x, s[0]); break;
                case MIN: x = Math.min(x, s[0]); break;
                case BXOR: x ^= s[0]; break;
                case BAND: x &= s[0]; break;
                case BOR: x |= s[0]; break;
                case LAND: x = x != 0 && s[0] != 0 ? 1 : 0; break;
                case REPLACE: x = s[0]; break;
                default: break;
              }
            }
            expected.add(x); // CAS(98 -> 1): no swap
            expected.add(x); // CAS(99 -> 1234): swap
            expected.add(1234L);
            assertEquals(99L, x);
            assertEquals(expected, seen, "values fetched by rank " + r + " from rank " + tr);
            return null;
          });
          // the general forms at byte 64 + 16 * i of the target, one element of each type
          chain = chain.compose(v -> generalForms(win, tr, tUnit));
        }
        return chain.compose(v -> syncAllowing(win.fence(), ErrorClass.TYPE, ErrorClass.OP)).map(v -> {
          if (r <= 1) {
            assertEquals(1234L, win.memory().readLong(0), "final value of the long at rank " + r);
            assertBytes(generalFormsModel(), read(win.memory(), 64, GENERAL.length * 16),
                "window of rank " + r + " after the general fetch-and-op/compare-and-swap forms");
          }
          return null;
        }).compose(v -> win.fence(Mode.NOSUCCEED)).compose(v -> win.free());
      });
    });
    assertEquals(0, WindowMemory.live());
  }

  /** Type, fetch-and-op operation and its operand, initial target value, CAS value. */
  static final Object[][] GENERAL = {
      {T.INT, Op.SUM, 5L, -12L, 77L},
      {T.LONG, Op.PROD, -3L, 1L << 40, -5L},
      {T.SHORT, Op.MIN, -300L, 200L, 31000L},
      {T.BYTE, Op.BOR, 0x0FL, 0x30L, 0x7FL},
      {T.BOOLEAN, Op.LXOR, 1L, 1L, 1L},
      {T.CHAR, Op.MAX, 65000L, 12L, 3L},
      {T.AINT, Op.SUM, 1L << 33, 7L, 9L},
      {T.FLOAT, Op.SUM, 2.5, 1.25, 0},
      {T.DOUBLE, Op.MAX, -1.5, -2.0, 0},
      {T.UINT64, Op.MAX, 1L, -1L, 5L},
      {T.UINT8, Op.SUM, 200L, 100L, 0x80L},
      {T.INT8, Op.MIN, -128L, 5L, 127L},
  };

  static byte[] elem(T t, Object v) {
    byte[] b = new byte[t.extent];
    if (t.cls == Cls.FLT) {
      storeDouble(t, bb(b), 0, ((Number) v).doubleValue());
    } else {
      storeLong(t, bb(b), 0, ((Number) v).longValue());
    }
    return b;
  }

  /** The general forms' target after the epoch, computed sequentially. */
  static byte[] generalFormsModel() {
    byte[] img = new byte[GENERAL.length * 16];
    ByteBuffer w = bb(img);
    for (int i = 0; i < GENERAL.length; i++) {
      T t = (T) GENERAL[i][0];
      Op op = (Op) GENERAL[i][1];
      int at = 16 * i;
      System.arraycopy(elem(t, GENERAL[i][3]), 0, img, at, t.size);
      combine(t, op, w, at, bb(elem(t, GENERAL[i][2])), 0);
      if (t.cls != Cls.FLT) {
        // CAS with the current value as compare swaps in the CAS value; a second CAS with a wrong compare does not
        System.arraycopy(elem(t, GENERAL[i][4]), 0, img, at, t.size);
      }
    }
    return img;
  }

  private static Future<Void> generalForms(Win win, int tr, int tUnit) {
    Future<Void> chain = Future.succeededFuture();
    for (int i = 0; i < GENERAL.length; i++) {
      T t = (T) GENERAL[i][0];
      Op op = (Op) GENERAL[i][1];
      long disp = (64 + 16L * i) / tUnit;
      byte[] init = elem(t, GENERAL[i][3]);
      byte[] operand = elem(t, GENERAL[i][2]);
      byte[] afterOp = init.clone();
      combine(t, op, bb(afterOp), 0, bb(operand), 0);
      Object origin = typed(t, pad(operand, t), false);
      Object result = typed(t, pad(new byte[t.extent], t), true);
      String what = "fetchAndOp " + op + " on " + t;
      chain = chain
          .compose(v -> win.fetchAndOp(AnyBuf.of(origin), 1, AnyBuf.of(result), 1, t.dt, tr, disp, op))
          .map(v -> {
            assertBytes(init, Arrays.copyOfRange(bytesOf(result), t.extent, 2 * t.extent), what + " result");
            return null;
          });
      if (t.cls == Cls.FLT) {
        chain = chain.compose(v -> expectFailure("compareAndSwap on " + t, win.compareAndSwap(AnyBuf.of(origin), 1, AnyBuf.of(origin), 1,
            AnyBuf.of(result), 1, t.dt, tr, disp), ErrorClass.TYPE, t.dt.name()));
        continue;
      }
      byte[] casValue = elem(t, GENERAL[i][4]);
      Object casOrigin = typed(t, pad(casValue, t), false);
      Object compare = typed(t, pad(afterOp, t), false);
      byte[] wrongBytes = casValue.clone();
      wrongBytes[0] ^= (byte) (t == T.BOOLEAN ? 0 : 0x40);
      Object casResult = typed(t, pad(new byte[t.extent], t), true);
      Object casResult2 = typed(t, pad(new byte[t.extent], t), true);
      chain = chain
          .compose(v -> win.compareAndSwap(AnyBuf.of(casOrigin), 1, AnyBuf.of(compare), 1, AnyBuf.of(casResult), 1, t.dt, tr, disp))
          .map(v -> {
            assertBytes(afterOp, Arrays.copyOfRange(bytesOf(casResult), t.extent, 2 * t.extent),
                "compareAndSwap (matching) on " + t + " result");
            return null;
          });
      if (t != T.BOOLEAN) {
        Object wrong = typed(t, pad(wrongBytes, t), false);
        chain = chain
            .compose(v -> win.compareAndSwap(AnyBuf.of(wrong), 1, AnyBuf.of(wrong), 1, AnyBuf.of(casResult2), 1, t.dt, tr, disp))
            .map(v -> {
              assertBytes(casValue, Arrays.copyOfRange(bytesOf(casResult2), t.extent, 2 * t.extent),
                  "compareAndSwap (not matching) on " + t + " result");
              return null;
            });
      } else {
        // BOOLEAN: compare false against the true target: no swap (origin false would have changed it)
        boolean[] no = {false, false};
        chain = chain
            .compose(v -> win.compareAndSwap(AnyBuf.of(no), 1, AnyBuf.of(no), 1, AnyBuf.of(casResult2), 1, t.dt, tr, disp))
            .map(v -> {
              assertBytes(casValue, Arrays.copyOfRange(bytesOf(casResult2), t.extent, 2 * t.extent),
                  "compareAndSwap (not matching) on BOOLEAN result");
              return null;
            });
      }
    }
    // rejected: CAS on non-integer types, fetch-and-op with an op not defined on the type or a derived type
    long disp = 0;
    long[] l = {1};
    double[] d = {1};
    byte[] pair = new byte[16];
    Datatype derived = Datatype.contiguous(1, Datatype.INT).commit();
    int[] i1 = {1};
    return chain
        .compose(v -> expectFailure("CAS on DOUBLE", win.compareAndSwap(Buf.of(d), 0, Buf.of(d), 0, Buf.of(new double[1]), 0, Datatype.DOUBLE,
            tr, disp), ErrorClass.TYPE, "DOUBLE"))
        .compose(v -> expectFailure("CAS on INT_INT", win.compareAndSwap(Buf.of(pair), 0, Buf.of(pair), 0, Buf.of(new byte[16]), 0,
            Datatype.INT_INT, tr, disp), ErrorClass.TYPE, "INT_INT"))
        .compose(v -> expectFailure("CAS on a derived type", win.compareAndSwap(Buf.of(i1), 0, Buf.of(i1), 0, Buf.of(new int[1]), 0, derived,
            tr, disp), ErrorClass.TYPE))
        .compose(v -> expectFailure("fetchAndOp BAND on DOUBLE", win.fetchAndOp(Buf.of(d), 0, Buf.of(new double[1]), 0,
            Datatype.DOUBLE, tr, disp, Op.BAND), ErrorClass.OP, "MPI_BAND", "DOUBLE"))
        .compose(v -> expectFailure("fetchAndOp SUM on BOOLEAN", win.fetchAndOp(Buf.of(new boolean[1]), 0, Buf.of(new boolean[1]), 0,
            Datatype.BOOLEAN, tr, disp, Op.SUM), ErrorClass.OP, "MPI_SUM", "BOOLEAN"))
        .compose(v -> expectFailure("fetchAndOp MAXLOC on LONG", win.fetchAndOp(Buf.of(l), 0, Buf.of(new long[1]), 0,
            Datatype.LONG, tr, disp, Op.MAXLOC), ErrorClass.OP, "MPI_MAXLOC", "LONG"))
        .compose(v -> expectFailure("fetchAndOp on a derived type", win.fetchAndOp(Buf.of(i1), 0, Buf.of(new int[1]), 0, derived, tr,
            disp, Op.SUM), ErrorClass.TYPE))
        // the long at byte 0 is still 1234 (checked after the fence); NO_OP ignores a null origin
        .compose(v -> win.fetchAndOp(0, tr, 0, Op.NO_OP)).map(old -> {
          assertEquals(1234L, old);
          return null;
        })
        .compose(v -> {
          long[] out = {-1};
          return win.fetchAndOp(null, 0, Buf.of(out), 0, Datatype.LONG, tr, 0, Op.NO_OP).map(x -> {
            assertEquals(1234L, out[0], "fetchAndOp NO_OP with a null origin");
            return null;
          });
        });
  }

  /** {@code elem} after one dummy element. */
  static byte[] pad(byte[] e, T t) {
    byte[] out = new byte[2 * t.extent];
    System.arraycopy(e, 0, out, t.extent, e.length);
    return out;
  }

  // ------------------------------------------------------------------ per-rank sizes and units, PROC_NULL

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void differentSizesAndUnitsPerRankZeroSizeWindowAndProcNull(Jobs.Mode mode) {
    int np = 4;
    Jobs.run(mode, np, (world, args) -> {
      int r = world.rank();
      int n = world.size();
      long[] sizes = new long[n];
      int[] units = new int[n];
      for (int t = 0; t < n; t++) {
        sizes[t] = t == n - 1 ? 0 : (t + 1) * 64L;
        units[t] = t % 2 == 0 ? 8 : 1;
      }
      return Win.allocate(world, sizes[r], units[r], Info.NULL).compose(win -> {
        assertEquals(sizes[r], win.size());
        assertEquals(units[r], win.dispUnit());
        for (int t = 0; t < n; t++) {
          assertEquals(sizes[t], win.size(t), "size of rank " + t + " seen at rank " + r);
          assertEquals(units[t], win.dispUnit(t), "disp unit of rank " + t + " seen at rank " + r);
        }
        assertEquals(Win.Flavor.ALLOCATE, win.flavor());
        assertEquals(Win.MemoryModel.UNIFIED, win.model());
        for (long i = 0; i < sizes[r]; i++) {
          assertEquals(0, win.memory().readByte(i), "allocated windows are zeroed");
        }
        List<Future<?>> ops = new ArrayList<>();
        long[][] got = new long[n][1];
        byte[] procNullResult = {42, 42, 42, 42, 42, 42, 42, 42};
        return win.fence().compose(v -> {
          for (int t = 0; t < n; t++) {
            if (sizes[t] == 0) {
              // nothing fits a size-0 window, but an empty access does
              ops.add(win.put(Buf.of(new long[] {1}), 0, 0, Datatype.LONG, t, 0));
              ops.add(win.get(Buf.of(new long[1]), 0, 0, Datatype.LONG, t, 0));
              ops.add(expectFailure("put into the size-0 window", win.put(Buf.of(new long[] {1}), 0, 1, Datatype.LONG, t, 0),
                  ErrorClass.RMA_RANGE, "window size 0", "rank " + t));
              continue;
            }
            long byteAt = sizes[t] - 8L * (r + 1);
            ops.add(win.put(Buf.of(new long[] {1000L * r + t}), 0, 1, Datatype.LONG, t, byteAt / units[t]));
            ops.add(win.accumulate(Buf.of(new long[] {r + 1}), 0, 1, Datatype.LONG, t, 0, Op.SUM));
          }
          // PROC_NULL: every operation is a no-op that succeeds and leaves every buffer alone
          ops.add(win.put(Buf.of(new long[] {-1}), 0, 1, Datatype.LONG, Comm.PROC_NULL, 0));
          ops.add(win.get(Buf.of(procNullResult), 0, 8, Datatype.BYTE, Comm.PROC_NULL, 0));
          ops.add(win.accumulate(Buf.of(new long[] {-1}), 0, 1, Datatype.LONG, Comm.PROC_NULL, 0, Op.SUM));
          ops.add(win.getAccumulate(Buf.of(new long[] {-1}), 0, 1, Datatype.LONG, Buf.of(procNullResult), 0, 1, Datatype.LONG,
              Comm.PROC_NULL, 0, 1, Datatype.LONG, Op.SUM));
          ops.add(win.fetchAndOp(Buf.of(new long[] {-1}), 0, Buf.of(procNullResult), 0, Datatype.LONG, Comm.PROC_NULL, 0, Op.SUM));
          ops.add(win.compareAndSwap(Buf.of(new long[] {-1}), 0, Buf.of(new long[] {0}), 0, Buf.of(procNullResult), 0, Datatype.LONG,
              Comm.PROC_NULL, 0));
          ops.add(win.fetchAndOp(-1, Comm.PROC_NULL, 0, Op.SUM));
          ops.add(win.compareAndSwap(0, -1, Comm.PROC_NULL, 0));
          return all(ops);
        }).compose(v -> syncAllowing(win.fence(), ErrorClass.RMA_RANGE)).compose(v -> {
          assertArrayEquals(new byte[] {42, 42, 42, 42, 42, 42, 42, 42}, procNullResult, "PROC_NULL left results alone");
          if (sizes[r] > 0) {
            byte[] expected = new byte[(int) sizes[r]];
            ByteBuffer e = bb(expected);
            e.putLong(0, n * (n + 1) / 2);
            for (int o = 0; o < n; o++) {
              e.putLong((int) (sizes[r] - 8L * (o + 1)), 1000L * o + r);
            }
            assertBytes(expected, read(win.memory(), 0, (int) sizes[r]), "window of rank " + r + " (size " + sizes[r]
                + ", unit " + units[r] + ")");
          }
          List<Future<?>> gets = new ArrayList<>();
          for (int t = 0; t < n; t++) {
            if (sizes[t] > 0) {
              gets.add(win.get(Buf.of(got[t]), 0, 1, Datatype.LONG, t, (sizes[t] - 8L * (r + 1)) / units[t]));
            }
          }
          return all(gets);
        }).compose(v -> win.fence(Mode.NOSUCCEED)).map(v -> {
          for (int t = 0; t < n; t++) {
            if (sizes[t] > 0) {
              assertEquals(1000L * r + t, got[t][0], "value rank " + r + " put at rank " + t + " and read back");
            }
          }
          return null;
        }).compose(v -> win.free());
      });
    });
    assertEquals(0, WindowMemory.live());
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void largePutAndGetCrossTheCodecIntact(Jobs.Mode mode) {
    int longs = 1 << 20; // 8 MiB each way
    // every rank's data made here, off the event loops: 8 MiB through a cold loop would hold a
    // rank's loop for tens of milliseconds (the same for the checks, which are intrinsic array compares)
    // (and so are the buffers: zeroing or cloning 8 MiB on a loop takes it tens of ms too)
    long[][] sent = new long[2][longs];
    for (int r = 0; r < 2; r++) {
      for (int i = 0; i < longs; i++) {
        sent[r][i] = (long) i * 0x9E3779B97F4A7C15L + r;
      }
    }
    long[][] origins = {sent[0].clone(), sent[1].clone()};
    long[][] results = new long[2][longs];
    long[][] windows = new long[2][longs];
    Jobs.run(mode, 2, (world, args) -> Win.allocate(world, 8L * longs + 8, 8, Info.NULL).compose(win -> {
      int r = world.rank();
      int other = 1 - r;
      long[] data = origins[r];
      long[] back = results[r];
      return win.fence()
          .compose(v -> win.put(Buf.of(data), 0, longs, Datatype.LONG, other, 1))
          .compose(v -> win.fence())
          .compose(v -> win.get(Buf.of(back), 0, longs, Datatype.LONG, other, 1))
          .compose(v -> win.fence(Mode.NOSUCCEED))
          .map(v -> {
            BytesStore<?, ?> mem = win.memory();
            assertEquals(0L, mem.readLong(0), "the byte range before the put is untouched");
            long[] window = windows[r];
            dev.vertxrma.impl.memory.Memory.copy(null, mem.addressForRead(8), window,
                dev.vertxrma.impl.memory.Memory.arrayBaseOffset(long[].class), 8L * longs);
            int i = Arrays.mismatch(window, sent[other]);
            if (i >= 0) {
              throw new AssertionError("rank " + r + " element " + i + " put by rank " + other + " is " + window[i]
                  + ", expected " + sent[other][i]);
            }
            i = Arrays.mismatch(back, sent[r]);
            if (i >= 0) {
              throw new AssertionError("rank " + r + " element " + i + " read back is " + back[i] + ", expected "
                  + sent[r][i]);
            }
            return null;
          })
          .compose(v -> win.free());
    }));
    assertEquals(0, WindowMemory.live());
  }

  /**
   * 20 gets of 1 MiB issued at once, without awaiting, into buffers of their own: more than the
   * 16 MiB a target is asked for at a time across JVMs, so the later ones wait for earlier replies.
   * Every get's data is the target's, byte for byte, and the flush covers them all.
   */
  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void manyLargeGetsInFlightAllReturnTheTargetsData(Jobs.Mode mode) {
    int gets = 20;
    int longs = 128 * 1024; // 1 MiB each
    long[][] windowData = new long[2][longs * gets];
    for (int r = 0; r < 2; r++) {
      for (int i = 0; i < windowData[r].length; i++) {
        windowData[r][i] = (long) i * 31 + 1_000_000_000L * r;
      }
    }
    long[][][] results = new long[2][gets][longs]; // made here: zeroing 20 MiB would hold a rank's loop
    Jobs.run(mode, 2, (world, args) -> Win.allocate(world, 8L * longs * gets, 8, Info.NULL).compose(win -> {
      int r = world.rank();
      int other = 1 - r;
      dev.vertxrma.impl.memory.Memory.copy(windowData[r], dev.vertxrma.impl.memory.Memory.arrayBaseOffset(long[].class),
          null, win.memory().addressForWrite(0), 8L * longs * gets);
      long[][] got = results[r];
      return world.barrier().compose(v -> win.lockAll()).compose(v -> {
        List<Future<?>> ops = new ArrayList<>();
        for (int k = 0; k < gets; k++) {
          ops.add(win.get(Buf.of(got[k]), 0, longs, Datatype.LONG, other, (long) k * longs));
        }
        Future<Void> flushed = win.flush(other);
        return Future.all(ops).compose(x -> flushed);
      }).compose(v -> win.unlockAll()).map(v -> {
        for (int k = 0; k < gets; k++) {
          int i = Arrays.mismatch(got[k], 0, longs, windowData[other], k * longs, (k + 1) * longs);
          if (i >= 0) {
            throw new AssertionError("rank " + r + " get " + k + " element " + i + " is " + got[k][i] + ", expected "
                + windowData[other][k * longs + i]);
          }
        }
        return null;
      }).compose(v -> world.barrier()).compose(v -> win.free());
    }));
    assertEquals(0, WindowMemory.live());
  }

  /**
   * Large data that is not one contiguous replace: a 256 KiB accumulate (SUM, twice) and a put and
   * a get of every other long of 512 KiB (a vector type at the target), between JVMs the payloads
   * arrive in many socket buffers and are gathered before being combined or scattered. Every
   * element checked, and the longs between the strided ones untouched.
   */
  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void largeAccumulatesAndStridedTransfersCombineEveryElement(Jobs.Mode mode) {
    int longs = 32 * 1024; // 256 KiB
    Datatype everyOther = Datatype.vector(longs, 1, 2, Datatype.LONG).commit();
    Jobs.run(mode, 2, (world, args) -> Win.allocate(world, 8L * 3 * longs, 8, Info.NULL).compose(win -> {
      int r = world.rank();
      int other = 1 - r;
      long[] add = new long[longs];
      long[] strided = new long[longs];
      for (int i = 0; i < longs; i++) {
        add[i] = i + 1_000_000L * r;
        strided[i] = -i - 1 - 1_000_000L * r;
      }
      long[] back = new long[longs];
      return win.fence()
          .compose(v -> Future.all(
              win.accumulate(Buf.of(add), 0, longs, Datatype.LONG, other, 0, longs, Datatype.LONG, Op.SUM),
              win.accumulate(Buf.of(add), 0, longs, Datatype.LONG, other, 0, longs, Datatype.LONG, Op.SUM),
              win.put(Buf.of(strided), 0, longs, Datatype.LONG, other, longs, 1, everyOther)))
          .compose(v -> win.fence())
          .compose(v -> win.get(Buf.of(back), 0, longs, Datatype.LONG, other, longs, 1, everyOther))
          .compose(v -> win.fence(Mode.NOSUCCEED))
          .map(v -> {
            BytesStore<?, ?> mem = win.memory();
            for (int i = 0; i < longs; i++) {
              long sum = 2L * (i + 1_000_000L * other);
              if (mem.readLong(8L * i) != sum) {
                throw new AssertionError("rank " + r + " element " + i + " is " + mem.readLong(8L * i) + ", expected "
                    + sum);
              }
              long put = -i - 1 - 1_000_000L * other;
              if (mem.readLong(8L * (longs + 2L * i)) != put || mem.readLong(8L * (longs + 2L * i + 1)) != 0) {
                throw new AssertionError("rank " + r + " strided element " + i + ": " + mem.readLong(8L * (longs + 2L * i))
                    + " then " + mem.readLong(8L * (longs + 2L * i + 1)) + ", expected " + put + " then 0");
              }
            }
            assertArrayEquals(strided, back, "the strided longs read back");
            return null;
          })
          .compose(v -> win.free());
    }));
    assertEquals(0, WindowMemory.live());
  }

  /**
   * 24 puts of 256 KiB issued at once, without awaiting, each from its own buffer, which is
   * overwritten the moment that put's future completes (across JVMs they are packed as the
   * connection takes them, not when issued): every byte at the target is the one put, and the
   * other rank's concurrent puts land intact.
   */
  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void largePutsInFlightReadTheirBuffersOnlyUntilTheirFuturesComplete(Jobs.Mode mode) {
    int puts = 24;
    int longs = 32 * 1024; // 256 KiB each
    Jobs.run(mode, 2, (world, args) -> Win.allocate(world, 8L * longs * puts, 8, Info.NULL).compose(win -> {
      int r = world.rank();
      int other = 1 - r;
      long[][] data = new long[puts][];
      for (int k = 0; k < puts; k++) {
        data[k] = new long[longs];
        Arrays.fill(data[k], 1_000_000L * r + k);
      }
      return win.lockAll().compose(v -> {
        List<Future<?>> ops = new ArrayList<>();
        for (int k = 0; k < puts; k++) {
          long[] buf = data[k];
          // the buffer is the caller's again once the put's future completes: poison it
          ops.add(win.put(Buf.of(buf), 0, longs, Datatype.LONG, other, (long) k * longs)
              .onSuccess(x -> Arrays.fill(buf, -1L)));
        }
        return all(ops).compose(x -> win.flushAll());
      }).compose(v -> win.unlockAll()).compose(v -> world.barrier())
          // 6 MiB copied and compared: the test's own checking runs on a worker, not the rank's event loop
          .compose(v -> io.vertx.core.Vertx.currentContext().owner().executeBlocking(() -> {
        BytesStore<?, ?> mem = win.memory();
        long[] window = new long[longs * puts];
        dev.vertxrma.impl.memory.Memory.copy(null, mem.addressForRead(0), window,
            dev.vertxrma.impl.memory.Memory.arrayBaseOffset(long[].class), 8L * longs * puts);
        for (int k = 0; k < puts; k++) {
          long expected = 1_000_000L * other + k;
          long[] got = Arrays.copyOfRange(window, k * longs, (k + 1) * longs);
          long[] want = new long[longs];
          Arrays.fill(want, expected);
          int i = Arrays.mismatch(got, want);
          if (i >= 0) {
            throw new AssertionError("rank " + r + " put " + k + " from rank " + other + ": element " + i + " is "
                + got[i] + ", expected " + expected);
          }
        }
        return null;
      })).compose(v -> win.free());
    }));
    assertEquals(0, WindowMemory.live());
  }

  // ------------------------------------------------------------------ Win.create and attributes

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void createOverCallerMemoryAndAttributes(Jobs.Mode mode) {
    Jobs.run(mode, 3, (world, args) -> {
      int r = world.rank();
      int n = world.size();
      int[] sizes = new int[n];
      int[] units = new int[n];
      for (int t = 0; t < n; t++) {
        sizes[t] = 32 * (t + 2);
        units[t] = t + 2;
      }
      BytesStore<?, ?> store = BytesStore.nativeStoreWithFixedCapacity(sizes[r]);
      for (int i = 0; i < sizes[r]; i++) {
        store.writeByte(i, (byte) (r * 16 + i));
      }
      Info given = Info.of(Info.SAME_SIZE, "false", "vendor_key", "kept", Info.NO_LOCKS, "true");
      return Win.create(world, store, units[r], given).compose(win -> {
        assertEquals(2, store.refCount(), "the window reserves the caller's store");
        assertSame(store, win.memory(), "the window's memory is the caller's store");
        assertEquals(Win.Flavor.CREATE, win.flavor());
        assertEquals(Win.MemoryModel.UNIFIED, win.model());
        assertEquals(sizes[r], win.size());
        assertEquals(units[r], win.dispUnit());
        for (int t = 0; t < n; t++) {
          assertEquals(sizes[t], win.size(t));
          assertEquals(units[t], win.dispUnit(t));
        }
        Info info = win.info();
        assertEquals("rar,raw,war,waw", info.get(Info.ACCUMULATE_ORDERING));
        assertEquals("same_op_no_op", info.get(Info.ACCUMULATE_OPS));
        assertEquals("true", info.get(Info.NO_LOCKS));
        assertEquals("false", info.get(Info.SAME_SIZE));
        assertEquals("kept", info.get("vendor_key"));
        assertNotNull(win.name());
        assertFalse(win.name().isEmpty());
        win.setName("window-" + r);
        assertEquals("window-" + r, win.name());
        Group g = win.group();
        assertEquals(n, g.size());
        assertEquals(r, g.rank());
        assertArrayEquals(new int[] {0, 1, 2}, g.translateRanks(world.group(), 0, 1, 2));
        assertEquals(world.group(), g);
        assertSame(world, win.comm());
        int right = (r + 1) % n;
        int left = (r + n - 1) % n;
        byte[] pre = new byte[sizes[right]];
        byte[] data = new byte[units[right] * 3];
        for (int i = 0; i < data.length; i++) {
          data[i] = (byte) (100 + r * 10 + i);
        }
        return win.fence()
            .compose(v -> win.get(Buf.of(pre), 0, sizes[right], Datatype.BYTE, right, 0))
            .compose(v -> win.fence())
            .compose(v -> win.put(Buf.of(data), 0, data.length, Datatype.BYTE, right, 2))
            .compose(v -> win.fence(Mode.NOSUCCEED))
            .map(v -> {
              for (int i = 0; i < sizes[right]; i++) {
                assertEquals((byte) (right * 16 + i), pre[i], "rank " + right + "'s own data read through its window");
              }
              byte[] expected = new byte[sizes[r]];
              for (int i = 0; i < sizes[r]; i++) {
                expected[i] = (byte) (r * 16 + i);
              }
              int at = 2 * units[r];
              for (int i = 0; i < units[r] * 3; i++) {
                expected[at + i] = (byte) (100 + left * 10 + i);
              }
              assertBytes(expected, read(store, 0, sizes[r]), "caller's store of rank " + r + " after rank " + left
                  + "'s put at disp 2 (unit " + units[r] + ")");
              return null;
            })
            .compose(v -> win.free())
            .map(v -> {
              assertEquals(1, store.refCount(), "free gives the caller's store back");
              store.releaseLast();
              assertEquals(0, store.refCount());
              return null;
            });
      });
    });
    assertEquals(0, WindowMemory.live());
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void allocateInfoDefaultsAndHeapStore(Jobs.Mode mode) {
    Jobs.run(mode, 2, (world, args) -> Win.allocate(world, 16, 4, Info.NULL).compose(win -> {
      Info info = win.info();
      assertEquals("rar,raw,war,waw", info.get(Info.ACCUMULATE_ORDERING));
      assertEquals("same_op_no_op", info.get(Info.ACCUMULATE_OPS));
      assertEquals("false", info.get(Info.NO_LOCKS));
      assertTrue(info.keys().containsAll(List.of(Info.ACCUMULATE_ORDERING, Info.ACCUMULATE_OPS, Info.NO_LOCKS)));
      BytesStore<?, ?> heap = BytesStore.wrap(new byte[24]);
      return win.free().compose(v -> Win.create(world, heap, 1, Info.of(Info.ACCUMULATE_ORDERING, "none")))
          .compose(w2 -> {
            assertEquals("none", w2.info().get(Info.ACCUMULATE_ORDERING));
            assertEquals(24, w2.size());
            int r = world.rank();
            return w2.fence()
                .compose(v -> w2.put(Buf.of(new long[] {0x1122334455667788L + r}), 0, 1, Datatype.LONG, 1 - r, 8))
                .compose(v -> w2.fence(Mode.NOSUCCEED))
                .map(v -> {
                  assertEquals(0x1122334455667788L + (1 - r), heap.readLong(8));
                  assertEquals(0L, heap.readLong(0));
                  assertEquals(0L, heap.readLong(16));
                  return null;
                })
                .compose(v -> w2.free());
          });
    }));
    assertEquals(0, WindowMemory.live());
  }
}
