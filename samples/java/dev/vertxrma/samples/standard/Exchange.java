// Follows the MPI standard, Example 3.10 "An exchange that relies on buffering" (section 3.5),
// and section 3.6 "Buffer Allocation and Usage" (MPI_BUFFER_ATTACH / MPI_BUFFER_DETACH and the
// circular allocation of the model implementation of buffered mode):
//
//     IF (rank.EQ.0) THEN
//       CALL MPI_SEND(sendbuf, count, MPI_REAL, 1, tag, comm, ierr)
//       CALL MPI_RECV(recvbuf, count, MPI_REAL, 1, tag, comm, status, ierr)
//     ELSE IF (rank.EQ.1) THEN
//       CALL MPI_SEND(sendbuf, count, MPI_REAL, 0, tag, comm, ierr)
//       CALL MPI_RECV(recvbuf, count, MPI_REAL, 0, tag, comm, status, ierr)
//     END IF
//
// The program completes only if at least one of the two messages is buffered. Three phases:
//   (a) standard mode, exactly as above: completes because vertx-rma's standard sends are eager;
//   (b) buffered mode: an attached buffer of count*4 + BSEND_OVERHEAD bytes, bsend then recv,
//       then bufferDetach, which must hand back the very array that was attached;
//   (c) the standard's "buffer overflow error" (advice to users after Example 3.10): with an
//       attached buffer one byte too small, bsend must fail with ErrorClass.BUFFER.
//
// Usage: rmarun -np 2 exchange [count]     (count floats per message, default 1000)
package dev.vertxrma.samples.standard;

import dev.vertxrma.Buf;
import dev.vertxrma.Comm;
import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.Op;
import dev.vertxrma.RankVerticle;
import dev.vertxrma.RmaException;
import dev.vertxrma.Status;
import io.vertx.core.Future;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** MPI Example 3.10, an exchange that relies on buffering, in standard and buffered mode. */
public final class Exchange extends RankVerticle {

  private static final int DEFAULT_COUNT = 1000;
  private static final int TAG_STANDARD = 1;
  private static final int TAG_BUFFERED = 2;
  private static final int TAG_OVERFLOW = 3;
  /** Bytes per rank for the failure report exchanged when a check failed. */
  private static final int REPORT_BYTES = 1024;

  /** Checks that failed on this rank, in the order they were made. */
  private final List<String> failures = new ArrayList<>();

  @Override
  public Future<?> run(Comm world, List<String> args) {
    if (world.size() != 2) {
      return Future.failedFuture(RmaException.of(ErrorClass.ARG,
          "exchange (MPI Example 3.10) is a two-process exchange and needs exactly 2 ranks, got -np %d",
          world.size()));
    }
    int count;
    try {
      count = args.isEmpty() ? DEFAULT_COUNT : Integer.parseInt(args.get(0));
    } catch (NumberFormatException e) {
      return Future.failedFuture(RmaException.of(ErrorClass.ARG, "exchange: count must be an integer, got '%s'",
          args.get(0)));
    }
    if (count < 1 || count > (Integer.MAX_VALUE - Comm.BSEND_OVERHEAD) / 4) {
      return Future.failedFuture(RmaException.of(ErrorClass.ARG, "exchange: count %d is out of range [1, %d]",
          count, (Integer.MAX_VALUE - Comm.BSEND_OVERHEAD) / 4));
    }
    int rank = world.rank();
    return standard(world, count)
        .compose(v -> buffered(world, count))
        .compose(v -> overflow(world, count))
        .compose(v -> world.allreduce((long) failures.size(), Op.SUM))
        .compose(total -> {
          if (total == 0) {
            if (rank == 0) {
              System.out.println("exchange: verified standard, buffered and overflow cases (count=" + count + ")");
            }
            return Future.succeededFuture();
          }
          // some check failed somewhere: every rank learns every rank's first failure, so whichever
          // rank's error the launcher reports names the wrong value
          byte[] mine = firstFailure();
          byte[] all = new byte[2 * REPORT_BYTES];
          return world.allgather(Buf.of(mine), 0, REPORT_BYTES, Datatype.BYTE, Buf.of(all), 0, REPORT_BYTES, Datatype.BYTE)
              .compose(x -> Future.failedFuture(new IllegalStateException("exchange: " + total
                  + " check(s) failed; rank 0: " + report(all, 0) + "; rank 1: " + report(all, 1))));
        });
  }

  /** This rank's first failure (or "all checks passed"), failure count included, zero padded. */
  private byte[] firstFailure() {
    String s = failures.isEmpty() ? "all checks passed"
        : failures.size() + " check(s) failed, first: " + failures.get(0);
    byte[] text = s.getBytes(StandardCharsets.UTF_8);
    return Arrays.copyOf(text, REPORT_BYTES); // truncated or zero padded
  }

  private static String report(byte[] all, int rank) {
    int from = rank * REPORT_BYTES;
    int end = from;
    while (end < from + REPORT_BYTES && all[end] != 0) {
      end++;
    }
    return new String(all, from, end - from, StandardCharsets.UTF_8);
  }

