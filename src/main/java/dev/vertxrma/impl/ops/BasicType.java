package dev.vertxrma.impl.ops;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.RmaException;

/**
 * The primitive element kinds that every datatype's type map is made of. A pair kind (the C
 * {@code MPI_2INT}, {@code MPI_LONG_INT}, ... used by MAXLOC/MINLOC) is one element: a value
 * followed by an {@code int} index, {@link #size()} data bytes, no padding inside the element.
 *
 * <p>An integer kind is signed or {@link #isUnsigned() unsigned}; the reduction kernel reads both
 * through the same table (the element's width, then sign- or zero-extension), so each kind is one
 * row here, not code of its own. {@link #code()} is the stable number used on the wire; new kinds
 * take new codes, existing codes never change.
 */
public enum BasicType {
  /** A raw byte (MPI_BYTE). */
  BYTE(1, 1, TypeClass.BYTE, false, byte.class),
  /** A Java {@code char}: 16-bit unsigned integer. */
  CHAR(2, 2, TypeClass.INTEGER, true, char.class),
  /** A 16-bit signed integer (MPI_SHORT). */
  SHORT(3, 2, TypeClass.INTEGER, false, short.class),
  /** A 32-bit signed integer (MPI_INT). */
  INT(4, 4, TypeClass.INTEGER, false, int.class),
  /** A 64-bit signed integer (MPI_LONG). */
  LONG(5, 8, TypeClass.INTEGER, false, long.class),
  /** A 32-bit IEEE float (MPI_FLOAT). */
  FLOAT(6, 4, TypeClass.FLOATING, false, float.class),
  /** A 64-bit IEEE double (MPI_DOUBLE). */
  DOUBLE(7, 8, TypeClass.FLOATING, false, double.class),
  /** A logical in one byte: 0 is false, anything else true (MPI_C_BOOL). */
  BOOLEAN(8, 1, TypeClass.LOGICAL, false, boolean.class),
  /** A 64-bit address or displacement integer (MPI_AINT). */
  AINT(9, 8, TypeClass.INTEGER, false, long.class),
  /** An {@code int} value and an {@code int} index (MPI_2INT). */
  INT_INT(10, 8, 8, TypeClass.PAIR, false, int.class, INT, 4),
  /** A {@code long} value and an {@code int} index; extent 16 like C (MPI_LONG_INT). */
  LONG_INT(11, 12, 16, TypeClass.PAIR, false, null, LONG, 8),
  /** A {@code float} value and an {@code int} index (MPI_FLOAT_INT). */
  FLOAT_INT(12, 8, 8, TypeClass.PAIR, false, null, FLOAT, 4),
  /** A {@code double} value and an {@code int} index; extent 16 like C (MPI_DOUBLE_INT). */
  DOUBLE_INT(13, 12, 16, TypeClass.PAIR, false, null, DOUBLE, 8),
  /** An 8-bit signed integer (MPI_INT8_T). */
  INT8(14, 1, TypeClass.INTEGER, false, byte.class),
  /** A 16-bit signed integer (MPI_INT16_T). */
  INT16(15, 2, TypeClass.INTEGER, false, short.class),
  /** A 32-bit signed integer (MPI_INT32_T). */
  INT32(16, 4, TypeClass.INTEGER, false, int.class),
  /** A 64-bit signed integer (MPI_INT64_T). */
  INT64(17, 8, TypeClass.INTEGER, false, long.class),
  /** An 8-bit unsigned integer (MPI_UINT8_T). */
  UINT8(18, 1, TypeClass.INTEGER, true, byte.class),
  /** A 16-bit unsigned integer (MPI_UINT16_T). */
  UINT16(19, 2, TypeClass.INTEGER, true, short.class),
  /** A 32-bit unsigned integer (MPI_UINT32_T). */
  UINT32(20, 4, TypeClass.INTEGER, true, int.class),
  /** A 64-bit unsigned integer (MPI_UINT64_T). */
  UINT64(21, 8, TypeClass.INTEGER, true, long.class);

