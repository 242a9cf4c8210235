package dev.vertxrma.comm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.Buf;
import dev.vertxrma.Comm;
import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.FailurePolicy;
import dev.vertxrma.Info;
import dev.vertxrma.JobOptions;
import dev.vertxrma.Op;
import dev.vertxrma.Rma;
import dev.vertxrma.RmaException;
import dev.vertxrma.Status;
import dev.vertxrma.Win;
import dev.vertxrma.testing.BlockedThreadGuard;
import dev.vertxrma.testing.Jobs;
import dev.vertxrma.testing.Jobs.Mode;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * ULFM (FailurePolicy.CONTINUE, Comm.revoke/agree/shrink/getFailed/ackFailed) against its MPI
 * definitions: agreements and shrinks issued back to back without awaiting, a revoke seen by
 * every member, and a job that loses a rank's node and goes on: what depended on the dead rank
 * fails with PROC_FAILED naming it, what did not keeps working, ANY_SOURCE waits again once the
 * failure is acknowledged, and the survivors shrink and make a window again.
 */
class UlfmTest {

  private static final String BOOM = "never sent";

  @ParameterizedTest
  @EnumSource(Mode.class)
  void agreementsAndShrinksIssuedBackToBackDecideTheSameEverywhere(Mode mode) {
    Jobs.await(Jobs.start(mode, Jobs.options(4), (world, args) -> {
      int me = world.rank();
      // none awaited: they run one after the other, in call order, at every rank
      Future<Integer> first = world.agree(me == 2 ? 0b101 : 0b111);
      Future<Integer> second = world.agree(-1);
      Future<Comm> shrunk = world.shrink();
      Future<Integer> third = world.agree(me == 0 ? 0 : 1);
      return Future.all(first, second, shrunk, third).compose(all -> {
        assertEquals(0b101, first.result());
        assertEquals(-1, second.result());
        assertEquals(0, third.result());
        Comm c = shrunk.result();
        assertEquals(4, c.size(), "no member failed: shrink keeps them all");
        assertEquals(me, c.rank());
        Future<dev.vertxrma.Group> failed = world.getFailed();
        Future<Integer> acked = world.ackFailed(0);
        Future<Long> sum = c.allreduce((long) me, Op.SUM);
        return Future.all(failed, acked, sum).compose(r -> {
          assertEquals(0, failed.result().size());
          assertEquals(0, (int) acked.result());
          assertEquals(6L, (long) sum.result());
          return c.free();
        });
      });
    }), 120);
  }

  @ParameterizedTest
  @EnumSource(Mode.class)
  void aRevokeFailsPendingAndLaterCallsAtEveryMemberAndShrinkRecovers(Mode mode) {
    Jobs.await(Jobs.start(mode, Jobs.options(3), (world, args) -> {
      int me = world.rank();
      return world.dup().compose(d -> {
        long[] none = new long[1];
        // a receive nobody will match, posted before the revoke
        Future<Status> pending = d.recv(Buf.of(none), 0, 1, Datatype.LONG, (me + 1) % 3, 99);
        return world.barrier().compose(v -> me == 2 ? d.revoke() : Future.succeededFuture())
            .compose(v -> pending.transform(ar -> {
              assertTrue(ar.failed(), "the pending receive must fail when the communicator is revoked");
              assertRevoked(ar.cause());
              assertTrue(d.isRevoked());
              return Future.succeededFuture();
            }))
            .compose(v -> d.send(Buf.of(none), 0, 1, Datatype.LONG, (me + 1) % 3, 1).transform(ar -> {
              assertTrue(ar.failed(), "a send on a revoked communicator must fail");
              assertRevoked(ar.cause());
              return d.barrier();
            }).transform(ar -> {
              assertTrue(ar.failed(), "a barrier on a revoked communicator must fail");
              assertRevoked(ar.cause());
              return d.agree(me + 1);
            }))
            .compose(flag -> {
              assertEquals(1 & 2 & 3, (int) flag);
              return d.shrink();
            })
            .compose(s -> s.allreduce((long) me + 1, Op.SUM).compose(sum -> {
              assertEquals(6L, (long) sum);
              assertEquals(3, s.size());
              return Future.all(s.free(), d.free());
            }))
            .compose(v -> world.allreduce(1L, Op.SUM)).map(sum -> {
              assertEquals(3L, (long) sum, "revoking a dup leaves the world working");
              return null;
            });
      });
    }), 120);
  }

