package dev.vertxrma.junit;

import java.lang.reflect.Method;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.platform.commons.support.AnnotationSupport;

/**
 * The JUnit 5 extension behind {@link RmaTest}: resolves the test method's {@link RmaJob}
 * parameter from the method's {@code @RmaTest} (also when {@code @RmaTest} is a meta-annotation
 * of the test's own annotation). Each job name starts with the test class's and method's names.
 * Registered by {@code @RmaTest}; there is no need to name it.
 */
public final class RmaTestExtension implements ParameterResolver {

  /** The longest prefix of job names: a job name has at most 64 characters, and a suffix of about 10. */
  private static final int PREFIX_LENGTH = 52;

  /** Made by JUnit for {@code @ExtendWith(RmaTestExtension.class)}. */
  public RmaTestExtension() {
  }

  /**
   * Whether the parameter is an {@link RmaJob}.
   *
   * @param parameterContext the parameter to resolve
   * @param extensionContext the test
   * @return {@code true} for a parameter of type {@link RmaJob}
   */
  @Override
  public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
    return parameterContext.getParameter().getType() == RmaJob.class;
  }

  /**
   * A new {@link RmaJob} for the test method, configured by its {@link RmaTest}.
   *
   * @param parameterContext the parameter to resolve
   * @param extensionContext the test
   * @return the jobs of this test
   * @throws ExtensionConfigurationException if the method has no {@code @RmaTest}, or an invalid one
   */
  @Override
  public Object resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
    Method method = extensionContext.getRequiredTestMethod();
    RmaTest test = AnnotationSupport.findAnnotation(method, RmaTest.class).orElseThrow(() ->
        new ExtensionConfigurationException("an RmaJob parameter needs @RmaTest on " + method));
    try {
      Class<?> c = extensionContext.getRequiredTestClass();
      String className = c.getName().substring(c.getPackageName().isEmpty() ? 0 : c.getPackageName().length() + 1);
      return new RmaJob(prefix(className, method.getName()), test);
    } catch (IllegalArgumentException e) {
      throw new ExtensionConfigurationException(e.getMessage() + " on " + method, e);
    }
  }

  /**
   * The test's name in the characters a job name allows: {@code Class.method}, or the method's
   * name alone when that is longer than {@link #PREFIX_LENGTH} (cut to it if need be).
   */
  static String prefix(String className, String methodName) {
    String s = (className + "." + methodName).replaceAll("[^A-Za-z0-9._-]", "_");
    if (s.length() > PREFIX_LENGTH) {
      s = methodName.replaceAll("[^A-Za-z0-9._-]", "_");
    }
    return s.length() <= PREFIX_LENGTH ? s : s.substring(0, PREFIX_LENGTH);
  }
}