  /** The groups of MPI's table of which reduction operation is defined on which datatype. */
  public enum TypeClass {
    /**
     * C integer types: signed (SHORT, INT, LONG, INT8..INT64) and unsigned (CHAR, UINT8..UINT64),
     * and MPI_AINT.
     */
    INTEGER,
    /** Floating-point types. */
    FLOATING,
    /** Logical types. */
    LOGICAL,
    /** MPI_BYTE. */
    BYTE,
    /** Value/index pairs for MAXLOC and MINLOC. */
    PAIR
  }

  private static final BasicType[] BY_CODE = new BasicType[32];

  static {
    for (BasicType t : values()) {
      BY_CODE[t.code] = t;
    }
  }

  private final int code;
  private final int size;
  private final int predefinedExtent;
  private final TypeClass typeClass;
  private final BasicType valueType;
  private final int indexOffset;
  private final boolean unsigned;
  private final long valueMask;
  private final Class<?> arrayElement;

  /** A scalar kind: extent = size. */
  BasicType(int code, int size, TypeClass typeClass, boolean unsigned, Class<?> arrayElement) {
    this(code, size, size, typeClass, unsigned, arrayElement, null, 0);
  }

  BasicType(int code, int size, int predefinedExtent, TypeClass typeClass, boolean unsigned, Class<?> arrayElement,
      BasicType valueType, int indexOffset) {
    this.code = code;
    this.size = size;
    this.predefinedExtent = predefinedExtent;
    this.typeClass = typeClass;
    this.unsigned = unsigned;
    this.valueMask = unsigned && size < 8 ? (1L << (8 * size)) - 1 : -1L;
    this.arrayElement = arrayElement;
    this.valueType = valueType;
    this.indexOffset = indexOffset;
  }

  /** The stable wire code, 1..21. */
  public int code() {
    return code;
  }

  /** Bytes of data in one element (12 for {@link #LONG_INT} and {@link #DOUBLE_INT}). */
  public int size() {
    return size;
  }

  /** The extent of the predefined datatype of this kind (16 for the C-padded pairs, else {@link #size()}). */
  public int predefinedExtent() {
    return predefinedExtent;
  }

  /** The group this kind belongs to in MPI's operation/type table. */
  public TypeClass typeClass() {
    return typeClass;
  }

  /** For a pair kind, the kind of its value part (INT, LONG, FLOAT, DOUBLE); {@code null} otherwise. */
  public BasicType valueType() {
    return valueType;
  }

  /** For a pair kind, the byte offset of its {@code int} index inside the element; 0 otherwise. */
  public int indexOffset() {
    return indexOffset;
  }

  /**
   * Whether this integer kind is unsigned (CHAR, UINT8, UINT16, UINT32, UINT64): its elements are
   * zero-extended when widened, and MAX/MIN compare them as unsigned numbers.
   */
  public boolean isUnsigned() {
    return unsigned;
  }

  /**
   * The mask that zero-extends an element of this kind once sign-extended to {@code long}: the low
   * {@code 8 * size()} bits for the unsigned kinds narrower than 64 bits, {@code -1} (all bits)
   * otherwise.
   */
  long valueMask() {
    return valueMask;
  }

  /**
   * The primitive element type of the Java arrays that hold elements of this kind one array
   * element per value: {@code byte} for BYTE, INT8 and UINT8; {@code short} for SHORT, INT16 and
   * UINT16; {@code char} for CHAR; {@code int} for INT, INT32, UINT32 and INT_INT (two ints);
   * {@code long} for LONG, AINT, INT64 and UINT64; {@code float}, {@code double} for FLOAT,
   * DOUBLE; {@code boolean} for BOOLEAN (MPI_C_BOOL); {@code null} for a pair of two different
   * types (LONG_INT, FLOAT_INT, DOUBLE_INT), which only raw memory (a {@code byte[]}) holds. An
   * unsigned kind lives in the signed Java array of its width, bit for bit.
   */
  public Class<?> arrayElement() {
    return arrayElement;
  }

  /**
   * The kind with the given wire code.
   *
   * @throws RmaException {@link ErrorClass#TYPE} for a code that names no kind
   */
  public static BasicType ofCode(int code) {
    if (code < 0 || code >= BY_CODE.length || BY_CODE[code] == null) {
      throw RmaException.of(ErrorClass.TYPE, "unknown basic datatype code %d", code);
    }
    return BY_CODE[code];
  }
}
