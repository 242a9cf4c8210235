package dev.vertxrma.win;

import static dev.vertxrma.win.RmaOpsTest.all;
import static dev.vertxrma.win.RmaOpsTest.assertBytes;
import static dev.vertxrma.win.RmaOpsTest.bb;
import static dev.vertxrma.win.RmaOpsTest.expectFailure;
import static dev.vertxrma.win.RmaOpsTest.read;
import static dev.vertxrma.win.RmaOpsTest.syncAllowing;
import static dev.vertxrma.win.RmaOpsTest.write;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.vertxrma.Buf;
import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Info;
import dev.vertxrma.Mode;
import dev.vertxrma.Op;
import dev.vertxrma.Win;
import dev.vertxrma.impl.memory.WindowMemory;
import dev.vertxrma.testing.Jobs;
import io.vertx.core.Future;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Derived datatypes at origin and target of put, get, accumulate and get-accumulate: columns of
 * a row-major matrix, 2-D subarrays into indexed layouts, structs of mixed types with different
 * layouts on the two sides, resized types; and the signature and commit rules. Rank 1 works on
 * rank 0's window and rank 2 on rank 1's (in clustered mode the first pair crosses the codec, the
 * second stays in one Vert.x). Every target checks its whole window against a sequential model.
 */
class DerivedTypesRmaTest {

  static final int WIN_BYTES = 4096 + 40_000;
  static final int UNIT = 4;
  static final int ROWS = 5;
  static final int COLS = 7;

  // regions of the target window (bytes)
  static final int A1 = 0;
  static final int A2 = 64;
  static final int B1 = 256;
  static final int B2 = 384;
  static final int C = 512;
  static final int D = 640;
  static final int E1 = 768;
  static final int E2 = 896;
  static final int E3 = 1024;
  static final int E4 = 1152;
  static final int F = 1280;
  static final int G = 1344;
  static final int H = 1408;
  static final int P = 1536;
  static final int M = 4096;
  static final int M_COUNT = 20_000;
  static final int[] B1_DISPS = {0, 10, 20};
  static final int[] B2_DISPS = {0, 5, 10};

  static byte[] initImage(int tr) {
    byte[] img = new byte[WIN_BYTES];
    new Random(77 + tr).nextBytes(img);
    ByteBuffer w = bb(img);
    // two DOUBLE_INT pairs 32 bytes apart for MAXLOC (padding bytes 12..16 stay random)
    w.putDouble(P, 2.5);
    w.putInt(P + 8, 40);
    w.putDouble(P + 32, -1.0);
    w.putInt(P + 40, 41);
    return img;
  }

  static double[] matrix(int tr) {
    double[] m = new double[ROWS * COLS];
    for (int i = 0; i < ROWS; i++) {
      for (int j = 0; j < COLS; j++) {
        m[i * COLS + j] = tr * 1000 + i * 10 + j + 0.5;
      }
    }
    return m;
  }

  static int[] grid(int tr) {
    int[] g = new int[6 * 8];
    for (int i = 0; i < g.length; i++) {
      g[i] = tr * 10_000 + i * 3 - 50;
    }
    return g;
  }

  /** Struct layout A at the origin: int @0, double @8, short[2] @16, extent 24 (gaps keep random bytes). */
  static BytesStore<?, ?> structOrigin(int tr) {
    BytesStore<?, ?> s = BytesStore.nativeStoreWithFixedCapacity(72);
    Random rnd = new Random(5 + tr);
    for (int i = 0; i < 72; i++) {
      s.writeByte(i, (byte) rnd.nextInt());
    }
    for (int i = 0; i < 3; i++) {
      s.writeInt(24L * i, structA(tr, i));
      s.writeDouble(24L * i + 8, structB(i));
      s.writeShort(24L * i + 16, (short) -i);
      s.writeShort(24L * i + 18, (short) (i * 7 + tr));
    }
    return s;
  }

  static int structA(int tr, int i) {
    return 1000 * tr + i;
  }

  static double structB(int i) {
    return i + 0.25;
  }

  static long[] accOrigin(int tr, int n, int salt) {
    long[] o = new long[n];
    Random rnd = new Random(900 + tr * 31 + salt);
    for (int i = 0; i < n; i++) {
      o[i] = rnd.nextLong();
    }
    return o;
  }