  private static void assertRevoked(Throwable t) {
    assertTrue(t instanceof RmaException, String.valueOf(t));
    assertEquals(ErrorClass.REVOKED, ((RmaException) t).errorClass(), t.getMessage());
  }

  /**
   * Ranks 0 and 1 on one node, rank 2 on another, rank 3 on a third that leaves the cluster
   * while the survivors wait on it: a receive from it, a receive from ANY_SOURCE and a barrier
   * of the world fail with PROC_FAILED naming it; point-to-point between survivors goes on,
   * ANY_SOURCE fails until the failure is acknowledged, an agreement and a shrink give the
   * same result at every survivor, and a window over the shrunken communicator works.
   */
  @Test
  void aJobThatLosesANodeGoesOnBetweenTheSurvivors() throws Exception {
    Vertx[] nodes = Jobs.clusterNodes();
    Vertx doomed = BlockedThreadGuard.watch(Jobs.await(Rma.clusteredVertx(clusterNameOf(nodes[0]),
        BlockedThreadGuard.options()), 120));
    JobOptions options = Jobs.options(4).setWaitTimeoutMs(60_000).setFailurePolicy(FailurePolicy.CONTINUE);
    CountDownLatch waiting = new CountDownLatch(3);
    CompletableFuture<Void> rank3Running = new CompletableFuture<>();
    Future<Void> a = Rma.run(nodes[0], new JobOptions(options).setLocalRanks(0, 2), (w, args) -> survivor(w, waiting));
    Future<Void> b = Rma.run(nodes[1], new JobOptions(options).setLocalRanks(2, 1), (w, args) -> survivor(w, waiting));
    Rma.run(doomed, new JobOptions(options).setLocalRanks(3, 1), (w, args) -> {
      rank3Running.complete(null);
      return Promise.promise().future(); // never completes: its node leaves under it
    });
    rank3Running.get(120, TimeUnit.SECONDS);
    assertTrue(waiting.await(120, TimeUnit.SECONDS), "the survivors never got to wait on rank 3");
    doomed.close();
    Jobs.await(Future.all(a, b), 120);
  }

  private static Future<Void> survivor(Comm world, CountDownLatch waiting) {
    int me = world.rank();
    long[] in = new long[1];
    Future<Status> fromDead = world.recv(Buf.of(in), 0, 1, Datatype.LONG, 3, 5);
    Future<Status> fromAny = world.recv(Buf.of(new long[1]), 0, 1, Datatype.LONG, Comm.ANY_SOURCE, 6);
    Future<Void> barrier = world.barrier();
    waiting.countDown();
    return Future.join(fromDead, fromAny, barrier).transform(ar -> {
      for (Future<?> f : List.of(fromDead, fromAny, barrier)) {
        assertTrue(f.failed(), "a call waiting on the dead rank must fail");
        assertProcFailed(f.cause(), "[3]");
      }
      return world.getFailed();
    }).compose(failed -> {
      assertArrayEquals(new int[] {3}, failed.ranks());
      return world.recv(Buf.of(in), 0, 1, Datatype.LONG, Comm.ANY_SOURCE, 7).transform(ar -> {
        assertTrue(ar.failed(), "ANY_SOURCE must fail while the failure is not acknowledged");
        assertProcFailed(ar.cause(), "ackFailed");
        return world.ackFailed(5);
      });
    }).compose(acked -> {
      assertEquals(1, (int) acked);
      // a ring among the survivors, received from ANY_SOURCE: the dead rank is out of it
      int right = me == 2 ? 0 : me + 1;
      Future<Status> got = world.recv(Buf.of(in), 0, 1, Datatype.LONG, Comm.ANY_SOURCE, 8);
      return world.send(Buf.of(new long[] {100 + me}), 0, 1, Datatype.LONG, right, 8).compose(v -> got);
    }).compose(status -> {
      int left = me == 0 ? 2 : me - 1;
      assertEquals(left, status.source());
      assertEquals(100 + left, in[0]);
      return world.agree(me == 1 ? 6 : 7);
    }).compose(flag -> {
      assertEquals(6, (int) flag);
      return world.shrink();
    }).compose(s -> {
      assertEquals(3, s.size());
      assertEquals(me, s.rank());
      return Win.allocate(s, 8 * 3, 8, Info.NULL).compose(win -> win.fence()
          .compose(v -> win.put(Buf.of(new long[] {10 * me + 1}), 0, 1, Datatype.LONG, (me + 1) % 3, me))
          .compose(v -> win.fence())
          .map(v -> {
            int left = (me + 2) % 3;
            assertEquals(10 * left + 1, win.memory().readLong(8L * left), "the put of the left neighbour");
            return null;
          })
          .compose(v -> win.free()))
          .compose(v -> s.free());
    });
  }

