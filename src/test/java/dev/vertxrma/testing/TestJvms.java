package dev.vertxrma.testing;

import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Points the JVMs that {@code @RmaTest(jvms = K)} starts at {@link LaunchClassPath#jar()} with
 * {@link LaunchClassPath#JVM_FLAGS} ({@code rma.junit.classPath}, {@code rma.junit.javaOptions}),
 * as {@link Rmarun} points {@code bin/rmarun}'s: registered for every test class through JUnit's
 * extension auto-detection ({@code META-INF/services}), before any job a test class runs.
 */
public final class TestJvms implements BeforeAllCallback {

  @Override
  public void beforeAll(ExtensionContext context) {
    set();
  }

  private static synchronized void set() {
    if (System.getProperty("rma.junit.classPath") == null) {
      System.setProperty("rma.junit.javaOptions", LaunchClassPath.JVM_FLAGS);
      System.setProperty("rma.junit.classPath", LaunchClassPath.jar());
    }
  }
}