  static int[] intOrigin(int tr) {
    int[] o = new int[6];
    Random rnd = new Random(300 + tr);
    for (int i = 0; i < 6; i++) {
      o[i] = rnd.nextInt();
    }
    return o;
  }

  /** The target window after the first epoch; {@code fetched} receives the get-accumulate result (long[10]). */
  static byte[] model(int tr, long[] fetched) {
    byte[] img = initImage(tr);
    ByteBuffer w = bb(img);
    double[] m = matrix(tr);
    for (int i = 0; i < ROWS; i++) {
      w.putDouble(A1 + 8 * i, m[i * COLS + 3]);
      w.putDouble(A2 + 8 * i, m[i * COLS + 1]);
      w.putDouble(A2 + 40 + 8 * i, m[i * COLS + 2]);
    }
    int[] g = grid(tr);
    for (int k = 0; k < 3; k++) {
      for (int j = 0; j < 4; j++) {
        int v = g[(1 + k) * 8 + 2 + j];
        w.putInt(B1 + 4 * (B1_DISPS[k] + j), v);
        w.putInt(B2 + 4 * (B2_DISPS[k] + j), v);
      }
    }
    for (int i = 0; i < 3; i++) {
      w.putInt(C + 16 * i, structA(tr, i));
      w.putDouble(C + 16 * i + 4, structB(i));
      w.putShort(C + 16 * i + 12, (short) -i);
      w.putShort(C + 16 * i + 14, (short) (i * 7 + tr));
    }
    int[] dsrc = {11 + tr, -22, 33, -44};
    for (int k = 0; k < 4; k++) {
      w.putInt(D + 12 * k, dsrc[k]);
    }
    long[] o1 = accOrigin(tr, 4, 1);
    for (int k = 0; k < 4; k++) {
      w.putLong(E1 + 16 * k, w.getLong(E1 + 16 * k) + o1[k]);
    }
    long[] o2 = accOrigin(tr, 5, 2);
    int[] idx = {0, 1, 3, 4};
    for (int k = 0; k < 4; k++) {
      int at = E2 + 8 + 16 * k;
      w.putLong(at, Math.max(w.getLong(at), o2[idx[k]]));
    }
    long[] o3 = accOrigin(tr, 4, 3);
    Arrays.fill(fetched, -7);
    for (int k = 0; k < 4; k++) {
      int at = E3 + 8 * k;
      fetched[3 * k] = w.getLong(at);
      w.putLong(at, w.getLong(at) * o3[k]);
    }
    int[] o4 = intOrigin(tr);
    int[] e4 = {0, 4, 12, 16, 20, 28};
    for (int k = 0; k < 6; k++) {
      int at = E4 + e4[k];
      w.putInt(at, Math.max(w.getInt(at), o4[k]));
    }
    int[] f = negStride(tr);
    w.putInt(F + 16, f[0]);
    w.putInt(F + 8, f[1]);
    w.putInt(F, f[2]);
    long[] gl = accOrigin(tr, 2, 7);
    w.putLong(G, gl[0]);
    w.putLong(G + 8, gl[1]);
    long[] h = accOrigin(tr, 4, 8);
    for (int k = 0; k < 4; k++) {
      w.putLong(H + 8 * k, h[3 - k]);
    }
    // MAXLOC of {2.5@40, -1.0@41} with {2.5@7 + tr, -3.0@9}: a tie keeps the lower index, a smaller value loses
    w.putInt(P + 8, Math.min(40, 7 + tr));
    byte[] many = manySegments(tr);
    for (int k = 0; k < M_COUNT; k++) {
      w.put(M + 2 * k, many[k]);
    }
    return img;
  }

  static int[] negStride(int tr) {
    return new int[] {7 + tr, 8 + tr, 9 + tr};
  }

