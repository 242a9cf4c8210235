package dev.vertxrma.impl.ops;

import dev.vertxrma.Datatype;
import dev.vertxrma.Datatype.Order;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.RmaException;

/**
 * The MPI_Type_* constructors of derived datatypes, behind {@link Datatype}'s factories: each
 * checks its arguments (failing with an {@link RmaException} of {@link ErrorClass#TYPE} for a null
 * old type, {@link ErrorClass#COUNT} for a negative count or block length, {@link ErrorClass#ARG}
 * for other bad arguments and for byte arithmetic that overflows), lays out its blocks and hands
 * them to a {@link TypeFlattener}, which builds the new, uncommitted {@link TypeMap} (or throws
 * {@link ErrorClass#INTERN} past {@link TypeMap#MAX_SEGMENTS} segments).
 */
public final class DerivedTypes {

  private DerivedTypes() {
  }

  /** MPI_Type_contiguous; see {@link Datatype#contiguous}. */
  public static TypeMap contiguous(int count, TypeMap old) {
    TypeMap o = oldType(old);
    checkCount("contiguous count", -1, count);
    TypeFlattener b = new TypeFlattener("contiguous(" + count + ", " + o.name() + ")");
    b.addCopies(o, 0, count);
    return b.build();
  }

  /** MPI_Type_vector; see {@link Datatype#vector}. */
  public static TypeMap vector(int count, int blocklength, int stride, TypeMap old) {
    TypeMap o = oldType(old);
    checkCount("vector count", -1, count);
    checkCount("vector blocklength", -1, blocklength);
    TypeFlattener b =
        new TypeFlattener("vector(" + count + ", " + blocklength + ", " + stride + ", " + o.name() + ")");
    long strideBytes = b.mul(stride, o.extent(), "vector stride times extent");
    b.addStrided(o, count, blocklength, strideBytes);
    return b.build();
  }

  /** MPI_Type_create_hvector; see {@link Datatype#hvector}. */
  public static TypeMap hvector(int count, int blocklength, long strideBytes, TypeMap old) {
    TypeMap o = oldType(old);
    checkCount("hvector count", -1, count);
    checkCount("hvector blocklength", -1, blocklength);
    TypeFlattener b =
        new TypeFlattener("hvector(" + count + ", " + blocklength + ", " + strideBytes + "B, " + o.name() + ")");
    b.addStrided(o, count, blocklength, strideBytes);
    return b.build();
  }

  /** MPI_Type_indexed; see {@link Datatype#indexed}. */
  public static TypeMap indexed(int[] blocklengths, int[] displacements, TypeMap old) {
    TypeMap o = oldType(old);
    checkArrays("indexed", blocklengths, "blocklengths", displacements == null ? -1 : displacements.length, "displacements");
    TypeFlattener b = new TypeFlattener("indexed(" + blocklengths.length + " blocks, " + o.name() + ")");
    for (int i = 0; i < blocklengths.length; i++) {
      checkCount("indexed blocklengths", i, blocklengths[i]);
      long disp = b.mul(displacements[i], o.extent(), "indexed displacement times extent");
      b.addCopies(o, disp, blocklengths[i]);
    }
    return b.build();
  }

  /** MPI_Type_create_hindexed; see {@link Datatype#hindexed}. */
  public static TypeMap hindexed(int[] blocklengths, long[] byteDisplacements, TypeMap old) {
    TypeMap o = oldType(old);
    checkArrays("hindexed", blocklengths, "blocklengths",
        byteDisplacements == null ? -1 : byteDisplacements.length, "byteDisplacements");
    TypeFlattener b = new TypeFlattener("hindexed(" + blocklengths.length + " blocks, " + o.name() + ")");
    for (int i = 0; i < blocklengths.length; i++) {
      checkCount("hindexed blocklengths", i, blocklengths[i]);
      b.addCopies(o, byteDisplacements[i], blocklengths[i]);
    }
    return b.build();
  }

  /** MPI_Type_create_indexed_block; see {@link Datatype#indexedBlock}. */
  public static TypeMap indexedBlock(int blocklength, int[] displacements, TypeMap old) {
    TypeMap o = oldType(old);
    checkCount("indexedBlock blocklength", -1, blocklength);
    if (displacements == null) {
      throw new RmaException(ErrorClass.ARG, "indexedBlock displacements is null");
    }
    TypeFlattener b = new TypeFlattener(
        "indexedBlock(" + blocklength + ", " + displacements.length + " blocks, " + o.name() + ")");
    for (int i = 0; i < displacements.length; i++) {
      long disp = b.mul(displacements[i], o.extent(), "indexedBlock displacement times extent");
      b.addCopies(o, disp, blocklength);
    }
    return b.build();
  }

