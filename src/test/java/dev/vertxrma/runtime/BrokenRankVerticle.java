package dev.vertxrma.runtime;

import dev.vertxrma.Comm;
import dev.vertxrma.RankVerticle;
import io.vertx.core.Future;
import java.util.List;

/** A rank program whose constructor throws, as one with a bad static setup or a missing resource does. */
public class BrokenRankVerticle extends RankVerticle {

  public BrokenRankVerticle() {
    throw new IllegalStateException("broken rank program: its constructor throws");
  }

  @Override
  public Future<?> run(Comm world, List<String> args) {
    return Future.succeededFuture();
  }
}
