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
  /**
   * MPI 4.1's {@code mpi_accumulate_granularity}: the size in bytes of the memory ranges an
   * implementation should synchronize accumulates over (a non-negative integer, default "0": no
   * preference). A hint that vertx-rma records and reports: every accumulate is atomic per
   * element as MPI requires, and in fact applied whole while the target window's owner word is
   * held (ARCHITECTURE decision 3), which meets any granularity asked for. Another value than a
   * non-negative integer fails the creation (or {@link Win#setInfo}) with {@link ErrorClass#INFO}.
   */
  public static final String ACCUMULATE_GRANULARITY = "mpi_accumulate_granularity";
  /**
   * MPI 4.1's {@code mpi_minimum_memory_alignment}: the alignment in bytes (a power of two, at
   * most 4096, a page) of the memory {@link Win#allocate} and {@link Win#allocateShared} allocate.
   * Honoured: an {@code allocate} window's memory at each rank starts on such a boundary (default
   * 16, the native allocator's); an {@code allocateShared} window's whole memory does (default
   * 16; it starts on a page), and so does every rank's segment when
   * {@link #ALLOC_SHARED_NONCONTIG} is "true" (default then 64, a cache line). Fixed at creation;
   * {@link Win#info()} reports the value in use. Another value fails the creation with
   * {@link ErrorClass#INFO} at every rank.
   */
  public static final String MINIMUM_MEMORY_ALIGNMENT = "mpi_minimum_memory_alignment";
  /**
   * MPI's {@code alloc_shared_noncontig} ("true" or "false", default "false"), for
   * {@link Win#allocateShared}: "false" lays the ranks' segments out contiguously (rank r's
   * starts right after rank r-1's last byte); "true" lets each start on an aligned boundary
   * ({@link #MINIMUM_MEMORY_ALIGNMENT}). Fixed at creation ("true" if any rank gives "true");
   * {@link Win#info()} of a shared window reports the value in use.
   */
  public static final String ALLOC_SHARED_NONCONTIG = "alloc_shared_noncontig";
  /** "true" if every rank gives the same size; a hint. */
  public static final String SAME_SIZE = "same_size";
  /** "true" if every rank gives the same displacement unit; a hint. */
  public static final String SAME_DISP_UNIT = "same_disp_unit";

  private final Map<String, String> entries;

  private Info(Map<String, String> entries) {
    this.entries = Collections.unmodifiableMap(new LinkedHashMap<>(entries));
  }

  /**
   * MPI_Info_create and MPI_Info_set: an info with the given key/value pairs, e.g.
   * {@code Info.of("no_locks", "true")}.
   *
   * @param keyValues keys and values, alternating
   * @return the info
   * @throws RmaException {@link ErrorClass#INFO} for an odd number of strings or a {@code null}
   *     key or value
   */
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

  /**
   * An info with the given entries.
   *
   * @param entries the keys and values (copied, order kept)
   * @return the info
   */
  public static Info of(Map<String, String> entries) {
    return new Info(entries);
  }

  /**
   * MPI_Info_get: the value of a key.
   *
   * @param key the key
   * @return its value, or {@code null} if it is not set
   */
  public String get(String key) {
    return entries.get(key);
  }

  /**
   * The value of a key, with a default.
   *
   * @param key the key
   * @param def the value to return when {@code key} is not set
   * @return its value, or {@code def}
   */
  public String get(String key, String def) {
    return entries.getOrDefault(key, def);
  }

  /**
   * MPI_Info_get_nkeys and MPI_Info_get_nthkey: the keys.
   *
   * @return the keys in insertion order (read-only)
   */
  public Set<String> keys() {
    return entries.keySet();
  }

  /**
   * MPI_Info_set on a copy: infos are immutable.
   *
   * @param key the key
   * @param value its new value
   * @return a new info with {@code key} set to {@code value}
   */
  public Info with(String key, String value) {
    Map<String, String> m = new LinkedHashMap<>(entries);
    m.put(key, value);
    return new Info(m);
  }

  /**
   * The entries.
   *
   * @return the keys and values in insertion order (read-only)
   */
  public Map<String, String> asMap() {
    return entries;
  }

  @Override
  public String toString() {
    return "Info" + entries;
  }
}
