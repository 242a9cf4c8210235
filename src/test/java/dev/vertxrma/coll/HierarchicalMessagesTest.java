package dev.vertxrma.coll;

import static dev.vertxrma.testing.RmaAssertions.assertError;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Op;
import dev.vertxrma.impl.ops.Combiner;
import dev.vertxrma.testing.Jobs;
import io.vertx.core.Future;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What barrier, allreduce and broadcast send across JVMs when a JVM holds several ranks: the
 * ranks of a JVM meet in memory (no frame between them) and one rank per JVM crosses, in
 * log2-many rounds over the JVMs, also for JVM counts that are not powers of two and for uneven
 * JVMs. The ranks run in one Vert.x and are told they live in JVMs ({@link SimulatedJvms}), so
 * that every frame between "JVMs" can be counted; the values are checked too, and a block of the
 * wrong length fails every rank's call at once.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HierarchicalMessagesTest {

  static Stream<int[]> placements() {
    return Stream.of(new int[] {2, 2, 2}, new int[] {1, 2, 3}, new int[] {2, 1, 2, 1, 2}, new int[] {3, 3, 3, 3},
        new int[] {3, 1});
  }

  private static int log2Ceil(int n) {
    return 32 - Integer.numberOfLeadingZeros(n - 1);
  }

  private static byte[] longs(long... v) {
    ByteBuffer b = ByteBuffer.allocate(8 * v.length).order(ByteOrder.nativeOrder());
    for (long x : v) {
      b.putLong(x);
    }
    return b.array();
  }

  private static long[] longsOf(byte[] bytes) {
    ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.nativeOrder());
    long[] out = new long[bytes.length / 8];
    for (int i = 0; i < out.length; i++) {
      out[i] = b.getLong();
    }
    return out;
  }

  @ParameterizedTest(name = "JVMs of {0} ranks")
  @MethodSource("placements")
  void onlyOneRankPerJvmCrossesInLogRounds(int[] perJvm) {
    SimulatedJvms job = new SimulatedJvms(Jobs.embedded(), 30_000, perJvm);
    int np = job.np;
    int l = perJvm.length;
    int rounds = 10;

    // barriers called back to back, unawaited
    Jobs.await(job.onEveryRank(r -> {
      List<Future<Void>> all = new ArrayList<>();
      for (int k = 0; k < rounds; k++) {
        all.add(job.coll[r].barrier());
      }
      return Future.all(all);
    }), 30);
    assertEquals(0, job.within.get(), "frames between ranks of one JVM in barriers");
    assertEquals(rounds * l * log2Ceil(l), job.crossing.get(), "frames across JVMs in " + rounds + " barriers");

    // allreduces (SUM, then MAX), back to back: the leaders' recursive doubling with the fix-up
    job.crossing.set(0);
    List<List<long[]>> sums = Jobs.await(job.onEveryRank(r -> {
      List<Future<long[]>> all = new ArrayList<>();
      for (int k = 0; k < rounds; k++) {
        Combiner op = Combiner.of(k % 2 == 0 ? Op.SUM : Op.MAX, Datatype.LONG, 2, "allreduce", r);
        all.add(job.coll[r].allreduce(longs(r + 1L + k, (long) k * r), op).map(HierarchicalMessagesTest::longsOf));
      }
      return Future.all(all).map(cf -> cf.<long[]>list());
    }), 30);
    for (int r = 0; r < np; r++) {
      for (int k = 0; k < rounds; k++) {
        long[] expected = k % 2 == 0 ? new long[] {(long) np * (np + 1) / 2 + (long) k * np, (long) k * np * (np - 1) / 2}
            : new long[] {np + k, (long) k * (np - 1)};
        assertArrayEquals(expected, sums.get(r).get(k), "allreduce " + k + " at rank " + r);
      }
    }
    int pof2 = Integer.highestOneBit(l);
    int perAllreduce = 2 * (l - pof2) + pof2 * Integer.numberOfTrailingZeros(pof2);
    assertEquals(0, job.within.get(), "frames between ranks of one JVM in allreduces");
    assertEquals(rounds * perAllreduce, job.crossing.get(), "frames across JVMs in " + rounds + " allreduces");

    // a bcast from every root: one frame into each other JVM
    job.crossing.set(0);
    List<List<byte[]>> got = Jobs.await(job.onEveryRank(r -> {
      List<Future<byte[]>> all = new ArrayList<>();
      for (int root = 0; root < np; root++) {
        all.add(job.coll[r].bcast(r == root ? longs(100 + root, -root) : null, root));
      }
      return Future.all(all).map(cf -> cf.<byte[]>list());
    }), 30);
    for (int r = 0; r < np; r++) {
      for (int root = 0; root < np; root++) {
        assertArrayEquals(new long[] {100 + root, -root}, longsOf(got.get(r).get(root)), "bcast from " + root + " at " + r);
      }
    }
    assertEquals(0, job.within.get(), "frames between ranks of one JVM in bcasts");
    assertEquals(np * (l - 1), job.crossing.get(), "frames across JVMs in " + np + " bcasts");
  }

  /**
   * One rank (a leader, then one that is not) contributes a block of another length: every rank's
   * allreduce fails with TRUNCATE (none waits for its timeout, which is longer than the test's),
   * and the next allreduce succeeds everywhere.
   */
  @ParameterizedTest(name = "JVMs of {0} ranks")
  @MethodSource("placements")
  void aBlockOfTheWrongLengthFailsEveryRankAtOnce(int[] perJvm) {
    SimulatedJvms job = new SimulatedJvms(Jobs.embedded(), 120_000, perJvm);
    for (int wrong : new int[] {perJvm[0], job.np - 1}) {
      List<Throwable> failures = Jobs.await(job.onEveryRank(r -> {
        Combiner op = Combiner.of(Op.SUM, Datatype.LONG, 1, "allreduce", r);
        Future<byte[]> bad = job.coll[r].allreduce(r == wrong ? longs(1, 2) : longs(1), op);
        Future<byte[]> next = job.coll[r].allreduce(longs(r), Combiner.of(Op.SUM, Datatype.LONG, 1, "allreduce", r));
        return bad.transform(ar -> next.map(sum -> {
          assertEquals((long) job.np * (job.np - 1) / 2, longsOf(sum)[0], "the allreduce after the failed one");
          return ar.failed() ? ar.cause() : null;
        }));
      }), 30);
      for (int r = 0; r < job.np; r++) {
        assertError(failures.get(r), ErrorClass.TRUNCATE, "allreduce", "bytes");
      }
    }
  }
}
