package dev.vertxrma.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The fenced code blocks of README.md and docs/*.md, with the marker that says what each is.
 *
 * <p>A marker is an HTML comment (invisible on the rendered page) on the line right before the
 * opening fence: {@code <!-- snippet: KIND ... -->}. The kinds, for {@code ```java} blocks
 * ({@code DocSnippetsTest} compiles and runs them):
 *
 * <ul>
 *   <li>no marker: a <b>whole source file</b>, compiled as it is. A class with
 *       {@code public static void main(String[])} is run in a JVM of its own and must exit with
 *       status 0 (so it must close what it opens); a public {@code RankProgram} class without
 *       {@code main} is run as a job of 4 ranks and must succeed.
 *   <li>{@code <!-- snippet: file PATH -->}: a whole source file as above, which is also the file
 *       {@code PATH} of the project the page builds (the starter project of
 *       docs/your-project.md, whose {@code ```xml} block with the same marker,
 *       {@code file pom.xml}, is its pom; {@code ConsumerProjectTest} builds and runs it).
 *   <li>{@code <!-- snippet: fragment (PARAMETERS) -->}: statements, compiled as the body of a
 *       method whose parameters ({@code Comm world, Win win}: Java's syntax) declare the variables
 *       the fragment uses but does not make. Compiled only.
 *   <li>{@code <!-- snippet: members -->}: methods or fields, compiled as the body of a class.
 *       Compiled only.
 *   <li>{@code <!-- snippet: not compiled: REASON -->}: left alone, for the reason given. Rare.
 * </ul>
 *
 * <p>Fragments and members see the imports of {@code DocSnippetsTest.IMPORTS} (the library's
 * packages, Vert.x core, RxJava, java.util, JUnit's assertions); a whole file has its own.
 */
public final class DocBlocks {

  /** The marker on the line before a fence. */
  private static final Pattern MARKER = Pattern.compile("^\\s*<!--\\s*snippet:\\s*(.*?)\\s*-->\\s*$");
  private static final Pattern FENCE = Pattern.compile("^(\\s*)```(\\w*)\\s*$");

  /** What a marker says a block is. */
  public enum Kind { WHOLE, FILE, FRAGMENT, MEMBERS, NOT_COMPILED }

  /**
   * One fenced block.
   *
   * @param doc the page, relative to the project's directory (README.md, docs/x.md)
   * @param line the page's line number (1-based) of the block's first code line
   * @param language the fence's info string ({@code java}, {@code xml}, ...)
   * @param kind what the marker says
   * @param argument the marker's argument: the path of {@link Kind#FILE}, the parameters of
   *     {@link Kind#FRAGMENT}, the reason of {@link Kind#NOT_COMPILED}; empty otherwise
   * @param code the block's text, indentation of the fence removed, each line ending in a newline
   */
  public record Block(String doc, int line, String language, Kind kind, String argument, String code) {

    /** {@code doc:line}, where an error in the block is reported. */
    public String where() {
      return doc + ":" + line;
    }
  }

  private DocBlocks() {
  }

  /** The pages: README.md, then docs/*.md in name order. */
  public static List<Path> pages(Path home) {
    List<Path> pages = new ArrayList<>();
    pages.add(home.resolve("README.md"));
    try (Stream<Path> docs = Files.list(home.resolve("docs"))) {
      docs.filter(p -> p.getFileName().toString().endsWith(".md")).sorted().forEach(pages::add);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return pages;
  }

  /** Every fenced block of every page. */
  public static List<Block> all(Path home) {
    List<Block> blocks = new ArrayList<>();
    for (Path page : pages(home)) {
      blocks.addAll(of(home, page));
    }
    return blocks;
  }

  /**
   * The fenced blocks of {@code page}.
   *
   * @throws IllegalArgumentException for a marker that names no kind, lacks its argument, or stands
   *     before no fence, and for a fence that is never closed
   */
  public static List<Block> of(Path home, Path page) {
    String doc = home.relativize(page).toString();
    List<String> lines;
    try {
      lines = Files.readAllLines(page, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    List<Block> blocks = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      Matcher marker = MARKER.matcher(lines.get(i));
      if (marker.matches() && (i + 1 >= lines.size() || !FENCE.matcher(lines.get(i + 1)).matches())) {
        throw new IllegalArgumentException(doc + ":" + (i + 1) + ": a snippet marker must stand on the line "
            + "right before a code block's opening fence");
      }
      Matcher fence = FENCE.matcher(lines.get(i));
      if (!fence.matches()) {
        continue;
      }
      String indent = fence.group(1);
      String language = fence.group(2);
      int start = i + 1;
      int end = start;
      while (end < lines.size() && !lines.get(end).equals(indent + "```")) {
        end++;
      }
      if (end == lines.size()) {
        throw new IllegalArgumentException(doc + ":" + (i + 1) + ": a code block that is never closed");
      }
      StringBuilder code = new StringBuilder();
      for (int k = start; k < end; k++) {
        String l = lines.get(k);
        code.append(l.startsWith(indent) ? l.substring(indent.length()) : l.strip()).append('\n');
      }
      Kind kind = Kind.WHOLE;
      String argument = "";
      Matcher m = i > 0 ? MARKER.matcher(lines.get(i - 1)) : null;
      if (m != null && m.matches()) {
        String said = m.group(1);
        String where = doc + ":" + i;
        if (said.startsWith("file ")) {
          kind = Kind.FILE;
          argument = said.substring("file ".length()).strip();
        } else if (said.startsWith("fragment")) {
          kind = Kind.FRAGMENT;
          argument = said.substring("fragment".length()).strip();
          if (!argument.startsWith("(") || !argument.endsWith(")")) {
            throw new IllegalArgumentException(where + ": write a fragment's variables as a parameter list: "
                + "<!-- snippet: fragment (Comm world, Win win) -->, or () for none");
          }
          argument = argument.substring(1, argument.length() - 1).strip();
        } else if (said.equals("members")) {
          kind = Kind.MEMBERS;
        } else if (said.startsWith("not compiled:")) {
          kind = Kind.NOT_COMPILED;
          argument = said.substring("not compiled:".length()).strip();
          if (argument.isEmpty()) {
            throw new IllegalArgumentException(where + ": 'not compiled' needs its reason after the colon");
          }
        } else {
          throw new IllegalArgumentException(where + ": unknown snippet marker '" + said + "' (file PATH, "
              + "fragment (PARAMETERS), members, not compiled: REASON)");
        }
        if (kind == Kind.FILE && argument.isEmpty()) {
          throw new IllegalArgumentException(where + ": 'file' needs the path of the file in the project");
        }
      }
      blocks.add(new Block(doc, start + 1, language, kind, argument, code.toString()));
      i = end;
    }
    return blocks;
  }
}
