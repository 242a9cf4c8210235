package dev.vertxrma.win;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.Buf;
import dev.vertxrma.Comm;
import dev.vertxrma.Datatype;
import dev.vertxrma.Info;
import dev.vertxrma.JobOptions;
import dev.vertxrma.LockType;
import dev.vertxrma.Mode;
import dev.vertxrma.Op;
import dev.vertxrma.Win;
import dev.vertxrma.impl.memory.WindowMemory;
import dev.vertxrma.testing.Jobs;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.IntFunction;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Passive-target synchronization (MPI_Win_lock/unlock, lock_all, flush*, sync): mutual exclusion,
 * concurrency of shared locks, FIFO fairness, NOCHECK, completion guarantees of flush and unlock,
 * and progress at a target that does not call into the library.
 */
class PassiveTargetTest {

  private static Future<Void> seq(int n, IntFunction<Future<?>> body) {
    Future<Void> f = Future.succeededFuture();
    for (int i = 0; i < n; i++) {
      int it = i;
      f = f.compose(v -> body.apply(it).mapEmpty());
    }
    return f;
  }

  private static Future<Void> send(Comm world, long value, int dest, int tag) {
    return world.send(Buf.of(new long[] {value}), 0, 1, Datatype.LONG, dest, tag);
  }

  private static Future<Long> recv(Comm world, int source, int tag) {
    long[] b = new long[1];
    return world.recv(Buf.of(b), 0, 1, Datatype.LONG, source, tag).map(st -> b[0]);
  }

  // ------------------------------------------------------------------ exclusive locks

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void exclusiveLockGivesMutualExclusionForReadModifyWrite(Jobs.Mode mode) {
    int iterations = 25;
    Jobs.run(mode, 4, (world, args) -> Win.allocate(world, 8, 8, Info.NULL).compose(win -> {
      int n = world.size();
      long[] seen = new long[iterations];
      long[] all = new long[iterations * n];
      return seq(iterations, it -> win.lock(LockType.EXCLUSIVE, 0)
          .compose(v -> {
            long[] buf = new long[1];
            return win.get(Buf.of(buf), 0, 1, Datatype.LONG, 0, 0).compose(x -> {
              seen[it] = buf[0];
              buf[0] = buf[0] + 1;
              return win.put(Buf.of(buf), 0, 1, Datatype.LONG, 0, 0);
            });
          })
          .compose(v -> win.unlock(0)))
          .compose(v -> world.gather(Buf.of(seen), 0, iterations, Datatype.LONG, Buf.of(all), 0, iterations, Datatype.LONG, 0))
          .compose(v -> world.barrier())
          .map(v -> {
            for (int i = 1; i < iterations; i++) {
              assertTrue(seen[i] > seen[i - 1], "rank " + world.rank() + " read " + seen[i - 1] + " then " + seen[i]);
            }
            if (world.rank() == 0) {
              assertEquals((long) n * iterations, win.memory().readLong(0), "final counter");
              long[] sorted = all.clone();
              Arrays.sort(sorted);
              for (int i = 0; i < sorted.length; i++) {
                assertEquals(i, sorted[i], "every read-modify-write saw a distinct value (no lost update)");
              }
            }
            return null;
          })
          .compose(v -> win.free());
    }));
    assertEquals(0, WindowMemory.live());
  }

  // ------------------------------------------------------------------ shared locks

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void sharedLocksAreHeldConcurrentlyByAllRanks(Jobs.Mode mode) {
    // Every rank holds SHARED on rank 0 while it waits in a barrier for all the others: if shared
    // locks excluded each other, the barrier could never complete and the job would fail with
    // TIMEOUT after the (short) wait timeout.
    JobOptions opts = Jobs.options(4).setWaitTimeoutMs(8_000);
    Jobs.await(Jobs.start(mode, opts, (world, args) -> Win.allocate(world, 8 * 4, 8, Info.NULL).compose(win -> {
      int r = world.rank();
      long[] got = new long[4];
      return win.lock(LockType.SHARED, 0)
          .compose(v -> win.accumulate(Buf.of(new long[] {r + 1}), 0, 1, Datatype.LONG, 0, r, Op.SUM))
          .compose(v -> win.flush(0))
          .compose(v -> world.barrier()) // all four hold the shared lock here
          .compose(v -> win.get(Buf.of(got), 0, 4, Datatype.LONG, 0, 0))
          .compose(v -> world.barrier())
          .compose(v -> win.unlock(0))
          .map(v -> {
            assertArrayEquals(new long[] {1, 2, 3, 4}, got, "every holder's update is visible to every holder");
            return null;
          })
          .compose(v -> world.barrier())
          .compose(v -> win.free());
    })), 120);
    assertEquals(0, WindowMemory.live());
  }

