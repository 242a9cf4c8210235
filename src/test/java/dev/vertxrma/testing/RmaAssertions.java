package dev.vertxrma.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.RmaException;
import io.vertx.core.Future;

/** Assertions on the failures of vertx-rma calls, for use inside rank programs and tests. */
public final class RmaAssertions {

  private RmaAssertions() {
  }

  /**
   * Succeeds iff {@code f} failed with an {@link RmaException} of class {@code cls} whose message
   * contains every fragment; otherwise fails with an assertion error saying what happened.
   */
  public static Future<Void> expectError(Future<?> f, ErrorClass cls, String... fragments) {
    return f.transform(ar -> {
      if (ar.succeeded()) {
        return Future.failedFuture(new AssertionError("expected " + cls + " but the call succeeded with "
            + ar.result()));
      }
      try {
        assertError(ar.cause(), cls, fragments);
      } catch (AssertionError e) {
        return Future.failedFuture(e);
      }
      return Future.succeededFuture();
    });
  }

  /** Asserts {@code t} is an {@link RmaException} of class {@code cls} whose message has every fragment. */
  public static RmaException assertError(Throwable t, ErrorClass cls, String... fragments) {
    RmaException e = assertInstanceOf(RmaException.class, t, "expected an RmaException, got " + t);
    assertEquals(cls, e.errorClass(), e.getMessage());
    for (String s : fragments) {
      assertTrue(e.getMessage().contains(s), "message '" + e.getMessage() + "' should contain '" + s + "'");
    }
    return e;
  }
}
