package dev.vertxrma;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * Window hints (MPI_Info): string keys and values. The keys vertx-rma honours are listed as
 * constants; {@link Win#info()} returns the values in effect. Unknown keys are kept and ignored,
 * as MPI allows.
 */
public final class Info {

  /** An empty info (MPI_INFO_NULL). */
  public static final Info NULL = new Info(Map.of());

  /** "true": the window is never locked; lock calls on it fail with RMA_SYNC. */
  public static final String NO_LOCKS = "no_locks";
  /**
   * Accumulate ordering: "rar,raw,war,waw" (default) or "none". vertx-rma applies accumulates of
   * one origin to one target in issue order under either value.
   */
  public static final String ACCUMULATE_ORDERING = "accumulate_ordering";
  /** "same_op_no_op" or "same_op" (default: "same_op_no_op"); a hint. */
  public static final String ACCUMULATE_OPS = "accumulate_ops";
  /** "true" if every rank gives the same size; a hint. */
  public static final String SAME_SIZE = "same_size";
  /** "true" if every rank gives the same displacement unit; a hint. */
  public static final String SAME_DISP_UNIT = "same_disp_unit";

  private final Map<String, String> entries;

  private Info(Map<String, String> entries) {
    this.entries = Collections.unmodifiableMap(new LinkedHashMap<>(entries));
  }

  /** An info with the given key/value pairs: {@code Info.of("no_locks", "true")}. */
  public static Info of(String... keyValues) {
    if (keyValues.length % 2 != 0) {
      throw RmaException.of(ErrorClass.INFO, "Info.of takes key/value pairs, got %d strings", keyValues.length);
    }
    Map<String, String> m = new LinkedHashMap<>();
    for (int i = 0; i < keyValues.length; i += 2) {
      if (keyValues[i] == null || keyValues[i + 1] == null) {
        throw new RmaException(ErrorClass.INFO, "info keys and values must not be null");
      }
      m.put(keyValues[i], keyValues[i + 1]);
    }
    return new Info(m);
  }

  /** An info with the given entries. */
  public static Info of(Map<String, String> entries) {
    return new Info(entries);
  }

  /** The value of {@code key}, or {@code null} (MPI_Info_get). */
  public String get(String key) {
    return entries.get(key);
  }

  /** The value of {@code key}, or {@code def}. */
  public String get(String key, String def) {
    return entries.getOrDefault(key, def);
  }

  /** The keys (MPI_Info_get_nkeys / get_nthkey). */
  public Set<String> keys() {
    return entries.keySet();
  }

  /** A copy with {@code key} set to {@code value} (MPI_Info_set). */
  public Info with(String key, String value) {
    Map<String, String> m = new LinkedHashMap<>(entries);
    m.put(key, value);
    return new Info(m);
  }

  /** The entries, read-only. */
  public Map<String, String> asMap() {
    return entries;
  }

  @Override
  public String toString() {
    return "Info" + entries;
  }
}