  static byte[] manySegments(int tr) {
    byte[] b = new byte[M_COUNT];
    new Random(61 + tr).nextBytes(b);
    return b;
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void derivedTypesOnBothSides(Jobs.Mode mode) {
    Datatype column = Datatype.vector(ROWS, 1, COLS, Datatype.DOUBLE).commit();
    Datatype columns = Datatype.resized(column, 0, 8).commit();
    Datatype contig5 = Datatype.contiguous(ROWS, Datatype.DOUBLE).commit();
    Datatype blockC = Datatype.subarray(new int[] {6, 8}, new int[] {3, 4}, new int[] {1, 2}, Datatype.Order.C,
        Datatype.INT).commit();
    Datatype blockF = Datatype.subarray(new int[] {8, 6}, new int[] {4, 3}, new int[] {2, 1},
        Datatype.Order.FORTRAN, Datatype.INT).commit();
    Datatype indexed = Datatype.indexed(new int[] {4, 4, 4}, B1_DISPS, Datatype.INT).commit();
    Datatype indexedBlock = Datatype.indexedBlock(4, B2_DISPS, Datatype.INT).commit();
    Datatype structA = Datatype.resized(Datatype.struct(new int[] {1, 1, 2}, new long[] {0, 8, 16},
        new Datatype[] {Datatype.INT, Datatype.DOUBLE, Datatype.SHORT}), 0, 24).commit();
    Datatype structB = Datatype.struct(new int[] {1, 1, 2}, new long[] {0, 4, 12},
        new Datatype[] {Datatype.INT, Datatype.DOUBLE, Datatype.SHORT}).commit();
    Datatype stride12 = Datatype.resized(Datatype.INT, 0, 12).commit();
    Datatype everyOther = Datatype.vector(4, 1, 2, Datatype.LONG).commit();
    Datatype twoBlocks = Datatype.indexed(new int[] {2, 2}, new int[] {0, 3}, Datatype.LONG).commit();
    Datatype pairOfLongs = Datatype.contiguous(2, Datatype.LONG).commit();
    Datatype every3rd = Datatype.vector(4, 1, 3, Datatype.LONG).commit();
    Datatype intStruct = Datatype.struct(new int[] {2, 1}, new long[] {0, 12},
        new Datatype[] {Datatype.INT, Datatype.INT}).commit();
    Datatype backwards = Datatype.vector(3, 1, -2, Datatype.INT).commit();
    Datatype reachesBack = Datatype.hindexed(new int[] {1, 1}, new long[] {-8, 0}, Datatype.LONG).commit();
    Datatype reversed = Datatype.vector(4, 1, -1, Datatype.LONG).commit();
    Datatype everyOtherByte = Datatype.vector(M_COUNT, 1, 2, Datatype.BYTE).commit();
    Datatype everyOtherPair = Datatype.vector(2, 1, 2, Datatype.DOUBLE_INT).commit();
    assertEquals(-16, backwards.trueLb());
    assertEquals(24, structA.extent());
    assertEquals(16, structB.extent());
    assertEquals(16, intStruct.extent());

    Jobs.run(mode, 3, (world, args) -> Win.allocate(world, WIN_BYTES, UNIT, Info.NULL).compose(win -> {
      int r = world.rank();
      int tr = r - 1;
      if (r <= 1) {
        write(win.memory(), 0, initImage(r));
      }
      BytesStore<?, ?> structSrc = r >= 1 ? structOrigin(tr) : null;
      long[] gaccResult = new long[10];
      Arrays.fill(gaccResult, -7);
      double[] matrixBack = new double[ROWS * COLS];
      Arrays.fill(matrixBack, -1);
      int[] gridBack = new int[6 * 8];
      Arrays.fill(gridBack, -1);
      byte[] structBack = new byte[72];
      Arrays.fill(structBack, (byte) 0x33);
      BytesStore<?, ?> structBackStore = BytesStore.wrap(structBack);
      byte[] manyBack = new byte[2 * M_COUNT];
      Arrays.fill(manyBack, (byte) 0x11);
      long[] reversedBack = new long[4];
      Future<Void> epoch1 = win.fence().compose(v -> {
        if (r == 0) {
          return Future.succeededFuture();
        }
        double[] m = matrix(tr);
        int[] g = grid(tr);
        List<Future<?>> ops = new ArrayList<>();
        ops.add(win.put(Buf.of(m), 3, 1, column, tr, A1 / UNIT, 1, contig5));
        ops.add(win.put(Buf.of(m), 1, 2, columns, tr, A2 / UNIT, 2 * ROWS, Datatype.DOUBLE));
        ops.add(win.put(Buf.of(g), 0, 1, blockC, tr, B1 / UNIT, 1, indexed));
        ops.add(win.put(Buf.of(g), 0, 1, blockF, tr, B2 / UNIT, 1, indexedBlock));
        ops.add(win.put(Buf.of(structSrc), 0, 3, structA, tr, C / UNIT, 3, structB));
        ops.add(win.put(Buf.of(new int[] {11 + tr, -22, 33, -44}), 0, 4, Datatype.INT, tr, D / UNIT, 4, stride12));
        ops.add(win.accumulate(Buf.of(accOrigin(tr, 4, 1)), 0, 4, Datatype.LONG, tr, E1 / UNIT, 1, everyOther, Op.SUM));
        ops.add(win.accumulate(Buf.of(accOrigin(tr, 5, 2)), 0, 1, twoBlocks, tr, (E2 + 8) / UNIT, 1, everyOther, Op.MAX));
        ops.add(win.getAccumulate(Buf.of(accOrigin(tr, 4, 3)), 0, 4, Datatype.LONG, Buf.of(gaccResult), 0, 1, every3rd, tr,
            E3 / UNIT, 2, pairOfLongs, Op.PROD));
        ops.add(win.accumulate(Buf.of(intOrigin(tr)), 0, 6, Datatype.INT, tr, E4 / UNIT, 2, intStruct, Op.MAX));
        ops.add(win.put(Buf.of(negStride(tr)), 0, 3, Datatype.INT, tr, (F + 16) / UNIT, 1, backwards));
        byte[] pairs = new byte[32];
        ByteBuffer pb = bb(pairs);
        pb.putDouble(0, 2.5);
        pb.putInt(8, 7 + tr);
        pb.putDouble(16, -3.0);
        pb.putInt(24, 9);
        ops.add(win.accumulate(Buf.of(pairs), 0, 2, Datatype.DOUBLE_INT, tr, P / UNIT, 1, everyOtherPair, Op.MAXLOC));
        ops.add(win.put(Buf.of(accOrigin(tr, 2, 7)), 0, 2, Datatype.LONG, tr, (G + 8) / UNIT, 1, reachesBack));
        ops.add(win.put(Buf.of(accOrigin(tr, 4, 8)), 3, 1, reversed, tr, H / UNIT, 4, Datatype.LONG));
        ops.add(win.put(Buf.of(manySegments(tr)), 0, M_COUNT, Datatype.BYTE, tr, M / UNIT, 1, everyOtherByte));
        return all(ops);
      });
      return epoch1.compose(v -> win.fence()).compose(v -> {
        if (r <= 1) {
          long[] unused = new long[10];
          assertBytes(model(r, unused), read(win.memory(), 0, WIN_BYTES), "window of rank " + r
              + " after the derived-type operations of rank " + (r + 1));
        }
        if (r == 0) {
          return Future.succeededFuture();
        }
        long[] fetched = new long[10];
        model(tr, fetched);
        assertEquals(Arrays.toString(fetched), Arrays.toString(gaccResult), "get-accumulate into every third long");
        List<Future<?>> gets = new ArrayList<>();
        gets.add(win.get(Buf.of(matrixBack), 4, 1, column, tr, A1 / UNIT, 1, contig5));
        gets.add(win.get(Buf.of(gridBack), 0, 1, blockC, tr, B1 / UNIT, 1, indexed));
        gets.add(win.get(Buf.of(structBackStore), 0, 3, structA, tr, C / UNIT, 3, structB));
        gets.add(win.get(Buf.of(manyBack), 0, 1, everyOtherByte, tr, M / UNIT, 1, everyOtherByte));
        gets.add(win.get(Buf.of(reversedBack), 3, 1, reversed, tr, H / UNIT, 4, Datatype.LONG));
        return all(gets).map(x -> {
          double[] m = matrix(tr);
          for (int i = 0; i < ROWS; i++) {
            for (int j = 0; j < COLS; j++) {
              double expected = j == 4 ? m[i * COLS + 3] : -1;
              assertEquals(expected, matrixBack[i * COLS + j], "matrix read back at [" + i + "][" + j + "]");
            }
          }
          int[] g = grid(tr);
          for (int i = 0; i < 6; i++) {
            for (int j = 0; j < 8; j++) {
              boolean inBlock = i >= 1 && i < 4 && j >= 2 && j < 6;
              assertEquals(inBlock ? g[i * 8 + j] : -1, gridBack[i * 8 + j], "subarray read back at [" + i + "]["
                  + j + "]");
            }
          }
          byte[] expected = new byte[72];
          Arrays.fill(expected, (byte) 0x33);
          ByteBuffer e = bb(expected);
          for (int i = 0; i < 3; i++) {
            e.putInt(24 * i, structA(tr, i));
            e.putDouble(24 * i + 8, structB(i));
            e.putShort(24 * i + 16, (short) -i);
            e.putShort(24 * i + 18, (short) (i * 7 + tr));
          }
          assertBytes(expected, structBack, "structs read back into layout A (gaps untouched)");
          byte[] many = manySegments(tr);
          byte[] mExpected = new byte[2 * M_COUNT];
          Arrays.fill(mExpected, (byte) 0x11);
          for (int k = 0; k < M_COUNT; k++) {
            mExpected[2 * k] = many[k];
          }
          assertBytes(mExpected, manyBack, "20000-segment type read back");
          assertEquals(Arrays.toString(accOrigin(tr, 4, 8)), Arrays.toString(reversedBack),
              "reversed twice through a negative-stride origin type");
          return null;
        });
      }).compose(v -> win.fence(Mode.NOSUCCEED)).compose(v -> win.free()).map(v -> {
        if (structSrc != null) {
          structSrc.releaseLast();
        }
        return null;
      });
    }));
    assertEquals(0, WindowMemory.live());
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void mismatchedSignaturesAndUncommittedTypesLeaveTheWindowAlone(Jobs.Mode mode) {
    Datatype int3 = Datatype.contiguous(3, Datatype.INT).commit();
    Datatype intDouble = Datatype.struct(new int[] {1, 1}, new long[] {0, 8},
        new Datatype[] {Datatype.INT, Datatype.DOUBLE}).commit();
    Datatype doubleInt = Datatype.struct(new int[] {1, 1}, new long[] {0, 8},
        new Datatype[] {Datatype.DOUBLE, Datatype.INT}).commit();
    Datatype mixedLong = Datatype.struct(new int[] {1, 1}, new long[] {0, 8},
        new Datatype[] {Datatype.LONG, Datatype.DOUBLE}).commit();
    Datatype everyOther = Datatype.vector(2, 1, 2, Datatype.LONG).commit();

    Jobs.run(mode, 3, (world, args) -> Win.allocate(world, 256, UNIT, Info.NULL).compose(win -> {
      int r = world.rank();
      int n = world.size();
      int tr = (r + 1) % n;
      write(win.memory(), 0, Arrays.copyOf(initImage(r), 256));
      byte[][] snapshot = new byte[1][];
      int[] ints = {1, 2, 3};
      long[] longs = {5, 6, 7, 8};
      byte[] sixteen = new byte[16];
      int[] getBuf = {-1, -1, -1, -1};
      long[] getAccBuf = {-1, -1, -1, -1};
      // fresh, never committed derived types
      Datatype uncommitted = Datatype.contiguous(2, Datatype.INT);
      Datatype uncommittedLong = Datatype.vector(2, 1, 2, Datatype.LONG);
      return win.fence()
          .compose(v -> {
            snapshot[0] = read(win.memory(), 0, 256);
            return world.barrier();
          })
          .compose(v -> expectFailure("put 3 INT into 2 INT", win.put(Buf.of(ints), 0, 3, Datatype.INT, tr, 0, 2,
              Datatype.INT), ErrorClass.TRUNCATE, "12 bytes", "8 bytes"))
          .compose(v -> expectFailure("put 2 INT into contiguous(3, INT)", win.put(Buf.of(ints), 0, 2, Datatype.INT, tr, 0, 1,
              int3), ErrorClass.TYPE, "8 bytes", "12 bytes"))
          .compose(v -> expectFailure("put {INT, DOUBLE} into {DOUBLE, INT}", win.put(Buf.of(sixteen), 0, 1, intDouble, tr, 0,
              1, doubleInt), ErrorClass.TYPE, "element 0"))
          .compose(v -> expectFailure("put 2 INT into 1 LONG", win.put(Buf.of(ints), 0, 2, Datatype.INT, tr, 0, 1,
              Datatype.LONG), ErrorClass.TYPE))
          .compose(v -> expectFailure("get 3 INT into 2 INT", win.get(Buf.of(getBuf), 0, 2, Datatype.INT, tr, 0, 3,
              Datatype.INT), ErrorClass.TRUNCATE, "12 bytes", "8 bytes"))
          .compose(v -> expectFailure("get 2 INT into 3 INT", win.get(Buf.of(getBuf), 0, 3, Datatype.INT, tr, 0, 2,
              Datatype.INT), ErrorClass.TYPE))
          .compose(v -> expectFailure("accumulate INT into LONG", win.accumulate(Buf.of(ints), 0, 2, Datatype.INT, tr, 0, 1,
              Datatype.LONG, Op.SUM), ErrorClass.TYPE, "INT", "LONG"))
          .compose(v -> expectFailure("accumulate SUM into a mixed struct", win.accumulate(Buf.of(sixteen), 0, 1, mixedLong,
              tr, 0, 1, mixedLong, Op.SUM), ErrorClass.TYPE, "MPI_SUM"))
          .compose(v -> expectFailure("accumulate REPLACE with a mixed struct", win.accumulate(Buf.of(sixteen), 0, 1,
              mixedLong, tr, 0, 1, mixedLong, Op.REPLACE), ErrorClass.TYPE))
          .compose(v -> expectFailure("accumulate 3 LONG into 2 LONG", win.accumulate(Buf.of(longs), 0, 3, Datatype.LONG, tr,
              0, 1, everyOther, Op.SUM), ErrorClass.TRUNCATE))
          .compose(v -> expectFailure("getAccumulate into a result of another type", win.getAccumulate(Buf.of(longs), 0, 2,
              Datatype.LONG, Buf.of(new int[4]), 0, 4, Datatype.INT, tr, 0, 1, everyOther, Op.SUM), ErrorClass.TYPE))
          .compose(v -> expectFailure("put with an uncommitted origin type", win.put(Buf.of(ints), 0, 1, uncommitted, tr, 0,
              2, Datatype.INT), ErrorClass.TYPE, "not committed"))
          .compose(v -> expectFailure("put with an uncommitted target type", win.put(Buf.of(ints), 0, 2, Datatype.INT, tr, 0,
              1, uncommitted), ErrorClass.TYPE, "not committed"))
          .compose(v -> expectFailure("get with an uncommitted target type", win.get(Buf.of(getBuf), 0, 2, Datatype.INT, tr, 0,
              1, uncommitted), ErrorClass.TYPE, "not committed"))
          .compose(v -> expectFailure("accumulate with an uncommitted target type", win.accumulate(Buf.of(longs), 0, 2,
              Datatype.LONG, tr, 0, 1, uncommittedLong, Op.SUM), ErrorClass.TYPE, "not committed"))
          .compose(v -> expectFailure("getAccumulate with an uncommitted result type", win.getAccumulate(Buf.of(longs), 0, 2,
              Datatype.LONG, Buf.of(getAccBuf), 0, 1, uncommittedLong, tr, 0, 2, Datatype.LONG, Op.SUM), ErrorClass.TYPE,
              "not committed"))
          // still usable: the same calls with matching, committed types succeed
          .compose(v -> win.put(Buf.of(ints), 0, 3, Datatype.INT, tr, 1, 1, int3))
          .compose(v -> win.accumulate(Buf.of(longs), 0, 2, Datatype.LONG, tr, 8, 1, everyOther.commit(), Op.SUM))
          .compose(v -> syncAllowing(win.fence(), ErrorClass.TYPE, ErrorClass.TRUNCATE))
          .map(v -> {
            int origin = (r + n - 1) % n;
            byte[] expected = snapshot[0].clone();
            ByteBuffer e = bb(expected);
            for (int i = 0; i < 3; i++) {
              e.putInt(4 + 4 * i, i + 1);
            }
            e.putLong(32, e.getLong(32) + 5);
            e.putLong(48, e.getLong(48) + 6);
            assertBytes(expected, read(win.memory(), 0, 256), "window of rank " + r + " after rank " + origin
                + "'s rejected calls and two correct ones");
            assertEquals("[-1, -1, -1, -1]", Arrays.toString(getBuf), "rejected gets leave the origin buffer alone");
            assertEquals("[-1, -1, -1, -1]", Arrays.toString(getAccBuf));
            return null;
          })
          .compose(v -> win.fence(Mode.NOSUCCEED))
          .compose(v -> win.free());
    }));
    assertEquals(0, WindowMemory.live());
  }
}
