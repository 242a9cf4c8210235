package dev.vertxrma.impl.launch;

import java.util.ArrayList;
import java.util.List;

/**
 * Slurm's compressed host lists, as {@code SLURM_JOB_NODELIST} and {@code SLURM_STEP_NODELIST}
 * carry them: entries separated by commas, each a name with bracketed ranges, e.g.
 * {@code node[01-03,07],gpu5} (node01, node02, node03, node07, gpu5) or {@code r[1-2]n[1-2]}
 * (r1n1, r1n2, r2n1, r2n2). A range keeps the width of its first number ({@code 08-10}: 08, 09, 10;
 * {@code 8-10}: 8, 9, 10).
 */
final class SlurmHostList {

  /** The most hosts one list may expand to (a typo such as {@code n[1-999999999]} is refused, not expanded). */
  static final int MAX_HOSTS = 1 << 20;

  private SlurmHostList() {
  }

  /**
   * The host names {@code list} stands for, in order (a name listed twice appears twice).
   *
   * @throws IllegalArgumentException naming what is wrong: an empty entry, an unbalanced bracket,
   *     a range that is not {@code N} or {@code N-M} with {@code N <= M}, more than
   *     {@link #MAX_HOSTS} hosts
   */
  static List<String> expand(String list) {
    if (list == null || list.isBlank()) {
      throw new IllegalArgumentException("the host list is empty");
    }
    List<String> hosts = new ArrayList<>();
    for (String entry : entries(list.trim())) {
      if (entry.isEmpty()) {
        throw new IllegalArgumentException("'" + list + "' has an empty entry");
      }
      expandEntry(list, entry, hosts);
    }
    return hosts;
  }

  /** The entries of {@code list}: split at the commas outside brackets. */
  private static List<String> entries(String list) {
    List<String> entries = new ArrayList<>();
    int depth = 0;
    int start = 0;
    for (int i = 0; i < list.length(); i++) {
      char c = list.charAt(i);
      if (c == '[') {
        if (++depth > 1) {
          throw new IllegalArgumentException("'" + list + "' nests a bracket at position " + (i + 1));
        }
      } else if (c == ']') {
        if (--depth < 0) {
          throw new IllegalArgumentException("'" + list + "' closes a bracket it never opened at position " + (i + 1));
        }
      } else if (c == ',' && depth == 0) {
        entries.add(list.substring(start, i).trim());
        start = i + 1;
      } else if (Character.isWhitespace(c) || Character.isISOControl(c)) {
        throw new IllegalArgumentException("'" + list + "' has a blank or control character at position " + (i + 1));
      }
    }
    if (depth != 0) {
      throw new IllegalArgumentException("'" + list + "' leaves a bracket open");
    }
    entries.add(list.substring(start).trim());
    return entries;
  }

  /** Appends the names of one entry ({@code prefix[ranges]rest}) to {@code out}. */
  private static void expandEntry(String list, String entry, List<String> out) {
    int open = entry.indexOf('[');
    if (open < 0) {
      add(list, entry, out);
      return;
    }
    int close = entry.indexOf(']', open);
    String prefix = entry.substring(0, open);
    String rest = entry.substring(close + 1);
    String ranges = entry.substring(open + 1, close);
    if (ranges.isEmpty()) {
      throw new IllegalArgumentException("'" + list + "': " + entry + " has an empty range []");
    }
    for (String range : ranges.split(",", -1)) {
      int dash = range.indexOf('-');
      String lo = dash < 0 ? range : range.substring(0, dash);
      String hi = dash < 0 ? range : range.substring(dash + 1);
      if (!digits(lo) || !digits(hi)) {
        throw new IllegalArgumentException("'" + list + "': '" + range + "' in " + entry
            + " is not a number or a range N-M");
      }
      long from = Long.parseLong(lo);
      long to = Long.parseLong(hi);
      if (to < from) {
        throw new IllegalArgumentException("'" + list + "': range " + range + " in " + entry + " runs backwards");
      }
      if (to - from >= MAX_HOSTS - out.size()) {
        throw new IllegalArgumentException("'" + list + "' names more than " + MAX_HOSTS + " hosts");
      }
      for (long n = from; n <= to; n++) {
        String number = String.valueOf(n);
        StringBuilder padded = new StringBuilder(prefix);
        for (int w = number.length(); w < lo.length(); w++) {
          padded.append('0');
        }
        padded.append(number);
        // a second bracket after this one (r[1-2]n[1-2]): expand it for each name of the first
        expandEntry(list, padded + rest, out);
      }
    }
  }

  private static void add(String list, String name, List<String> out) {
    if (out.size() >= MAX_HOSTS) {
      throw new IllegalArgumentException("'" + list + "' names more than " + MAX_HOSTS + " hosts");
    }
    out.add(name);
  }

  private static boolean digits(String s) {
    if (s.isEmpty() || s.length() > 18) {
      return false;
    }
    for (int i = 0; i < s.length(); i++) {
      if (s.charAt(i) < '0' || s.charAt(i) > '9') {
        return false;
      }
    }
    return true;
  }
}
