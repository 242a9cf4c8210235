package dev.vertxrma;

/**
 * What {@link Comm#bufferDetach} hands back: the buffer that was attached for buffered sends and
 * its size, the two results of MPI_Buffer_detach ({@code buffer_addr} and {@code size}).
 *
 * @param buffer the {@link Buf} given to {@link Comm#bufferAttach}, the same instance
 * @param size the {@code sizeBytes} given to {@link Comm#bufferAttach}: how many bytes of it the
 *     library could use
 */
public record DetachedBuffer(Buf buffer, int size) {

  /**
   * The attached memory itself, {@code buffer().memory()}.
   *
   * @return the {@code byte[]} or {@code BytesStore} that was attached
   */
  public Object memory() {
    return buffer.memory();
  }
}
