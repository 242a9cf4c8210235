package dev.vertxrma.impl.ops;

import dev.vertxrma.impl.transport.Frame;

/**
 * The same-JVM side of an RMA operation frame ({@link Frame#local}): the target datatype already
 * decoded, and the origin's buffers the target reads or writes in place — the data of a put,
 * accumulate, get-accumulate or compare-and-swap, the compare value of a compare-and-swap, the
 * result buffer of a get, get-accumulate or compare-and-swap. Bases and addresses follow the
 * Unsafe convention. The origin reuses one for every operation it applies at once, and a frame
 * that has to wait keeps a {@link #copy()}.
 */
public final class LocalTransfer implements Frame.Local {

  /** The target datatype, decoded. */
  public TypeMap targetType;
  /** The origin data (put, accumulate, get-accumulate, compare-and-swap's new value). */
  public Object originBase;
  public long originAddress;
  public TypeMap originType;
  public int originCount;
  /** Where the result goes (get's buffer, get-accumulate's and compare-and-swap's result). */
  public Object resultBase;
  public long resultAddress;
  public TypeMap resultType;
  public int resultCount;
  /** Compare-and-swap's compare value. */
  public Object compareBase;
  public long compareAddress;

  /** Every field back to its initial value, with the target datatype {@code targetType}. */
  public LocalTransfer reset(TypeMap targetType) {
    this.targetType = targetType;
    originBase = null;
    originAddress = 0;
    originType = null;
    originCount = 0;
    resultBase = null;
    resultAddress = 0;
    resultType = null;
    resultCount = 0;
    compareBase = null;
    compareAddress = 0;
    return this;
  }

  @Override
  public LocalTransfer copy() {
    LocalTransfer c = new LocalTransfer().reset(targetType);
    c.originBase = originBase;
    c.originAddress = originAddress;
    c.originType = originType;
    c.originCount = originCount;
    c.resultBase = resultBase;
    c.resultAddress = resultAddress;
    c.resultType = resultType;
    c.resultCount = resultCount;
    c.compareBase = compareBase;
    c.compareAddress = compareAddress;
    return c;
  }
}
