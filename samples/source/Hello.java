// A rank program in one source file, run without a build step (like `java Hello.java`):
//
//     bin/rmarun -np 4 samples/source/Hello.java
//     bin/rmarun -np 4 --jvms 2 --tag-output samples/source/Hello.java
//
// rmarun compiles the file in memory against the library and runs its first class, a public
// RankProgram (or WorldProgram) with a public no-argument constructor; more classes may follow it.
// Each rank puts a value into the next rank's window in a fence epoch, reads its own window back
// with a get, and checks that it holds the previous rank's value. Copy it to start your own.
import dev.vertxrma.Buf;
import dev.vertxrma.Comm;
import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Info;
import dev.vertxrma.Mode;
import dev.vertxrma.RankProgram;
import dev.vertxrma.RmaException;
import dev.vertxrma.Win;
import io.vertx.core.Future;
import java.util.List;

public class Hello implements RankProgram {

  @Override
  public Future<?> run(Comm world, List<String> args) {
    int rank = world.rank();
    int size = world.size();
    long[] mine = new long[1];
    return Win.allocate(world, Long.BYTES, Long.BYTES, Info.NULL).compose(win ->
        win.fence(Mode.NOPRECEDE)
            .compose(v -> win.put(Buf.of(new long[] {Greeting.of(rank)}), 0, 1, Datatype.LONG, (rank + 1) % size, 0))
            .compose(v -> win.fence())
            .compose(v -> win.get(Buf.of(mine), 0, 1, Datatype.LONG, rank, 0))
            .compose(v -> win.fence(Mode.NOSUCCEED))
            .compose(v -> win.free()))
        .compose(v -> {
          int from = (rank + size - 1) % size;
          if (mine[0] != Greeting.of(from)) {
            return Future.failedFuture(new RmaException(ErrorClass.OTHER,
                "rank " + rank + " holds " + mine[0] + ", expected rank " + from + "'s " + Greeting.of(from)));
          }
          System.out.println("hello from rank " + rank + " of " + size + ": verified rank " + from + "'s put");
          return Future.succeededFuture();
        });
  }
}

/** The value rank r puts: a second top-level class of the file. */
final class Greeting {
  static long of(int rank) {
    return 100L + rank;
  }
}