  /** The value rank {@code rank} sends at index {@code i} in phase {@code phase}: a small, exact float. */
  private static float value(int rank, int phase, int i) {
    return (i * 31 + phase * 7) % 1000 + rank * 0.5f + phase * 0.125f;
  }

  private static float[] sendData(int rank, int phase, int count) {
    float[] a = new float[count];
    for (int i = 0; i < count; i++) {
      a[i] = value(rank, phase, i);
    }
    return a;
  }

  /** Records a failure for every wrong status field or received value (the first wrong value only). */
  private void check(String phase, Status st, float[] recvbuf, int other, int tag, int count) {
    if (st.source() != other || st.tag() != tag || st.count() != count) {
      failures.add(String.format("%s: status is %s, expected source=%d tag=%d count=%d", phase, st, other, tag,
          count));
    }
    int phaseNo = tag; // the phase number doubles as the tag
    for (int i = 0; i < count; i++) {
      float expected = value(other, phaseNo, i);
      if (Float.floatToIntBits(recvbuf[i]) != Float.floatToIntBits(expected)) {
        failures.add(String.format("%s: recvbuf[%d] = %s, but rank %d sent %s", phase, i, recvbuf[i], other,
            expected));
        return;
      }
    }
  }

  /** (a) Example 3.10 as written: standard send, then receive, on both ranks. */
  private Future<Void> standard(Comm world, int count) {
    int rank = world.rank();
    int other = 1 - rank;
    float[] sendbuf = sendData(rank, TAG_STANDARD, count);
    float[] recvbuf = new float[count];
    return world.send(Buf.of(sendbuf), 0, count, Datatype.FLOAT, other, TAG_STANDARD)
        .compose(v -> world.recv(Buf.of(recvbuf), 0, count, Datatype.FLOAT, other, TAG_STANDARD))
        .map(st -> {
          check("standard send/recv", st, recvbuf, other, TAG_STANDARD, count);
          return null;
        });
  }

  /** (b) The same exchange in buffered mode, through an attached buffer of exactly the needed size. */
  private Future<Void> buffered(Comm world, int count) {
    int rank = world.rank();
    int other = 1 - rank;
    float[] sendbuf = sendData(rank, TAG_BUFFERED, count);
    float[] recvbuf = new float[count];
    byte[] attached = new byte[count * 4 + Comm.BSEND_OVERHEAD];
    return world.bufferAttach(Buf.of(attached), attached.length)
        .compose(v -> world.bsend(Buf.of(sendbuf), 0, count, Datatype.FLOAT, other, TAG_BUFFERED))
        .compose(v -> {
          // the message was copied into the attached buffer: the send buffer may be reused at once
          Arrays.fill(sendbuf, -1f);
          return world.recv(Buf.of(recvbuf), 0, count, Datatype.FLOAT, other, TAG_BUFFERED);
        })
        .compose(st -> {
          check("buffered bsend/recv", st, recvbuf, other, TAG_BUFFERED, count);
          return world.bufferDetach();
        })
        .map(detached -> {
          if (detached.memory() != attached) {
            failures.add("buffered: bufferDetach returned " + describe(detached.memory()) + ", not the byte[" + attached.length
                + "] that was attached");
          }
          return null;
        });
  }

  /** (c) The buffer overflow error: the attached buffer is one byte short of message + overhead. */
  private Future<Void> overflow(Comm world, int count) {
    int rank = world.rank();
    int other = 1 - rank;
    float[] sendbuf = sendData(rank, TAG_OVERFLOW, count);
    byte[] small = new byte[count * 4 + Comm.BSEND_OVERHEAD - 1];
    return world.bufferAttach(Buf.of(small), small.length)
        .compose(v -> world.bsend(Buf.of(sendbuf), 0, count, Datatype.FLOAT, other, TAG_OVERFLOW)
            .transform(ar -> {
              if (ar.succeeded()) {
                failures.add(String.format("overflow: bsend of %d bytes + %d overhead succeeded with an attached "
                    + "buffer of only %d bytes; expected a BUFFER error", count * 4, Comm.BSEND_OVERHEAD,
                    small.length));
              } else if (!(ar.cause() instanceof RmaException)) {
                failures.add("overflow: bsend failed with " + ar.cause() + ", expected an RmaException of class BUFFER");
              } else if (((RmaException) ar.cause()).errorClass() != ErrorClass.BUFFER) {
                failures.add("overflow: bsend failed with error class " + ((RmaException) ar.cause()).errorClass()
                    + " (" + ar.cause().getMessage() + "), expected BUFFER");
              } else if (rank == 0) {
                System.out.println("exchange: bsend with a " + small.length + "-byte buffer failed as the standard "
                    + "allows: " + ar.cause().getMessage());
              }
              return world.bufferDetach();
            }))
        .map(detached -> {
          if (detached.memory() != small) {
            failures.add("overflow: bufferDetach returned " + describe(detached.memory()) + ", not the byte[" + small.length
                + "] that was attached");
          }
          return null;
        });
  }

  private static String describe(Object o) {
    if (o == null) {
      return "null";
    }
    if (o instanceof byte[]) {
      return "another byte[" + ((byte[]) o).length + "]";
    }
    return o.getClass().getName();
  }
}
