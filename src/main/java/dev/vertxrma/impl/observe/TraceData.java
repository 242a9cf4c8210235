package dev.vertxrma.impl.observe;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * A job's recorded events, some or all of its ranks: what a JVM writes as its part of a trace
 * and what {@link TimelineHtml} renders. Times are wall-clock nanoseconds (the epoch's), so that
 * the parts of JVMs on one host line up.
 */
final class TraceData {

  private static final int MAGIC = 0x524d4154; // "RMAT"
  private static final int VERSION = 1;

  /** One rank's events, oldest first (columns as in {@link TraceRecorder}). */
  static final class RankEvents {
    final int rank;
    /** Where the rank ran, e.g. {@code jvm 4711}. */
    final String label;
    /** Events overwritten in the ring before the end. */
    final long dropped;
    final long[] t;
    final long[] a;
    final long[] b;
    final int[] meta;
    final int[] win;
    final int[] peer;

    RankEvents(int rank, String label, long dropped, int n) {
      this.rank = rank;
      this.label = label;
      this.dropped = dropped;
      this.t = new long[n];
      this.a = new long[n];
      this.b = new long[n];
      this.meta = new int[n];
      this.win = new int[n];
      this.peer = new int[n];
    }

    int size() {
      return t.length;
    }

    int type(int k) {
      return meta[k] >>> 24;
    }

    int kind(int k) {
      return (meta[k] >>> 8) & 0xffff;
    }

    boolean failed(int k) {
      return (meta[k] & TraceRecorder.FAILED) != 0;
    }
  }

  final String job;
  final int np;
  final List<RankEvents> ranks = new ArrayList<>();

  TraceData(String job, int np) {
    this.job = job;
    this.np = np;
  }

  /** Adds the ranks of {@code part} (a part of the same job). */
  void addAll(TraceData part) {
    ranks.addAll(part.ranks);
    ranks.sort(Comparator.comparingInt(r -> r.rank));
  }

  void write(OutputStream os) throws IOException {
    DataOutputStream out = new DataOutputStream(os);
    out.writeInt(MAGIC);
    out.writeInt(VERSION);
    out.writeUTF(job);
    out.writeInt(np);
    out.writeInt(ranks.size());
    for (RankEvents r : ranks) {
      out.writeInt(r.rank);
      out.writeUTF(r.label);
      out.writeLong(r.dropped);
      out.writeInt(r.size());
      for (int k = 0; k < r.size(); k++) {
        out.writeLong(r.t[k]);
        out.writeLong(r.a[k]);
        out.writeLong(r.b[k]);
        out.writeInt(r.meta[k]);
        out.writeInt(r.win[k]);
        out.writeInt(r.peer[k]);
      }
    }
    out.flush();
  }

  static TraceData read(InputStream is) throws IOException {
    DataInputStream in = new DataInputStream(is);
    if (in.readInt() != MAGIC || in.readInt() != VERSION) {
      throw new IOException("not a vertx-rma trace part");
    }
    TraceData d = new TraceData(in.readUTF(), in.readInt());
    int ranks = in.readInt();
    for (int i = 0; i < ranks; i++) {
      int rank = in.readInt();
      String label = in.readUTF();
      long dropped = in.readLong();
      int n = in.readInt();
      if (n < 0 || n > 1 << 26) {
        throw new IOException("trace part has " + n + " events for rank " + rank);
      }
      RankEvents r = new RankEvents(rank, label, dropped, n);
      for (int k = 0; k < n; k++) {
        r.t[k] = in.readLong();
        r.a[k] = in.readLong();
        r.b[k] = in.readLong();
        r.meta[k] = in.readInt();
        r.win[k] = in.readInt();
        r.peer[k] = in.readInt();
      }
      d.ranks.add(r);
    }
    return d;
  }
}
