/**
 * Testing rank programs with JUnit 5: {@link dev.vertxrma.junit.RmaTest} runs a job embedded in
 * the test's JVM or across JVMs, fails the test with the failing rank's error and checks that
 * every window was freed.
 *
 * <pre>{@code
 * class RingTest {
 *
 *   @RmaTest(ranks = 4)
 *   void putToRightNeighbour(RmaJob job) {
 *     job.run((world, args) -> Win.allocate(world, 8, 8, Info.NULL).compose(win -> {
 *       int next = (world.rank() + 1) % world.size();
 *       return win.fence()
 *           .compose(v -> win.put(Buf.of(new long[] {world.rank()}), 0, 1, Datatype.LONG, next, 0))
 *           .compose(v -> win.fence())
 *           .map(v -> {
 *             assertEquals((world.rank() + 3) % 4, win.memory().readLong(0));
 *             return null;
 *           })
 *           .compose(v -> win.free());     // a window not freed fails the test
 *     }));
 *   }
 *
 *   @RmaTest(ranks = 4, jvms = 2)
 *   void acrossTwoJvms(RmaJob job) {
 *     job.run(RingProgram.class);         // a RankProgram class with a public no-argument constructor
 *   }
 * }
 * }</pre>
 *
 * <p>JUnit Jupiter is an optional dependency of vertx-rma: a project that uses this package has
 * {@code junit-jupiter} among its test dependencies already.
 */
package dev.vertxrma.junit;
