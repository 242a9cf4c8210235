package dev.vertxrma.rx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.Comm;
import dev.vertxrma.Rma;
import dev.vertxrma.Win;
import dev.vertxrma.World;
import io.reactivex.rxjava3.core.Completable;
import io.reactivex.rxjava3.core.Maybe;
import io.reactivex.rxjava3.core.Single;
import io.vertx.core.Future;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Keeps the Rx facade from falling behind: every public method of {@link Comm}, {@link Win},
 * {@link World} and {@link Rma} must have a public twin of the same name in {@link RxComm},
 * {@link RxWin}, {@link RxWorld} and {@link RxRma}, static when it is static, with the same
 * parameters (an API type replaced by its Rx view) and the Rx form of its result:
 * {@code Future<Void>} becomes {@code Completable}, {@code Future<T>} {@code Single<T>} or
 * {@code Maybe<T>}, {@code Future<Optional<T>>} also {@code Maybe<T>} (empty when absent), anything
 * else stays (an API type becomes its Rx view).
 */
class RxCompletenessTest {

  /** API type to Rx view, for parameters and results. */
  private static final Map<Class<?>, Class<?>> VIEWS = Map.of(Comm.class, RxComm.class, Win.class, RxWin.class,
      World.class, RxWorld.class);

  @Test
  void everyCommCallHasAnRxTwin() {
    assertComplete(Comm.class, RxComm.class);
  }

  @Test
  void everyWinCallHasAnRxTwin() {
    assertComplete(Win.class, RxWin.class);
  }

  @Test
  void everyWorldCallHasAnRxTwin() {
    assertComplete(World.class, RxWorld.class);
  }

  @Test
  void everyRmaEntryPointHasAnRxTwin() {
    assertComplete(Rma.class, RxRma.class);
  }

  /** The check is not vacuous: a facade missing calls, or with a wrong result type, is reported. */
  @Test
  void aFacadeThatFellBehindIsReported() {
    List<String> missing = missing(Comm.class, LaggingComm.class);
    assertTrue(missing.stream().anyMatch(m -> m.startsWith("Comm.reduce(")), missing::toString);
    assertTrue(missing.stream().anyMatch(m -> m.startsWith("Comm.barrier(")), missing::toString);
    assertTrue(missing.stream().anyMatch(m -> m.startsWith("Comm.rank(")), missing::toString);
    assertEquals(List.of(), missing(LaggingComm.class, LaggingComm.class), "a class is its own twin");
  }

  /** A facade that wraps two calls, one of them with a wrong result type. */
  @SuppressWarnings("unused")
  private static final class LaggingComm {
    public Completable send(Object buf, int offset, int count, dev.vertxrma.Datatype type, int dest, int tag) {
      return Completable.complete();
    }

    public Single<Void> barrier() {
      return Single.never();
    }
  }

  private static void assertComplete(Class<?> api, Class<?> rx) {
    List<String> missing = missing(api, rx);
    assertTrue(missing.isEmpty(), () -> rx.getSimpleName() + " lacks the Rx twins of " + missing.size()
        + " public call(s) of " + api.getSimpleName() + ":\n  " + String.join("\n  ", missing));
  }

  /** The public methods of {@code api} without a twin in {@code rx}, with what the twin should look like. */
  static List<String> missing(Class<?> api, Class<?> rx) {
    Set<String> twins = Arrays.stream(rx.getMethods())
        .filter(m -> m.getDeclaringClass() == rx)
        .map(RxCompletenessTest::signature)
        .collect(Collectors.toSet());
    List<String> missing = new ArrayList<>();
    for (Method m : api.getDeclaredMethods()) {
      if (!Modifier.isPublic(m.getModifiers()) || m.isSynthetic()) {
        continue;
      }
      List<String> wanted = expectedSignatures(m);
      if (wanted.stream().noneMatch(twins::contains)) {
        missing.add(api.getSimpleName() + "." + m.getName() + "(" + params(m) + "), wanted " + wanted.get(0)
            + (wanted.size() > 1 ? " (or with Maybe)" : ""));
      }
    }
    missing.sort(null);
    return missing;
  }

  /** {@code [static ]name(params) -> result} of an Rx method. */
  private static String signature(Method m) {
    return (Modifier.isStatic(m.getModifiers()) ? "static " : "") + m.getName() + "(" + params(m) + ") -> "
        + m.getGenericReturnType().getTypeName();
  }

  /** The signatures an Rx twin of {@code m} may have: Single or Maybe for a value. */
  private static List<String> expectedSignatures(Method m) {
    String head = (Modifier.isStatic(m.getModifiers()) ? "static " : "") + m.getName() + "(" + viewParams(m) + ") -> ";
    Type result = m.getGenericReturnType();
    if (!(result instanceof ParameterizedType p) || p.getRawType() != Future.class) {
      return List.of(head + view(result));
    }
    Type value = p.getActualTypeArguments()[0];
    if (value == Void.class) {
      return List.of(head + Completable.class.getName());
    }
    if (value instanceof ParameterizedType o && o.getRawType() == java.util.Optional.class) {
      // a value that may be absent: Single<Optional<T>>, or Rx's own Maybe<T> (empty when absent)
      return List.of(head + Single.class.getName() + "<" + view(value) + ">",
          head + Maybe.class.getName() + "<" + view(o.getActualTypeArguments()[0]) + ">");
    }
    return List.of(head + Single.class.getName() + "<" + view(value) + ">",
        head + Maybe.class.getName() + "<" + view(value) + ">");
  }

  private static String params(Method m) {
    return Arrays.stream(m.getParameterTypes()).map(Class::getTypeName).collect(Collectors.joining(", "));
  }

  private static String viewParams(Method m) {
    return Arrays.stream(m.getParameterTypes()).map(c -> VIEWS.getOrDefault(c, c).getTypeName())
        .collect(Collectors.joining(", "));
  }

  private static String view(Type t) {
    return t instanceof Class<?> c ? VIEWS.getOrDefault(c, c).getTypeName() : t.getTypeName();
  }
}
