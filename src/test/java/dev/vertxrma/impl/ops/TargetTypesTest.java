package dev.vertxrma.impl.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.RmaException;
import dev.vertxrma.impl.transport.FrameType;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * The target's decoded-datatype cache (issue 43, "bounded at the receiver"): one decode per
 * origin and wire form, every wire form validated the first time and a bad one never kept, the
 * bounds held, a predefined type never decoded.
 */
class TargetTypesTest {

  private static RmaOperation packed(int origin, byte[] wire) {
    RmaOperation op = new RmaOperation().reset(FrameType.PUT, 1, origin);
    op.origin = origin;
    op.targetTypeWire = wire;
    return op;
  }

  private static byte[] wire(Datatype d) {
    return TypeMap.of(d.commit()).wireBytes().clone(); // a fresh array per frame, as the codec makes
  }

  @Test
  void oneDecodePerOriginAndTypeForManyOperations() {
    TargetTypes types = new TargetTypes();
    Datatype vector = Datatype.vector(3, 2, 4, Datatype.LONG);
    TypeMap first = null;
    for (int i = 0; i < 1000; i++) {
      RmaOperation op = packed(2, wire(vector));
      types.resolve(op);
      assertEquals(48, op.targetType.size(), "3 blocks of 2 longs");
      assertEquals(3, op.targetType.segmentCount());
      if (first == null) {
        first = op.targetType;
      }
      assertSame(first, op.targetType, "the kept type map");
    }
    assertEquals(1, types.decodes(), "one decode for 1000 operations of one origin with one type");
    types.resolve(packed(3, wire(vector)));
    assertEquals(2, types.decodes(), "another origin's type is decoded for it");
    types.resolve(packed(2, wire(Datatype.vector(3, 2, 5, Datatype.LONG))));
    assertEquals(3, types.decodes(), "another type of the same origin is decoded: a new type is new bytes");
    for (int i = 0; i < 100; i++) {
      RmaOperation op = packed(2, new byte[] {(byte) TypeMap.of(Datatype.INT).predefinedType().code()});
      types.resolve(op);
      assertSame(TypeMap.of(Datatype.INT), op.targetType);
    }
    assertEquals(3, types.decodes(), "predefined types are never decoded nor kept");
    assertEquals(3, types.size());
  }

  @Test
  void aMalformedWireFormFailsEveryTimeAndIsNeverKept() {
    TargetTypes types = new TargetTypes();
    byte[] good = wire(Datatype.vector(2, 1, 3, Datatype.INT));
    byte[] badSize = good.clone();
    badSize[1 + 4 * 8 + 7] ^= 1; // the size field no longer the sum of the segments
    byte[] trailing = Arrays.copyOf(good, good.length + 1);
    for (byte[] bad : new byte[][] {badSize, trailing}) {
      for (int i = 0; i < 3; i++) {
        RmaOperation op = packed(1, bad);
        RmaException e = assertThrows(RmaException.class, () -> types.resolve(op));
        assertEquals(ErrorClass.TYPE, e.errorClass(), e.getMessage());
        assertNull(op.targetType);
      }
    }
    assertEquals(0, types.size(), "nothing invalid is kept");
    // the valid form, once kept, is not confused with a corrupted copy of it
    types.resolve(packed(1, good));
    RmaOperation corrupted = packed(1, badSize);
    assertThrows(RmaException.class, () -> types.resolve(corrupted));
    assertEquals(1, types.size());
  }

  @Test
  void boundedInEntriesAndBytes() {
    TargetTypes types = new TargetTypes();
    for (int i = 0; i < 3 * TargetTypes.MAX_ENTRIES; i++) {
      types.resolve(packed(i % 4, wire(Datatype.vector(2, 1, 2 + i, Datatype.INT))));
      assertTrue(types.size() <= TargetTypes.MAX_ENTRIES, "entries " + types.size());
    }
    assertEquals(TargetTypes.MAX_ENTRIES, types.size());
    // large types: the byte bound holds, a form above the entry bound is decoded every time
    int[] lengths = new int[1000];
    int[] disps = new int[1000];
    Arrays.fill(lengths, 1);
    for (int k = 0; k < 20; k++) {
      for (int i = 0; i < disps.length; i++) {
        disps[i] = 2 * i + k;
      }
      types.resolve(packed(0, wire(Datatype.indexed(lengths, disps, Datatype.INT))));
      assertTrue(types.wireBytes() <= TargetTypes.MAX_WIRE_BYTES, "wire bytes kept " + types.wireBytes());
    }
    int[] many = new int[6000];
    int[] manyDisps = new int[6000];
    Arrays.fill(many, 1);
    for (int i = 0; i < manyDisps.length; i++) {
      manyDisps[i] = 2 * i;
    }
    byte[] huge = wire(Datatype.indexed(many, manyDisps, Datatype.INT));
    assertTrue(huge.length > TargetTypes.MAX_ENTRY_BYTES);
    long before = types.decodes();
    types.resolve(packed(0, huge));
    types.resolve(packed(0, huge));
    assertEquals(before + 2, types.decodes(), "a form above the entry bound is not kept");
  }
}