  // ------------------------------------------------------------------ fairness

  private static final int T_HELD = 10;
  private static final int T_REQ2 = 11;
  private static final int T_GO3 = 12;
  private static final int T_REQ3 = 13;
  private static final int T_REL1 = 14;

  /**
   * Rank 1 holds SHARED on rank 0; rank 2 requests EXCLUSIVE (queued); only once rank 2's request
   * is known to be queued at rank 0 does rank 3 request SHARED. A FIFO lock must not grant rank
   * 3 before rank 2 has held and released its exclusive lock. Rank 4 keeps a ticket counter
   * (fetchAndOp) that records the order of the events; frames between one pair of ranks are
   * delivered in order, so a message that rank 0 received after a lock request proves the
   * request is queued there.
   */
  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void exclusiveRequestIsNotStarvedBySharedRequests(Jobs.Mode mode) {
    Jobs.run(mode, 5, (world, args) -> Win.allocate(world, 8 * 4, 8, Info.NULL).compose(win -> {
      int r = world.rank();
      long[] tickets = {-1, -1}; // grant ticket, release ticket
      Future<Void> part;
      switch (r) {
        case 0:
          part = recv(world, 2, T_REQ2)
              .compose(x -> send(world, 0, 3, T_GO3))
              .compose(v -> recv(world, 3, T_REQ3))
              .compose(x -> send(world, 0, 1, T_REL1));
          break;
        case 1:
          part = win.lock(LockType.SHARED, 4)
              .compose(v -> win.lock(LockType.SHARED, 0))
              .compose(v -> send(world, 0, 2, T_HELD))
              .compose(v -> recv(world, 0, T_REL1))
              .compose(x -> {
                long[] mark = new long[2];
                return win.get(Buf.of(mark), 0, 2, Datatype.LONG, 0, 0).map(v -> {
                  assertArrayEquals(new long[] {0, 0}, mark,
                      "while rank 1 holds SHARED, neither the exclusive rank 2 nor the later rank 3 got in");
                  return null;
                });
              })
              .compose(v -> win.fetchAndOp(1, 4, 0, Op.SUM))
              .compose(t -> {
                tickets[1] = t;
                return win.unlock(0);
              })
              .compose(v -> win.unlock(4));
          break;
        case 2: {
          Future<Void>[] granted = holder();
          part = win.lock(LockType.SHARED, 4)
              .compose(v -> recv(world, 1, T_HELD))
              .compose(x -> {
                granted[0] = win.lock(LockType.EXCLUSIVE, 0); // the request leaves now
                return send(world, 0, 0, T_REQ2);
              })
              .compose(v -> granted[0])
              .compose(v -> win.fetchAndOp(1, 4, 0, Op.SUM))
              .compose(t -> {
                tickets[0] = t;
                long[] mark = new long[2];
                return win.get(Buf.of(mark), 0, 2, Datatype.LONG, 0, 0).map(v -> {
                  assertEquals(0, mark[1], "rank 3 (SHARED, queued after this EXCLUSIVE) must not have run yet");
                  return null;
                });
              })
              .compose(v -> win.put(Buf.of(new long[] {22}), 0, 1, Datatype.LONG, 0, 0))
              .compose(v -> win.flush(0))
              .compose(v -> win.fetchAndOp(1, 4, 0, Op.SUM))
              .compose(t -> {
                tickets[1] = t;
                return win.unlock(0);
              })
              .compose(v -> win.unlock(4));
          break;
        }
        case 3: {
          Future<Void>[] granted = holder();
          part = win.lock(LockType.SHARED, 4)
              .compose(v -> recv(world, 0, T_GO3))
              .compose(x -> {
                granted[0] = win.lock(LockType.SHARED, 0);
                return send(world, 0, 0, T_REQ3);
              })
              .compose(v -> granted[0])
              .compose(v -> win.fetchAndOp(1, 4, 0, Op.SUM))
              .compose(t -> {
                tickets[0] = t;
                long[] mark = new long[1];
                return win.get(Buf.of(mark), 0, 1, Datatype.LONG, 0, 0).map(v -> {
                  assertEquals(22, mark[0], "rank 3's SHARED lock was granted before the exclusive lock queued "
                      + "ahead of it had been granted and released (exclusive request starved)");
                  return null;
                });
              })
              .compose(v -> win.put(Buf.of(new long[] {33}), 0, 1, Datatype.LONG, 0, 1))
              .compose(v -> win.unlock(0))
              .compose(v -> win.unlock(4));
          break;
        }
        default:
          part = Future.succeededFuture(); // rank 4 only hosts the ticket counter
      }
      long[] all = new long[2 * world.size()];
      return part
          .compose(v -> world.gather(Buf.of(tickets), 0, 2, Datatype.LONG, Buf.of(all), 0, 2, Datatype.LONG, 0))
          .compose(v -> world.barrier())
          .map(v -> {
            if (r == 0) {
              // rank 1 released (ticket 0) < rank 2 granted (1) < rank 2 released (2) < rank 3 granted (3)
              assertEquals(0, all[2 * 1 + 1], "ticket of rank 1's release");
              assertEquals(1, all[2 * 2], "ticket of rank 2's exclusive grant");
              assertEquals(2, all[2 * 2 + 1], "ticket of rank 2's release");
              assertEquals(3, all[2 * 3], "ticket of rank 3's shared grant");
              assertEquals(22, win.memory().readLong(0));
              assertEquals(33, win.memory().readLong(8));
            }
            if (r == 4) {
              assertEquals(4, win.memory().readLong(0), "tickets handed out");
            }
            return null;
          })
          .compose(v -> win.free());
    }));
    assertEquals(0, WindowMemory.live());
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  private static Future<Void>[] holder() {
    return new Future[1];
  }

  // ------------------------------------------------------------------ NOCHECK

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void nocheckLocksGrantAtOnceAndCarryOperations(Jobs.Mode mode) {
    Jobs.run(mode, 4, (world, args) -> Win.allocate(world, 8 * 8, 8, Info.NULL).compose(win -> {
      int r = world.rank();
      int n = world.size();
      // Rounds separated by barriers, so no two NOCHECK exclusive locks conflict (the assertion holds).
      Future<Void> rounds = seq(n - 1, k -> {
        int writer = k + 1;
        if (r != writer) {
          return world.barrier();
        }
        Future<Void> lock = win.lock(LockType.EXCLUSIVE, 0, Mode.NOCHECK);
        assertTrue(lock.isComplete() && lock.succeeded(), "lock(NOCHECK) completes at once");
        return lock
            .compose(v -> win.put(Buf.of(new long[] {100L * writer}), 0, 1, Datatype.LONG, 0, writer))
            .compose(v -> win.accumulate(Buf.of(new long[] {writer}), 0, 1, Datatype.LONG, 0, 0, Op.SUM))
            .compose(v -> win.unlock(0))
            .compose(v -> world.barrier());
      });
      long[] prior = new long[1];
      return rounds
          .map(v -> {
            if (r == 0) {
              assertEquals(1 + 2 + 3, win.memory().readLong(0));
              for (int w = 1; w < n; w++) {
                assertEquals(100L * w, win.memory().readLong(8L * w), "slot " + w);
              }
            }
            return null;
          })
          // all ranks at once with SHARED NOCHECK locks (compatible, so the assertion holds)
          .compose(v -> win.lock(LockType.SHARED, 0, Mode.NOCHECK))
          .compose(v -> win.accumulate(Buf.of(new long[] {10L * (r + 1)}), 0, 1, Datatype.LONG, 0, 5, Op.SUM))
          .compose(v -> win.unlock(0))
          .compose(v -> world.barrier())
          .compose(v -> win.lockAll(Mode.NOCHECK))
          .compose(v -> win.fetchAndOp(1, (r + 1) % n, 6, Op.SUM))
          .compose(old -> {
            prior[0] = old;
            return win.unlockAll();
          })
          .compose(v -> world.barrier())
          .map(v -> {
            assertEquals(0, prior[0], "one fetchAndOp per target");
            assertEquals(1, win.memory().readLong(6 * 8));
            if (r == 0) {
              assertEquals(10 + 20 + 30 + 40, win.memory().readLong(5 * 8));
            }
            return null;
          })
          // NOCHECK left no lock state behind at the target: a checked exclusive lock is granted
          .compose(v -> win.lock(LockType.EXCLUSIVE, 0))
          .compose(v -> win.accumulate(Buf.of(new long[] {1}), 0, 1, Datatype.LONG, 0, 7, Op.SUM))
          .compose(v -> win.unlock(0))
          .compose(v -> world.barrier())
          .map(v -> {
            if (r == 0) {
              assertEquals(n, win.memory().readLong(7 * 8));
            }
            return null;
          })
          .compose(v -> win.free());
    }));
    assertEquals(0, WindowMemory.live());
  }

  // ------------------------------------------------------------------ completion: flush, unlock

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void afterFlushAPutIsVisibleToAnotherRank(Jobs.Mode mode) {
    Jobs.run(mode, 4, (world, args) -> Win.allocate(world, 8 * 8, 8, Info.NULL).compose(win -> {
      int r = world.rank();
      long[] values = {1000, 1001, 1002, 1003, 1004, 1005, 1006, 1007};
      Future<Void> part;
      if (r == 1) {
        part = win.lockAll()
            .compose(v -> {
              // not waiting for the operations' own futures: flush alone must complete them
              win.put(Buf.of(values), 0, 8, Datatype.LONG, 2, 0);
              win.accumulate(Buf.of(new long[] {77}), 0, 1, Datatype.LONG, 0, 3, Op.SUM);
              return win.flush(2);
            })
            .compose(v -> win.flush(0))
            .compose(v -> send(world, 1, 3, 1))
            .compose(v -> send(world, 1, 2, 1))
            .compose(v -> win.unlockAll());
      } else if (r == 3) {
        long[] got = new long[8];
        long[] acc = new long[1];
        part = win.lockAll()
            .compose(v -> recv(world, 1, 1))
            .compose(x -> {
              // the gets' data must be in the buffers once flush completes
              win.get(Buf.of(got), 0, 8, Datatype.LONG, 2, 0);
              win.get(Buf.of(acc), 0, 1, Datatype.LONG, 0, 3);
              return win.flush(2).compose(v -> win.flush(0));
            })
            .map(v -> {
              assertArrayEquals(values, got, "rank 1's put, flushed, seen by rank 3");
              assertEquals(77, acc[0], "rank 1's accumulate, flushed, seen by rank 3");
              return null;
            })
            .compose(v -> win.unlockAll());
      } else if (r == 2) {
        // the target sees the flushed data in its own memory (unified model) after win.sync()
        part = win.lockAll()
            .compose(v -> recv(world, 1, 1))
            .compose(x -> win.sync())
            .map(v -> {
              for (int i = 0; i < 8; i++) {
                assertEquals(values[i], win.memory().readLong(8L * i), "local load of slot " + i);
              }
              return null;
            })
            .compose(v -> win.unlockAll());
      } else {
        part = Future.succeededFuture();
      }
      return part.compose(v -> world.barrier()).compose(v -> win.free());
    }));
    assertEquals(0, WindowMemory.live());
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void unlockCompletesEveryOperationAtTheTarget(Jobs.Mode mode) {
    int slots = 64;
    Jobs.run(mode, 3, (world, args) -> Win.allocate(world, 8L * slots, 8, Info.NULL).compose(win -> {
      int r = world.rank();
      Future<Void> part;
      if (r == 1) {
        long[] buf = new long[1]; // reused after each put's (origin) completion
        part = win.lock(LockType.EXCLUSIVE, 2)
            .compose(v -> seq(slots, i -> {
              buf[0] = 7L * i + 1;
              return win.put(Buf.of(buf), 0, 1, Datatype.LONG, 2, i);
            }))
            .compose(v -> win.accumulate(Buf.of(new long[] {1000}), 0, 1, Datatype.LONG, 2, 0, Op.SUM))
            .compose(v -> win.unlock(2))
            .compose(v -> send(world, 1, 0, 2))
            .compose(v -> send(world, 1, 2, 2));
      } else if (r == 0) {
        long[] got = new long[slots];
        part = recv(world, 1, 2)
            .compose(x -> win.lock(LockType.SHARED, 2))
            .compose(v -> {
              win.get(Buf.of(got), 0, slots, Datatype.LONG, 2, 0); // unlock alone must complete it
              return win.unlock(2);
            })
            .map(v -> {
              assertEquals(1 + 1000, got[0]);
              for (int i = 1; i < slots; i++) {
                assertEquals(7L * i + 1, got[i], "slot " + i);
              }
              Arrays.fill(got, -1);
              return null;
            })
            // the same under a NOCHECK lock, whose unlock has no round trip to the target
            .compose(v -> win.lock(LockType.SHARED, 2, Mode.NOCHECK))
            .compose(v -> {
              win.get(Buf.of(got), 0, slots, Datatype.LONG, 2, 0);
              return win.unlock(2);
            })
            .map(v -> {
              assertEquals(1 + 1000, got[0], "NOCHECK epoch");
              for (int i = 1; i < slots; i++) {
                assertEquals(7L * i + 1, got[i], "slot " + i + ", NOCHECK epoch");
              }
              return null;
            });
      } else {
        part = recv(world, 1, 2)
            .compose(x -> win.lock(LockType.SHARED, 2))
            .compose(v -> win.sync())
            .map(v -> {
              assertEquals(1 + 1000, win.memory().readLong(0));
              for (int i = 1; i < slots; i++) {
                assertEquals(7L * i + 1, win.memory().readLong(8L * i), "slot " + i);
              }
              return null;
            })
            .compose(v -> win.unlock(2));
      }
      return part.compose(v -> world.barrier()).compose(v -> win.free());
    }));
    assertEquals(0, WindowMemory.live());
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void flushAllFlushLocalAndFlushLocalAll(Jobs.Mode mode) {
    Jobs.run(mode, 4, (world, args) -> Win.allocate(world, 8 * 16, 8, Info.NULL).compose(win -> {
      int r = world.rank();
      int n = world.size();
      int right = (r + 1) % n;
      long[] one = {10L * r + 1};
      long[] many = new long[n];
      return win.lockAll()
          // flushLocal: once it completes the origin buffer may be overwritten
          .compose(v -> {
            win.put(Buf.of(one), 0, 1, Datatype.LONG, right, 0);
            return win.flushLocal(right);
          })
          .compose(v -> {
            one[0] = -999;
            return win.flush(right);
          })
          // flushLocalAll: the same for puts to every rank (this one too)
          .compose(v -> {
            for (int t = 0; t < n; t++) {
              many[t] = 100L * r + t;
              win.put(Buf.of(many), t, 1, Datatype.LONG, t, 1 + r);
            }
            return win.flushLocalAll();
          })
          .compose(v -> {
            Arrays.fill(many, -777);
            return win.flushAll();
          })
          // flushAll: accumulates to every rank complete at their targets
          .compose(v -> {
            for (int t = 0; t < n; t++) {
              win.accumulate(Buf.of(new long[] {r + 1}), 0, 1, Datatype.LONG, t, 8, Op.SUM);
            }
            return win.flushAll();
          })
          .compose(v -> world.barrier())
          .compose(v -> win.sync())
          .map(v -> {
            int left = (r + n - 1) % n;
            assertEquals(10L * left + 1, win.memory().readLong(0), "flushLocal'd put from rank " + left);
            for (int o = 0; o < n; o++) {
              assertEquals(100L * o + r, win.memory().readLong(8L * (1 + o)), "flushLocalAll'd put from rank " + o);
            }
            assertEquals((long) n * (n + 1) / 2, win.memory().readLong(8 * 8), "flushAll'd accumulates");
            return null;
          })
          .compose(v -> win.unlockAll())
          .compose(v -> world.barrier())
          .compose(v -> win.free());
    }));
    assertEquals(0, WindowMemory.live());
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void syncOrdersLocalStoresWithRemoteAccesses(Jobs.Mode mode) {
    Jobs.run(mode, 2, (world, args) -> Win.allocate(world, 8 * 2, 8, Info.NULL).compose(win -> {
      int r = world.rank();
      Future<Void> part;
      if (r == 0) {
        part = win.lockAll()
            .compose(v -> {
              win.memory().writeLong(0, 4242);
              return win.sync();
            })
            .compose(v -> send(world, 1, 1, 5))
            .compose(v -> recv(world, 1, 6))
            .compose(x -> win.sync())
            .map(v -> {
              assertEquals(77, win.memory().readLong(8), "rank 1's flushed put, seen by a local load after sync");
              return null;
            })
            .compose(v -> win.unlockAll());
      } else {
        long[] got = new long[1];
        part = win.lockAll()
            .compose(v -> recv(world, 0, 5))
            .compose(x -> win.get(Buf.of(got), 0, 1, Datatype.LONG, 0, 0))
            .map(v -> {
              assertEquals(4242, got[0], "rank 0's local store, synced, seen by a get");
              return null;
            })
            .compose(v -> win.put(Buf.of(new long[] {77}), 0, 1, Datatype.LONG, 0, 1))
            .compose(v -> win.flush(0))
            .compose(v -> send(world, 1, 0, 6))
            .compose(v -> win.unlockAll());
      }
      // sync inside a single-target lock epoch is allowed too
      return part.compose(v -> world.barrier())
          .compose(v -> win.lock(LockType.SHARED, 1 - r))
          .compose(v -> win.sync())
          .compose(v -> win.unlock(1 - r))
          .compose(v -> world.barrier())
          .compose(v -> win.free());
    }));
    assertEquals(0, WindowMemory.live());
  }

  // ------------------------------------------------------------------ progress

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void passiveTargetProgressesWithoutTheTargetCallingIn(Jobs.Mode mode) {
    int iterations = 30;
    Jobs.run(mode, 4, (world, args) -> Win.allocate(world, 8 * 4, 8, Info.NULL).compose(win -> {
      int r = world.rank();
      int n = world.size();
      if (r == 0) {
        // the target only waits in the barrier while the others lock and update its window
        return world.barrier()
            .map(v -> {
              assertEquals((long) (n - 1) * iterations, win.memory().readLong(0), "read-modify-write counter");
              assertEquals((long) iterations * (n - 1) * n / 2, win.memory().readLong(8), "accumulated ranks");
              assertEquals((long) (n - 1) * iterations, win.memory().readLong(16), "fetch-and-op counter");
              return null;
            })
            .compose(v -> win.free());
      }
      List<Long> fetched = new ArrayList<>();
      return seq(iterations, i -> win.lock(LockType.EXCLUSIVE, 0)
          .compose(v -> {
            long[] buf = new long[1];
            return win.get(Buf.of(buf), 0, 1, Datatype.LONG, 0, 0)
                .compose(x -> win.put(Buf.of(new long[] {buf[0] + 1}), 0, 1, Datatype.LONG, 0, 0));
          })
          .compose(v -> win.accumulate(Buf.of(new long[] {r}), 0, 1, Datatype.LONG, 0, 1, Op.SUM))
          .compose(v -> win.unlock(0))
          .compose(v -> win.lock(LockType.SHARED, 0))
          .compose(v -> win.fetchAndOp(1, 0, 2, Op.SUM))
          .compose(old -> {
            fetched.add(old);
            return win.unlock(0);
          }))
          .map(v -> {
            for (int i = 1; i < fetched.size(); i++) {
              assertTrue(fetched.get(i) > fetched.get(i - 1), "fetch-and-op results increase: " + fetched);
            }
            return null;
          })
          .compose(v -> world.barrier())
          .compose(v -> win.free());
    }));
    assertEquals(0, WindowMemory.live());
  }
}
