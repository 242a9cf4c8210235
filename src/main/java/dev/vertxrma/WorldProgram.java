package dev.vertxrma;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.util.List;

/**
 * The code one JVM runs with the ranks it hosts: a service that holds a {@link World} rather than
 * a program per rank. {@code bin/rmarun} runs a class implementing it (public no-argument
 * constructor) once per JVM of the job, after {@link Rma#world(Vertx, JobOptions)} has started
 * that JVM's ranks, and closes the world when the returned future completes.
 */
@FunctionalInterface
public interface WorldProgram {

  /**
   * Runs this JVM's part of the job.
   *
   * @param vertx the Vert.x instance the ranks run on (clustered when the job spans JVMs)
   * @param world this JVM's ranks of the job, open until the returned future completes
   * @param args the program arguments given to the launcher after the program name
   * @return completes when this JVM's part is done; a failure fails the job
   */
  Future<?> run(Vertx vertx, World world, List<String> args);
}
