package dev.vertxrma.impl.ops;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.RmaException;
import java.util.Arrays;

/**
 * Flattens one derived type as {@link DerivedTypes} lays it out: accumulates its segments (merging
 * runs of one basic kind that touch) and its bounds (explicit, natural and data bounds, as
 * {@link TypeMap} describes them), then {@link #build builds} the uncommitted {@link TypeMap}. Byte
 * arithmetic is checked: an overflow throws {@link ErrorClass#ARG}; more than
 * {@link TypeMap#MAX_SEGMENTS} segments or {@link #MAX_FLATTEN_STEPS} steps throws
 * {@link ErrorClass#INTERN}. One instance per constructor call, on one thread.
 */
final class TypeFlattener {

  /** Upper bound on segment appends while flattening one type, so construction stays fast. */
  static final long MAX_FLATTEN_STEPS = 1L << 26;

  private final String name;
  private long[] segs = new long[8];
  private int n;
  private long steps;
  private long size;
  private long elements;
  private BasicType homogeneous;
  private boolean mixed;
  private boolean anyExplicit;
  private long explicitLb = Long.MAX_VALUE;
  private long explicitUb = Long.MIN_VALUE;
  private boolean anyNatural;
  private long naturalLb = Long.MAX_VALUE;
  private long naturalUb = Long.MIN_VALUE;
  private boolean anyData;
  private long dataLb = Long.MAX_VALUE;
  private long dataUb = Long.MIN_VALUE;
  private boolean forced;
  private long forcedLb;
  private long forcedUb;

  TypeFlattener(String name) {
    this.name = name.length() <= 200 ? name : name.substring(0, 197) + "...";
  }

  /** {@code a * b}; {@code what} is a constant naming the product for the error message. */
  long mul(long a, long b, String what) {
    long r = a * b;
    long hi = Math.multiplyHigh(a, b);
    if ((hi == 0 && r >= 0) || (hi == -1 && r < 0)) {
      return r;
    }
    throw RmaException.of(ErrorClass.ARG, "%s: %s (%d * %d) overflows a 64-bit byte count", name, what, a, b);
  }

  /** {@code a + b}; {@code what} is a constant naming the sum for the error message. */
  long add(long a, long b, String what) {
    long r = a + b;
    if (((a ^ r) & (b ^ r)) < 0) {
      throw RmaException.of(ErrorClass.ARG, "%s: %s (%d + %d) overflows a 64-bit byte displacement", name, what, a, b);
    }
    return r;
  }

  /** {@code a - b}, checked like {@link #add}. */
  long sub(long a, long b, String what) {
    long r = a - b;
    if (((a ^ b) & (a ^ r)) < 0) {
      throw RmaException.of(ErrorClass.ARG, "%s: %s (%d - %d) overflows a 64-bit byte displacement", name, what, a, b);
    }
    return r;
  }

  /** {@code count} blocks of {@code blocklength} copies of {@code old}, block i at {@code i * strideBytes}. */
  void addStrided(TypeMap old, int count, int blocklength, long strideBytes) {
    long blockBytes = mul(blocklength, old.extent(), "blocklength times extent");
    if (old.isContiguous() && strideBytes == blockBytes) {
      addCopies(old, 0, mul(count, blocklength, "count times blocklength"));
      return;
    }
    for (int i = 0; i < count; i++) {
      addCopies(old, mul(i, strideBytes, "block index times stride"), blocklength);
    }
  }

