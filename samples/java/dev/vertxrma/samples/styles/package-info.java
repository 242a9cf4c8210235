/**
 * Samples of {@link dev.vertxrma.samples.standard} written again in the other two styles of the
 * API: with RxJava 3 ({@link DoubleBufferRx}, {@link LinkedListRx}) and in MPI's blocking style,
 * {@code await()} after each call on a virtual-thread rank ({@link DoubleBufferVt},
 * {@link LinkedListVt}; Java 21+, {@code bin/rmarun --virtual-threads}; {@link BlockingStyle}
 * refuses to run them elsewhere). Each computes and checks what its original does.
 */
package dev.vertxrma.samples.styles;
