package dev.vertxrma.impl.ops;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.RmaException;

/**
 * The primitive element kinds that every datatype's type map is made of. A pair kind (the C
 * {@code MPI_2INT}, {@code MPI_LONG_INT}, ... used by MAXLOC/MINLOC) is one element: a value
 * followed by an {@code int} index, {@link #size()} data bytes, no padding inside the element.
 *
 * <p>{@link #code()} is the stable number used on the wire.
 */
public enum BasicType {
  /** A raw byte (MPI_BYTE). */
  BYTE(1, 1, 1, TypeClass.BYTE, null, 0),
  /** A Java {@code char}: 16-bit unsigned integer. */
  CHAR(2, 2, 2, TypeClass.INTEGER, null, 0),
  /** A 16-bit signed integer (MPI_SHORT). */
  SHORT(3, 2, 2, TypeClass.INTEGER, null, 0),
  /** A 32-bit signed integer (MPI_INT). */
  INT(4, 4, 4, TypeClass.INTEGER, null, 0),
  /** A 64-bit signed integer (MPI_LONG). */
  LONG(5, 8, 8, TypeClass.INTEGER, null, 0),
  /** A 32-bit IEEE float (MPI_FLOAT). */
  FLOAT(6, 4, 4, TypeClass.FLOATING, null, 0),
  /** A 64-bit IEEE double (MPI_DOUBLE). */
  DOUBLE(7, 8, 8, TypeClass.FLOATING, null, 0),
  /** A logical in one byte: 0 is false, anything else true (MPI_C_BOOL). */
  BOOLEAN(8, 1, 1, TypeClass.LOGICAL, null, 0),
  /** A 64-bit address or displacement integer (MPI_AINT). */
  AINT(9, 8, 8, TypeClass.INTEGER, null, 0),
  /** An {@code int} value and an {@code int} index (MPI_2INT). */
  INT_INT(10, 8, 8, TypeClass.PAIR, INT, 4),
  /** A {@code long} value and an {@code int} index; extent 16 like C (MPI_LONG_INT). */
  LONG_INT(11, 12, 16, TypeClass.PAIR, LONG, 8),
  /** A {@code float} value and an {@code int} index (MPI_FLOAT_INT). */
  FLOAT_INT(12, 8, 8, TypeClass.PAIR, FLOAT, 4),
  /** A {@code double} value and an {@code int} index; extent 16 like C (MPI_DOUBLE_INT). */
  DOUBLE_INT(13, 12, 16, TypeClass.PAIR, DOUBLE, 8);

  /** The groups of MPI's table of which reduction operation is defined on which datatype. */
  public enum TypeClass {
    /** C integer types (here also {@code char} and MPI_AINT). */
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

  private static final BasicType[] BY_CODE = new BasicType[16];

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

  BasicType(int code, int size, int predefinedExtent, TypeClass typeClass, BasicType valueType, int indexOffset) {
    this.code = code;
    this.size = size;
    this.predefinedExtent = predefinedExtent;
    this.typeClass = typeClass;
    this.valueType = valueType;
    this.indexOffset = indexOffset;
  }

  /** The stable wire code, 1..13. */
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
   * The primitive element type of the Java arrays that hold elements of this kind one array
   * element per value: {@code long} for LONG and AINT, {@code int} for INT and INT_INT (two ints),
   * {@code boolean} for BOOLEAN, ...; {@code null} for a pair of two different types (LONG_INT,
   * FLOAT_INT, DOUBLE_INT), which only raw memory (a {@code byte[]}) holds.
   */
  public Class<?> arrayElement() {
    return switch (this) {
      case BYTE -> byte.class;
      case CHAR -> char.class;
      case SHORT -> short.class;
      case INT, INT_INT -> int.class;
      case LONG, AINT -> long.class;
      case FLOAT -> float.class;
      case DOUBLE -> double.class;
      case BOOLEAN -> boolean.class;
      case LONG_INT, FLOAT_INT, DOUBLE_INT -> null;
    };
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
