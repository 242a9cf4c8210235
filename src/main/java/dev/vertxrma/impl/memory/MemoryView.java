package dev.vertxrma.impl.memory;

/**
 * A reusable, mutable {@link MemoryRef}: the same view of a user buffer at an offset, filled in
 * place by {@link MemoryRef#resolve} so that a call that uses its buffer at once allocates
 * nothing. Confined to one thread; {@link #toRef()} makes the immutable view a call keeps.
 */
public final class MemoryView implements MemoryRef.Sink<MemoryView> {

  private Object buffer;
  private Object base;
  private long address;
  private long bytesBefore;
  private long bytesAvailable;

  @Override
  public MemoryView take(Object buffer, Object base, long address, long bytesBefore, long bytesAvailable) {
    this.buffer = buffer;
    this.base = base;
    this.address = address;
    this.bytesBefore = bytesBefore;
    this.bytesAvailable = bytesAvailable;
    return this;
  }

  /** Takes in {@code ref}'s view. */
  public MemoryView take(MemoryRef ref) {
    return take(ref.buffer(), ref.base(), ref.address(), ref.bytesBefore(), ref.bytesAvailable());
  }

  /** The immutable view of the same memory (it keeps the buffer reachable). */
  public MemoryRef toRef() {
    return MemoryRef.ofView(buffer, base, address, bytesBefore, bytesAvailable);
  }

  /** Forgets the buffer (a reused view must not keep the caller's memory reachable). */
  public void clear() {
    buffer = null;
    base = null;
  }

  /** As {@link MemoryRef#buffer()}. */
  public Object buffer() {
    return buffer;
  }

  /** As {@link MemoryRef#base()}. */
  public Object base() {
    return base;
  }

  /** As {@link MemoryRef#address()}. */
  public long address() {
    return address;
  }

  /** As {@link MemoryRef#bytesBefore()}. */
  public long bytesBefore() {
    return bytesBefore;
  }

  /** As {@link MemoryRef#bytesAvailable()}. */
  public long bytesAvailable() {
    return bytesAvailable;
  }
}
