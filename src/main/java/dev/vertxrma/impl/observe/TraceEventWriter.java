package dev.vertxrma.impl.observe;

import java.io.IOException;
import java.io.Writer;

/**
 * Writes the events of the trace-event JSON format (the format of Chrome's {@code about:tracing}
 * that Perfetto's UI also opens) one by one to a {@link Writer}: the JSON object
 * {@code {"traceEvents":[...], "displayTimeUnit":"ns", "otherData":{...}}}, one event a line,
 * nothing held in memory. Strings are escaped so that the output is ASCII-only JSON (quotes,
 * backslashes, control characters, DEL and every non-ASCII character as {@code \}{@code uXXXX}).
 * Times are nanoseconds from the trace's origin, written as microseconds (the format's unit) with
 * three decimals; see {@link #micros}.
 */
final class TraceEventWriter {

  private final Writer out;
  private boolean firstEvent = true;

  TraceEventWriter(Writer out) throws IOException {
    this.out = out;
    out.write("{\"traceEvents\":[");
  }

  /** A metadata event ({@code ph} M): {@code process_name}, {@code thread_name}, ... with one argument. */
  void metadata(String name, int pid, int tid, String argName, Object argValue) throws IOException {
    begin(name, null, 'M', pid, tid);
    out.write(",\"args\":{");
    string(argName);
    out.write(':');
    value(argValue);
    out.write("}}");
  }

  /** A complete event ({@code ph} X) of {@code durNanos} from {@code tsNanos}; args as name, value pairs. */
  void complete(String name, String cat, int pid, int tid, long tsNanos, long durNanos, Object... args)
      throws IOException {
    begin(name, cat, 'X', pid, tid);
    out.write(",\"ts\":");
    micros(tsNanos);
    out.write(",\"dur\":");
    micros(durNanos);
    args(args);
    out.write('}');
  }

  /** A thread-scoped instant event ({@code ph} i, {@code s} t). */
  void instant(String name, String cat, int pid, int tid, long tsNanos, Object... args) throws IOException {
    begin(name, cat, 'i', pid, tid);
    out.write(",\"s\":\"t\",\"ts\":");
    micros(tsNanos);
    args(args);
    out.write('}');
  }

  /**
   * A flow event: {@code ph} s (its start, bound to the slice that encloses it) or f (its end,
   * with {@code "bp":"e"}: bound to the enclosing slice too, not to the next one). The start and
   * the end of one flow have the same {@code id}, {@code cat} and {@code name}.
   */
  void flow(char ph, String name, String cat, long id, int pid, int tid, long tsNanos) throws IOException {
    begin(name, cat, ph, pid, tid);
    out.write(",\"id\":");
    out.write(Long.toString(id));
    out.write(",\"ts\":");
    micros(tsNanos);
    if (ph == 'f') {
      out.write(",\"bp\":\"e\"");
    }
    out.write('}');
  }

  /**
   * Ends the events and writes {@code "displayTimeUnit":"ns"} and {@code otherData} (name, value
   * pairs: strings and numbers); does not close the writer.
   */
  void end(Object... otherData) throws IOException {
    out.write("\n],\"displayTimeUnit\":\"ns\",\"otherData\":{");
    pairs(otherData);
    out.write("}}\n");
    out.flush();
  }

  private void begin(String name, String cat, char ph, int pid, int tid) throws IOException {
    out.write(firstEvent ? "\n{\"name\":" : ",\n{\"name\":");
    firstEvent = false;
    string(name);
    if (cat != null) {
      out.write(",\"cat\":");
      string(cat);
    }
    out.write(",\"ph\":\"");
    out.write(ph);
    out.write("\",\"pid\":");
    out.write(Integer.toString(pid));
    out.write(",\"tid\":");
    out.write(Integer.toString(tid));
  }

  private void args(Object[] args) throws IOException {
    if (args.length > 0) {
      out.write(",\"args\":{");
      pairs(args);
      out.write('}');
    }
  }

  private void pairs(Object[] pairs) throws IOException {
    for (int i = 0; i + 1 < pairs.length; i += 2) {
      if (i > 0) {
        out.write(',');
      }
      string((String) pairs[i]);
      out.write(':');
      value(pairs[i + 1]);
    }
  }

  private void value(Object v) throws IOException {
    if (v instanceof String s) {
      string(s);
    } else if (v instanceof Integer || v instanceof Long || v instanceof Boolean) {
      out.write(v.toString());
    } else if (v instanceof Micros m) {
      micros(m.nanos());
    } else {
      throw new IllegalArgumentException("not a trace argument: " + v);
    }
  }

  /** A duration as an argument: written in microseconds like the times. */
  record Micros(long nanos) {
  }

  /**
   * Writes nanoseconds as microseconds: whole when they are, else with three decimals. A reader
   * that parses the number into a double and multiplies by 1000 (as older Perfetto does) must get
   * the nanoseconds back, or slices that end together would seem to cross; where that product
   * would fall a hair short of the integer, a fourth decimal {@code 5} (half a nanosecond, cut
   * off by readers that parse the decimals exactly) keeps it on the right side.
   */
  void micros(long nanos) throws IOException {
    long ns = Math.max(0, nanos);
    out.write(Long.toString(ns / 1000));
    int frac = (int) (ns % 1000);
    if (frac == 0) {
      return;
    }
    out.write('.');
    out.write((char) ('0' + frac / 100));
    out.write((char) ('0' + frac / 10 % 10));
    out.write((char) ('0' + frac % 10));
    if ((long) (ns / 1000.0 * 1000.0) != ns) {
      out.write('5');
    }
  }

  /** Writes {@code s} as a JSON string of ASCII characters. */
  void string(String s) throws IOException {
    out.write('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> out.write("\\\"");
        case '\\' -> out.write("\\\\");
        case '\n' -> out.write("\\n");
        case '\r' -> out.write("\\r");
        case '\t' -> out.write("\\t");
        case '\b' -> out.write("\\b");
        case '\f' -> out.write("\\f");
        default -> {
          if (c < 0x20 || c >= 0x7f) {
            out.write("\\u");
            String hex = Integer.toHexString(c);
            for (int k = hex.length(); k < 4; k++) {
              out.write('0');
            }
            out.write(hex);
          } else {
            out.write(c);
          }
        }
      }
    }
    out.write('"');
  }
}