  /** {@code copies} instances of {@code old}, one extent apart, the first at byte {@code disp}. */
  void addCopies(TypeMap old, long disp, long copies) {
    if (copies == 0 || (old.segmentCount() == 0 && !old.hasExplicitBounds())) {
      return;
    }
    long ext = old.extent();
    long last = mul(copies - 1, ext, "copies times extent");
    long lo = Math.min(0, last);
    long hi = Math.max(0, last);
    String where = "block displacement";
    if (old.hasExplicitBounds()) {
      anyExplicit = true;
      explicitLb = Math.min(explicitLb, add(add(disp, old.lb(), where), lo, where));
      explicitUb = Math.max(explicitUb, add(add(disp, old.ub(), where), hi, where));
    } else {
      anyNatural = true;
      naturalLb = Math.min(naturalLb, add(add(disp, old.lb(), where), lo, where));
      naturalUb = Math.max(naturalUb, add(add(disp, old.ub(), where), hi, where));
    }
    if (old.segmentCount() == 0) {
      return;
    }
    anyData = true;
    dataLb = Math.min(dataLb, add(add(disp, old.trueLb(), where), lo, where));
    dataUb = Math.max(dataUb, add(add(disp, old.trueUb(), where), hi, where));
    if (old.isContiguous()) {
      addRun(add(disp, old.segmentDisp(0), where), old.segmentType(0),
          mul(copies, old.segmentLength(0), "copies times elements"));
      return;
    }
    if (copies > (MAX_FLATTEN_STEPS - steps) / old.segmentCount()) {
      throw tooLarge();
    }
    for (long k = 0; k < copies; k++) {
      long base = disp + k * ext; // within [disp + lo, disp + hi], checked above
      for (int i = 0; i < old.segmentCount(); i++) {
        addRun(base + old.segmentDisp(i), old.segmentType(i), old.segmentLength(i));
      }
    }
  }

  /** {@code count} packed elements of {@code t} at byte {@code disp}, merged with the previous segment if they touch. */
  private void addRun(long disp, BasicType t, long count) {
    long bytes = mul(count, t.size(), "elements times element size");
    add(disp, bytes, "segment end");
    size = add(size, bytes, "total size");
    elements += count;
    if (homogeneous == null && !mixed) {
      homogeneous = t;
    } else if (homogeneous != t) {
      homogeneous = null;
      mixed = true;
    }
    while (count > 0) {
      if (++steps > MAX_FLATTEN_STEPS) {
        throw tooLarge();
      }
      int chunk = (int) Math.min(count, Integer.MAX_VALUE);
      int last = n - 1;
      if (last >= 0) {
        long lastMeta = segs[(last << 1) + 1];
        int lastLen = (int) lastMeta;
        if ((int) (lastMeta >>> 32) == t.ordinal()
            && segs[last << 1] + (long) lastLen * t.size() == disp
            && lastLen <= Integer.MAX_VALUE - chunk) {
          segs[(last << 1) + 1] = lastMeta + chunk;
          disp += (long) chunk * t.size();
          count -= chunk;
          continue;
        }
      }
      if (n == TypeMap.MAX_SEGMENTS) {
        throw tooLarge();
      }
      if ((n << 1) == segs.length) {
        segs = Arrays.copyOf(segs, segs.length << 1);
      }
      segs[n << 1] = disp;
      segs[(n << 1) + 1] = ((long) t.ordinal() << 32) | chunk;
      n++;
      disp += (long) chunk * t.size();
      count -= chunk;
    }
  }

  private RmaException tooLarge() {
    return RmaException.of(ErrorClass.INTERN, "%s flattens to more than %d segments (or %d steps); not supported",
        name, TypeMap.MAX_SEGMENTS, MAX_FLATTEN_STEPS);
  }

  /** Sets explicit lb/ub markers that replace all others (resized, subarray). */
  void forceBounds(long lb, long ub) {
    forced = true;
    forcedLb = lb;
    forcedUb = ub;
  }

  /** The type map flattened so far: new, uncommitted; checks that its extent fits a long. */
  TypeMap build() {
    long lb;
    long ub;
    boolean explicit;
    if (forced) {
      lb = forcedLb;
      ub = forcedUb;
      explicit = true;
    } else if (anyExplicit) {
      lb = explicitLb;
      ub = explicitUb;
      explicit = true;
    } else if (anyNatural) {
      lb = naturalLb;
      ub = naturalUb;
      explicit = false;
    } else {
      lb = 0;
      ub = 0;
      explicit = false;
    }
    sub(ub, lb, "extent ub - lb");
    long[] exact = n == segs.length >> 1 ? segs : Arrays.copyOf(segs, n << 1);
    return new TypeMap(name, exact, n, size, elements, lb, ub,
        anyData ? dataLb : 0, anyData ? dataUb : 0, explicit, homogeneous, false);
  }
}
