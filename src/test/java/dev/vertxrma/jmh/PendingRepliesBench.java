package dev.vertxrma.jmh;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.agrona.collections.Long2ObjectHashMap;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The correlation-id map of {@code PendingReplies} on its own, boxed ({@code HashMap<Long, V>}, the
 * old one) against primitive-keyed ({@code Long2ObjectHashMap}, the one it uses): one invocation
 * registers {@code outstanding} requests under fresh, increasing ids and then completes each (get
 * and remove), as a rank with that many cross-JVM requests in flight does. The value is one shared
 * object, so B/op is what the map itself allocates.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class PendingRepliesBench {

  @Param({"1", "8", "64"})
  public int outstanding;

  private final Object value = new Object();
  private final Map<Long, Object> boxed = new HashMap<>();
  private final Long2ObjectHashMap<Object> primitive = new Long2ObjectHashMap<>();
  private long nextBoxed = 1;
  private long nextPrimitive = 1;

  /** Register then complete {@code outstanding} requests in a {@code HashMap<Long, V>}. */
  @Benchmark
  public int hashMap() {
    long first = nextBoxed;
    for (int i = 0; i < outstanding; i++) {
      boxed.put(nextBoxed++, value);
    }
    int found = 0;
    for (long corr = first; corr < nextBoxed; corr++) {
      if (boxed.get(corr) != null) {
        boxed.remove(corr);
        found++;
      }
    }
    return found;
  }

  /** Register then complete {@code outstanding} requests in a {@code Long2ObjectHashMap}. */
  @Benchmark
  public int long2ObjectHashMap() {
    long first = nextPrimitive;
    for (int i = 0; i < outstanding; i++) {
      primitive.put(nextPrimitive++, value);
    }
    int found = 0;
    for (long corr = first; corr < nextPrimitive; corr++) {
      if (primitive.get(corr) != null) {
        primitive.remove(corr);
        found++;
      }
    }
    return found;
  }
}