  /** MPI_Type_create_struct; see {@link Datatype#struct}. */
  public static TypeMap struct(int[] blocklengths, long[] byteDisplacements, TypeMap[] types) {
    checkArrays("struct", blocklengths, "blocklengths",
        byteDisplacements == null ? -1 : byteDisplacements.length, "byteDisplacements");
    if (types == null || types.length != blocklengths.length) {
      throw RmaException.of(ErrorClass.ARG, "struct types has length %s, blocklengths has length %d",
          types == null ? "null" : String.valueOf(types.length), blocklengths.length);
    }
    StringBuilder name = new StringBuilder("struct(");
    for (int i = 0; i < types.length; i++) {
      if (types[i] == null) {
        throw RmaException.of(ErrorClass.TYPE, "struct types[%d] is null", i);
      }
      checkCount("struct blocklengths", i, blocklengths[i]);
      if (i < 4) {
        name.append(i == 0 ? "" : ", ").append(blocklengths[i]).append('x').append(types[i].name());
      } else if (i == 4) {
        name.append(", ...");
      }
    }
    TypeFlattener b = new TypeFlattener(name.append(')').toString());
    for (int i = 0; i < types.length; i++) {
      b.addCopies(types[i], byteDisplacements[i], blocklengths[i]);
    }
    return b.build();
  }

  /** MPI_Type_create_subarray; see {@link Datatype#subarray}. */
  public static TypeMap subarray(int[] sizes, int[] subsizes, int[] starts, Order order, TypeMap old) {
    TypeMap o = oldType(old);
    if (sizes == null || subsizes == null || starts == null || order == null) {
      throw new RmaException(ErrorClass.ARG, "subarray sizes, subsizes, starts and order must not be null");
    }
    int ndims = sizes.length;
    if (ndims == 0 || subsizes.length != ndims || starts.length != ndims) {
      throw RmaException.of(ErrorClass.ARG, "subarray needs ndims >= 1 and equal lengths: sizes %d, subsizes %d, starts %d",
          ndims, subsizes.length, starts.length);
    }
    for (int i = 0; i < ndims; i++) {
      if (sizes[i] < 1 || subsizes[i] < 1 || subsizes[i] > sizes[i] || starts[i] < 0 || starts[i] > sizes[i] - subsizes[i]) {
        throw RmaException.of(ErrorClass.ARG,
            "subarray dimension %d: size %d, subsize %d, start %d (need size >= 1, 1 <= subsize <= size, 0 <= start <= size - subsize)",
            i, sizes[i], subsizes[i], starts[i]);
      }
    }
    TypeFlattener b = new TypeFlattener("subarray(" + ndims + "d " + order + ", " + o.name() + ")");
    // Dimension order from the fastest-varying to the slowest.
    int[] dims = new int[ndims];
    for (int k = 0; k < ndims; k++) {
      dims[k] = order == Order.C ? ndims - 1 - k : k;
    }
    // Byte stride of each dimension, and the byte size of the whole array.
    long[] strideBytes = new long[ndims];
    long stride = o.extent();
    for (int k = 0; k < ndims; k++) {
      strideBytes[dims[k]] = stride;
      stride = b.mul(stride, sizes[dims[k]], "subarray total size");
    }
    long total = stride;
    int inner = dims[0];
    long innerStart = b.mul(starts[inner], strideBytes[inner], "subarray start");
    int[] idx = new int[ndims];
    while (true) {
      long disp = innerStart;
      for (int k = 1; k < ndims; k++) {
        int d = dims[k];
        disp = b.add(disp, b.mul((long) starts[d] + idx[d], strideBytes[d], "subarray offset"), "subarray offset");
      }
      b.addCopies(o, disp, subsizes[inner]);
      int k = 1;
      while (k < ndims && ++idx[dims[k]] == subsizes[dims[k]]) {
        idx[dims[k]] = 0;
        k++;
      }
      if (k == ndims) {
        break;
      }
    }
    b.forceBounds(0, total);
    return b.build();
  }

  /** MPI_Type_create_resized; see {@link Datatype#resized}. */
  public static TypeMap resized(TypeMap old, long lb, long extent) {
    TypeMap o = oldType(old);
    if (extent < 0) {
      throw RmaException.of(ErrorClass.ARG, "resized extent %d is negative", extent);
    }
    TypeFlattener b = new TypeFlattener("resized(" + o.name() + ", " + lb + ", " + extent + ")");
    b.addCopies(o, 0, 1);
    b.forceBounds(lb, b.add(lb, extent, "resized lb plus extent"));
    return b.build();
  }

  private static TypeMap oldType(TypeMap old) {
    if (old == null) {
      throw new RmaException(ErrorClass.TYPE, "old datatype is null");
    }
    return old;
  }

  private static void checkCount(String what, int index, int value) {
    if (value < 0) {
      throw RmaException.of(ErrorClass.COUNT, "%s%s %d is negative", what, index < 0 ? "" : "[" + index + "]", value);
    }
  }

  private static void checkArrays(String ctor, int[] a, String aName, int bLength, String bName) {
    if (a == null || bLength < 0 || a.length != bLength) {
      throw RmaException.of(ErrorClass.ARG, "%s %s (length %s) and %s (length %s) must be non-null and of equal length",
          ctor, aName, a == null ? "null" : String.valueOf(a.length), bName, bLength < 0 ? "null" : String.valueOf(bLength));
    }
  }
}
