package dev.vertxrma.testing;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The guard of the tests that need virtual threads (Java 21+), which run in the
 * {@code virtual-threads} Surefire execution under the JDK {@code bin/vt-jdk/bin/java} finds. On
 * an older Java they are skipped, and say so on standard error and in the test report: never
 * silently.
 */
public final class VirtualThreadsAvailable {

  /** Why the tests cannot run here. */
  public static final String NEEDS = "needs Java 21+ (virtual threads); this JVM is Java " + Runtime.version()
      + ": set RMA_VT_JAVA to a JDK 21+ java, or install one under /usr/lib/jvm (bin/vt-jdk/bin/java finds it)";

  private VirtualThreadsAvailable() {
  }

  /** Skips the calling test (class) on a Java without virtual threads. */
  public static void assume(Class<?> testClass) {
    boolean ok = Runtime.version().feature() >= 21;
    if (!ok) {
      System.err.println(testClass.getSimpleName() + " SKIPPED: " + NEEDS);
    }
    assumeTrue(ok, NEEDS);
  }
}
