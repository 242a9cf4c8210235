package dev.vertxrma.rx;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.vertxrma.Buf;
import dev.vertxrma.Datatype;
import dev.vertxrma.Info;
import dev.vertxrma.Op;
import dev.vertxrma.testing.Jobs;
import io.reactivex.rxjava3.core.Completable;
import io.reactivex.rxjava3.core.Single;
import io.vertx.core.Promise;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class RxFacadeTest {

  /**
   * Loads RxJava's classes on the test thread: the first rank program to touch them would otherwise
   * load them on an event loop, a one-time cost of the JVM (not of the facade) that the 50 ms
   * blocked-thread checker flags when this class happens to run first.
   */
  @BeforeAll
  static void loadRxJava() {
    io.reactivex.rxjava3.core.Single.just(1).map(x -> x + 1).flatMap(x -> io.reactivex.rxjava3.core.Single.just(x))
        .ignoreElement().andThen(io.reactivex.rxjava3.core.Completable.complete()).blockingAwait();
    io.reactivex.rxjava3.core.Maybe.just(1).toSingle().blockingGet();
    Single.merge(List.of(Single.just(1), Single.just(2))).ignoreElements().blockingAwait();
    Completable.merge(List.of(Completable.complete(), Completable.complete())).blockingAwait();
  }

  @ParameterizedTest
  @EnumSource(Jobs.Mode.class)
  void counterAndRequestsThroughRx(Jobs.Mode mode) {
    Jobs.run(mode, 3, (world, args) -> {
      RxComm comm = RxComm.of(world);
      long[] got = new long[3];
      Completable job = RxWin.allocate(comm, 64, 8, Info.NULL).flatMapCompletable(win -> {
        List<Single<Long>> incs = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
          incs.add(win.fetchAndOp(1, 0, 0, Op.SUM));
        }
        return win.lockAll()
            .andThen(Single.merge(incs).ignoreElements())
            .andThen(win.flush(0))
            .andThen(win.rput(Buf.of(new long[] {100 + comm.rank()}), 0, 1, Datatype.LONG, 0, 1 + comm.rank()))
            .andThen(win.unlockAll())
            .andThen(comm.barrier())
            .andThen(win.lockAll())
            .andThen(Completable.merge(List.of(
                win.rget(Buf.of(got), 0, 1, Datatype.LONG, 0, 0),
                win.rget(Buf.of(got), 1, 1, Datatype.LONG, 0, 1),
                win.rget(Buf.of(got), 2, 1, Datatype.LONG, 0, 2))))
            .andThen(win.unlockAll())
            .andThen(comm.barrier())
            .andThen(win.free());
      });
      Promise<Void> done = Promise.promise();
      job.subscribe(done::complete, done::fail);
      return done.future().map(v -> {
        assertEquals(30, got[0]);
        assertEquals(100, got[1]);
        assertEquals(101, got[2]);
        return null;
      });
    });
  }
}