  /**
   * A window over the world of a job that loses rank 3 while it holds rank 0's exclusive lock:
   * rank 1's queued lock is granted at once, rank 0's wait for rank 3's complete and rank 2's
   * start waiting for rank 3's post fail with PROC_FAILED, a put to rank 3 fails at issue, a fence
   * fails, and every survivor frees the window locally.
   */
  @Test
  void aWindowReleasesWhatTheDeadRankHeldAndFailsWhatWaitsOnIt() throws Exception {
    Vertx[] nodes = Jobs.clusterNodes();
    Vertx doomed = BlockedThreadGuard.watch(Jobs.await(Rma.clusteredVertx(clusterNameOf(nodes[0]),
        BlockedThreadGuard.options()), 120));
    JobOptions options = Jobs.options(4).setWaitTimeoutMs(60_000).setFailurePolicy(FailurePolicy.CONTINUE);
    CountDownLatch waiting = new CountDownLatch(3);
    CompletableFuture<Void> rank3Holds = new CompletableFuture<>();
    Future<Void> a = Rma.run(nodes[0], new JobOptions(options).setLocalRanks(0, 2), (w, args) -> windowSurvivor(w,
        waiting));
    Future<Void> b = Rma.run(nodes[1], new JobOptions(options).setLocalRanks(2, 1), (w, args) -> windowSurvivor(w,
        waiting));
    Rma.run(doomed, new JobOptions(options).setLocalRanks(3, 1), (w, args) -> Win.allocate(w, 8, 8, Info.NULL)
        .compose(win -> win.lock(dev.vertxrma.LockType.EXCLUSIVE, 0).compose(v -> w.barrier()).compose(v -> {
          rank3Holds.complete(null);
          return Promise.<Void>promise().future(); // holds rank 0's lock until its node leaves
        })));
    rank3Holds.get(120, TimeUnit.SECONDS);
    assertTrue(waiting.await(120, TimeUnit.SECONDS), "the survivors never got to wait on rank 3");
    doomed.close();
    Jobs.await(Future.all(a, b), 120);
  }

  private static Future<Void> windowSurvivor(Comm world, CountDownLatch waiting) {
    int me = world.rank();
    return Win.allocate(world, 8, 8, Info.NULL).compose(win -> world.barrier().compose(v -> {
      Future<Void> pending;
      if (me == 0) {
        pending = win.post(world.group().incl(3)).compose(v2 -> win.waitFor());
      } else if (me == 1) {
        pending = win.lock(dev.vertxrma.LockType.EXCLUSIVE, 0)
            .compose(v2 -> win.put(Buf.of(new long[] {42}), 0, 1, Datatype.LONG, 0, 0))
            .compose(v2 -> win.unlock(0));
      } else {
        pending = win.start(world.group().incl(3));
      }
      waiting.countDown();
      return pending.transform(ar -> {
        if (me == 1) {
          assertTrue(ar.succeeded(), "the lock rank 3 held must be given to rank 1: " + ar.cause());
        } else {
          assertTrue(ar.failed(), "a PSCW wait on the dead rank must fail");
          assertProcFailed(ar.cause(), "[3]");
        }
        return world.ackFailed(1);
      }).compose(n -> {
        if (me != 2) {
          return Future.succeededFuture();
        }
        // its own lock (rank 1 may have freed its window by now): the put names another target
        return win.lock(dev.vertxrma.LockType.SHARED, 2)
            .compose(v2 -> win.put(Buf.of(new long[] {1}), 0, 1, Datatype.LONG, 3, 0).transform(ar -> {
              assertTrue(ar.failed(), "a put to the dead rank must fail");
              assertProcFailed(ar.cause(), "[3]");
              return win.unlock(2);
            }));
      }).compose(v2 -> {
        // rank 1's put reached rank 0 before rank 1's unlock completed; the survivors meet by messages
        Future<Status> told = me == 0 ? world.recv(Buf.of(new long[1]), 0, 1, Datatype.LONG, 1, 9)
            : me == 1 ? world.send(Buf.of(new long[1]), 0, 1, Datatype.LONG, 0, 9).map((Status) null)
            : Future.succeededFuture();
        return told.map(st -> {
          if (me == 0) {
            assertEquals(42L, win.memory().readLong(0), "rank 1's put under the lock rank 3 held");
          }
          return null;
        });
      }).compose(v2 -> win.fence().transform(ar -> {
        assertTrue(ar.failed(), "a fence of a window that lost a member must fail");
        assertProcFailed(ar.cause(), "[3]");
        return win.free();
      }));
    }));
  }

