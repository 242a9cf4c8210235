package dev.vertxrma.junit;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A JUnit 5 test that runs a job of rank programs: the test method takes an {@link RmaJob}
 * parameter and calls {@link RmaJob#run(dev.vertxrma.RankProgram)} (ranks embedded in this JVM)
 * or {@link RmaJob#run(Class, String...)} (also across {@link #jvms()} JVMs). The test fails
 * with the failing rank's {@link dev.vertxrma.RmaException}, and with one of class
 * {@link dev.vertxrma.ErrorClass#WIN} when a rank ends with windows it created and never freed.
 *
 * <pre>{@code
 * @RmaTest(ranks = 4)
 * void sumOfRanks(RmaJob job) {
 *   job.run((world, args) -> world.allreduce((long) world.rank(), Op.SUM)
 *       .map(sum -> { assertEquals(6L, sum); return null; }));
 * }
 *
 * @RmaTest(ranks = 4, jvms = 2)
 * void acrossJvms(RmaJob job) {
 *   job.run(MyProgram.class, "some", "args");   // a public class with a public no-argument constructor
 * }
 * }</pre>
 *
 * <p>Every run is a new job with a unique name (also its cluster name) and a fresh secret. With
 * {@code jvms > 1} the ranks are split over that many new JVMs started like
 * {@code bin/rmarun --jvms K} does, with this JVM's java, flags and class path; they join over
 * the clustered event bus on loopback.
 */
@Target({ElementType.METHOD, ElementType.ANNOTATION_TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Test
@ExtendWith(RmaTestExtension.class)
public @interface RmaTest {

  /**
   * The number of ranks of each job the test runs ({@code mpirun -np}).
   *
   * @return the number of ranks, at least 1
   */
  int ranks() default 2;

  /**
   * The number of JVMs the ranks are split over by {@link RmaJob#run(Class, String...)}: 1 (the
   * default) runs them in this JVM; more starts that many new JVMs (at most {@link #ranks()}),
   * with this JVM's java, flags and class path. Two system properties of the test JVM change
   * that: {@code rma.junit.classPath} gives their class path (one jar, whose manifest may name
   * the rest, lets them share a class-data archive written beside it by the first job, as
   * {@code bin/rmarun}'s JVMs do: a JVM then starts in about half the time) and
   * {@code rma.junit.javaOptions} more JVM flags (for example {@code -XX:TieredStopAtLevel=1},
   * which spares short jobs the optimizing compiler's threads).
   *
   * @return the number of JVMs, at least 1
   */
  int jvms() default 1;

  /**
   * With one JVM, whether the ranks run on two clustered Vert.x nodes in this JVM (Hazelcast on
   * loopback, the job's name as cluster name, half of the ranks on each) instead of one embedded
   * Vert.x instance: frames between the halves then cross the data plane as between JVMs.
   *
   * @return {@code true} for clustered nodes; ignored when {@link #jvms()} is more than 1
   */
  boolean clustered() default false;

  /**
   * The longest one job may take, start-up included; it is also the wait timeout of every rank
   * (receives, barriers, epochs, locks). A job still running then fails the test with
   * {@link dev.vertxrma.ErrorClass#TIMEOUT}.
   *
   * @return the time limit of a job in seconds
   */
  long timeoutSeconds() default 120;

  /**
   * Whether a rank that finalizes with windows it created and never freed fails the job
   * ({@link dev.vertxrma.JobOptions#setRequireFreedWindows}); on by default.
   *
   * @return {@code true} to check that every window was freed
   */
  boolean requireFreedWindows() default true;

  /**
   * Whether the ranks run on virtual threads, so the program may {@code await()} each call
   * ({@link dev.vertxrma.JobOptions#setVirtualThreads}); off by default. Needs Java 21+ in the JVMs
   * that run the ranks: on an older one the job fails with {@code ARG}, naming the version.
   *
   * @return {@code true} for virtual-thread ranks
   */
  boolean virtualThreads() default false;
}
