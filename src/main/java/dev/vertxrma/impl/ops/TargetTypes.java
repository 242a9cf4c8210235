package dev.vertxrma.impl.ops;

import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The derived target datatypes a target window has decoded, by origin and wire form: an
 * operation from another JVM carries its target type's wire form ({@link RmaOperation#targetTypeWire}),
 * and a program that issues many operations with one derived type has it decoded once per origin,
 * not once per operation. The first time a wire form arrives it is decoded and validated as
 * untrusted input ({@link TypeMapWire#decodeWhole}); only a wire form that passed is kept, and an
 * entry is reused only for an operation from the same origin carrying exactly the same bytes, so
 * nothing a peer sends can reach the engine unvalidated and nothing kept can go stale (a new type
 * is new bytes, a new entry; type maps do not change once built).
 *
 * <p>Bounded: at most {@link #MAX_ENTRIES} entries and {@link #MAX_WIRE_BYTES} bytes of wire forms
 * (the decoded maps take about as much again), the least recently used going first; a wire form
 * longer than {@link #MAX_ENTRY_BYTES} is decoded every time and never kept. Predefined types (one
 * byte) are not kept: they decode to their shared instance. One per target window, dropped with
 * it; used only by the window's owner (ARCHITECTURE decision 3), so it takes no lock.
 */
public final class TargetTypes {

  /** Most entries kept per target window. */
  public static final int MAX_ENTRIES = 64;
  /** Most bytes of wire forms kept per target window. */
  public static final long MAX_WIRE_BYTES = 256 * 1024;
  /** Longest wire form kept (about 5,000 segments). */
  public static final int MAX_ENTRY_BYTES = 64 * 1024;

  /** An origin and a wire form; a reusable probe is one too. */
  private static final class Key {
    int origin;
    byte[] wire;
    int hash;

    Key set(int origin, byte[] wire) {
      this.origin = origin;
      this.wire = wire;
      this.hash = 31 * origin + Arrays.hashCode(wire);
      return this;
    }

    @Override
    public int hashCode() {
      return hash;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Key k && k.origin == origin && k.hash == hash && Arrays.equals(k.wire, wire);
    }
  }

  private final Map<Key, TypeMap> entries = new LinkedHashMap<>(16, 0.75f, true);
  private final Key probe = new Key();
  private long wireBytes;
  /** Written by the owner, read by tests on any thread. */
  private volatile long decodes;

  /**
   * Gives a packed operation its decoded target datatype ({@link RmaOperation#targetType}) if it
   * has none: the kept one for its origin and wire form, or one decoded and validated now (and
   * kept, within the bounds). An operation with no wire form is left as it is (the engine refuses it).
   *
   * @throws dev.vertxrma.RmaException TYPE for a wire form that is not a valid datatype (not kept)
   */
  public void resolve(RmaOperation op) {
    byte[] wire = op.targetTypeWire;
    if (op.targetType != null || wire == null) {
      return;
    }
    if (wire.length <= 1 || wire.length > MAX_ENTRY_BYTES) {
      op.targetType = decode(wire);
      return;
    }
    TypeMap known = entries.get(probe.set(op.origin, wire));
    probe.wire = null;
    if (known == null) {
      known = decode(wire);
      entries.put(new Key().set(op.origin, wire.clone()), known); // the bytes validated, kept as they were
      wireBytes += wire.length;
      evict();
    }
    op.targetType = known;
  }

  private TypeMap decode(byte[] wire) {
    TypeMap t = TypeMapWire.decodeWhole(wire);
    if (wire.length > 1) {
      decodes++;
    }
    return t;
  }

  private void evict() {
    Iterator<Map.Entry<Key, TypeMap>> eldest = entries.entrySet().iterator();
    while (entries.size() > MAX_ENTRIES || wireBytes > MAX_WIRE_BYTES) {
      Key k = eldest.next().getKey();
      eldest.remove();
      wireBytes -= k.wire.length;
    }
  }

  /** Derived target datatypes decoded so far (tests, metrics). */
  public long decodes() {
    return decodes;
  }

  /** Entries kept now. */
  public int size() {
    return entries.size();
  }

  /** Bytes of wire forms kept now. */
  public long wireBytes() {
    return wireBytes;
  }
}
