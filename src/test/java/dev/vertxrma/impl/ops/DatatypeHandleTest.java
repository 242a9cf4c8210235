package dev.vertxrma.impl.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.Datatype;
import dev.vertxrma.ErrorClass;
import dev.vertxrma.RmaException;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link Datatype} is a final class whose type map is a handle the public API does not show: no
 * other implementation can exist, no public member names an implementation type, and the only
 * way from a datatype to its map, {@link TypeMap#of}, cannot be redirected.
 */
class DatatypeHandleTest {

  @Test
  void datatypeIsAFinalClassThatNoTypeMapIs() {
    assertFalse(Datatype.class.isInterface());
    assertTrue(Modifier.isFinal(Datatype.class.getModifiers()), "nothing else can be a Datatype");
    assertFalse(Datatype.class.isAssignableFrom(TypeMap.class), "a type map is not a Datatype");
    assertEquals(0, Datatype.class.getConstructors().length, "datatypes come from the constants and factories");
  }

  @Test
  void noPublicMemberOfDatatypeNamesTheImplementation() {
    List<String> leaks = new ArrayList<>();
    for (Field f : Datatype.class.getFields()) {
      if (isImplementation(f.getType())) {
        leaks.add(f.toString());
      }
    }
    for (Method m : Datatype.class.getMethods()) {
      boolean leak = isImplementation(m.getReturnType());
      for (Class<?> p : m.getParameterTypes()) {
        leak |= isImplementation(p);
      }
      if (leak) {
        leaks.add(m.toString());
      }
    }
    assertEquals(List.of(), leaks);
  }

  private static boolean isImplementation(Class<?> c) {
    Class<?> t = c.isArray() ? c.getComponentType() : c;
    return t.getName().startsWith("dev.vertxrma.impl.");
  }

  @Test
  void theHandleIsTheTypeMapTheEngineWalks() {
    assertSame(TypeMap.predefined(BasicType.INT), TypeMap.of(Datatype.INT));
    assertNotSame(TypeMap.of(Datatype.BOOLEAN), TypeMap.of(Datatype.C_BOOL), "two names, two handles");
    Datatype v = Datatype.vector(3, 2, 4, Datatype.INT);
    TypeMap map = TypeMap.of(v);
    assertSame(map, TypeMap.of(v), "one handle per datatype");
    assertFalse(map.isCommitted());
    assertSame(v, v.commit());
    assertTrue(map.isCommitted(), "commit marks the map the engine checks");
    assertEquals(v.size(), map.size());
    assertEquals(v.extent(), map.extent());
    assertEquals(v.name(), map.name());
    assertEquals(v.name(), v.toString());
    assertEquals(ErrorClass.TYPE, assertThrows(RmaException.class, () -> TypeMap.of(null)).errorClass());
  }

  @Test
  void theReaderOfHandlesIsGivenOnce() {
    TypeMap.of(Datatype.INT); // Datatype is initialized, so it has given its reader
    assertThrows(IllegalStateException.class, () -> TypeMap.readHandlesWith(d -> TypeMap.predefined(BasicType.BYTE)));
    assertSame(TypeMap.predefined(BasicType.INT), TypeMap.of(Datatype.INT), "the reader is still Datatype's");
  }
}
