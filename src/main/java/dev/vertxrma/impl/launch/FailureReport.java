package dev.vertxrma.impl.launch;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.RmaException;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;

/**
 * The failure of a JVM's ranks, written as properties to the file its job description names
 * ({@link JobDescription#getReport()}), for the process that started the JVM
 * ({@code dev.vertxrma.junit.RmaJob} reads it back as an {@link RmaException}).
 */
public final class FailureReport {

  /** Key of the failure's {@link ErrorClass} name ({@code OTHER} for a failure that is no {@link RmaException}). */
  public static final String ERROR_CLASS = "errorClass";
  /** Key of the failure's message (without the error class prefix of an {@code RmaException}). */
  public static final String MESSAGE = "message";
  /** Key of the failure's stack trace as text. */
  public static final String TRACE = "trace";

  private FailureReport() {
  }

  /**
   * Writes {@code failure} of the ranks of {@code d} to the file {@code d} names, if it names one;
   * a file that cannot be written is said on {@code err}.
   */
  static void write(JobDescription d, Throwable failure, PrintStream err) {
    if (d.getReport() == null) {
      return;
    }
    Properties p = new Properties();
    String message = String.valueOf(failure.getMessage());
    if (failure instanceof RmaException) {
      ErrorClass ec = ((RmaException) failure).errorClass();
      p.setProperty(ERROR_CLASS, ec.name());
      if (message.startsWith(ec + ": ")) {
        message = message.substring(ec.toString().length() + 2);
      }
    } else {
      p.setProperty(ERROR_CLASS, ErrorClass.OTHER.name());
      message = failure.toString();
    }
    p.setProperty(MESSAGE, message);
    StringWriter trace = new StringWriter();
    failure.printStackTrace(new PrintWriter(trace));
    p.setProperty(TRACE, trace.toString());
    try (Writer w = Files.newBufferedWriter(Path.of(d.getReport()))) {
      p.store(w, "rmarun: failure of " + d.describeJvm() + " of job " + d.getJob());
    } catch (IOException e) {
      err.println("rmarun: cannot write the report " + d.getReport() + ": " + e);
    }
  }
}