  /**
   * An agreement whose coordinator (rank 0) dies while the others wait in it, then a shrink
   * during which a second rank (4, which took part in the agreement) dies: the survivors 1..3
   * decide the same AND of the flags (rank 4's included), and shrink to the same communicator of
   * three, having learnt both deaths.
   */
  @Test
  void agreeAndShrinkDecideAlikeWhenTheCoordinatorAndThenAnotherRankDieDuringThem() throws Exception {
    Vertx[] nodes = Jobs.clusterNodes();
    Vertx doomed0 = BlockedThreadGuard.watch(Jobs.await(Rma.clusteredVertx(clusterNameOf(nodes[0]),
        BlockedThreadGuard.options()), 120));
    Vertx doomed4 = BlockedThreadGuard.watch(Jobs.await(Rma.clusteredVertx(clusterNameOf(nodes[0]),
        BlockedThreadGuard.options()), 120));
    JobOptions options = Jobs.options(5).setWaitTimeoutMs(60_000).setFailurePolicy(FailurePolicy.CONTINUE);
    CountDownLatch agreeing = new CountDownLatch(4);
    CountDownLatch shrinking = new CountDownLatch(3);
    CountDownLatch rank0Waits = new CountDownLatch(1);
    dev.vertxrma.RankProgram coordinator = (w, args) -> w.barrier().compose(v -> {
      rank0Waits.countDown();
      return Promise.<Void>promise().future(); // never agrees: its node leaves under it
    });
    dev.vertxrma.RankProgram rank4 = (w, args) -> w.barrier().compose(v -> {
      Future<Integer> agreed = w.agree(0b1101);
      agreeing.countDown();
      return agreed.compose(flag -> Promise.<Void>promise().future()); // never shrinks: its node leaves then
    });
    dev.vertxrma.RankProgram survivor = (w, args) -> w.barrier().compose(v -> {
      int me = w.rank();
      Future<Integer> agreed = w.agree(me == 2 ? 0b011 : 0b111);
      agreeing.countDown();
      return agreed.compose(flag -> {
        assertEquals(0b001, (int) flag, "the AND of the flags of ranks 1..4");
        Future<Comm> shrunk = w.shrink();
        shrinking.countDown();
        return shrunk;
      }).compose(s -> w.getFailed().compose(failed -> {
        assertEquals(List.of(0, 4), java.util.Arrays.stream(failed.ranks()).sorted().boxed().toList());
        assertEquals(3, s.size());
        assertEquals(me - 1, s.rank(), "the survivors keep their order");
        return s.allreduce((long) me, Op.SUM).map(sum -> {
          assertEquals(6L, (long) sum);
          return null;
        }).compose(v2 -> s.free());
      }));
    });
    Rma.run(doomed0, new JobOptions(options).setLocalRanks(0, 1), coordinator);
    Future<Void> a = Rma.run(nodes[0], new JobOptions(options).setLocalRanks(1, 2), survivor);
    Future<Void> b = Rma.run(nodes[1], new JobOptions(options).setLocalRanks(3, 1), survivor);
    Rma.run(doomed4, new JobOptions(options).setLocalRanks(4, 1), rank4);
    assertTrue(rank0Waits.await(120, TimeUnit.SECONDS) && agreeing.await(120, TimeUnit.SECONDS),
        "the job never got into the agreement");
    Jobs.await(doomed0.close(), 60); // the coordinator leaves while the others wait for it
    assertTrue(shrinking.await(120, TimeUnit.SECONDS), "the survivors never got into the shrink");
    Jobs.await(doomed4.close(), 60); // then rank 4, which the shrink waits for
    Jobs.await(Future.all(a, b), 120);
  }

  private static void assertProcFailed(Throwable t, String mentions) {
    assertTrue(t instanceof RmaException, String.valueOf(t));
    RmaException e = (RmaException) t;
    assertEquals(ErrorClass.PROC_FAILED, e.errorClass(), e.getMessage());
    assertTrue(e.getMessage().contains(mentions), e.getMessage());
  }

  private static String clusterNameOf(Vertx v) {
    return ((io.vertx.spi.cluster.hazelcast.HazelcastClusterManager) ((io.vertx.core.internal.VertxInternal) v)
        .clusterManager()).getHazelcastInstance().getConfig().getClusterName();
  }
}
