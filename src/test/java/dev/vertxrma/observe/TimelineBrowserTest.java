package dev.vertxrma.observe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.samples.standard.LinkedList;
import dev.vertxrma.testing.Jobs;
import java.awt.image.BufferedImage;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The timeline as a person sees it: the linked-list sample on 4 ranks, traced, opened in a real
 * headless browser (Debian's {@code chromium}, which {@code .ci/run} installs). The page's script
 * runs without error (it draws the time axis) and the screenshot is a picture, not a blank page.
 * Skipped, saying why, where no chromium is installed. The screenshot is left in
 * {@code target/trace-screenshot.png}.
 */
class TimelineBrowserTest {

  @TempDir
  Path tmp;

  static String chromium() {
    for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin").split(File.pathSeparator)) {
      for (String name : List.of("chromium", "chromium-browser", "google-chrome")) {
        File f = new File(dir, name);
        if (f.canExecute()) {
          return f.getAbsolutePath();
        }
      }
    }
    return null;
  }

  private String browse(String chromium, String... args) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of(chromium, "--headless", "--no-sandbox", "--disable-gpu",
        "--hide-scrollbars", "--user-data-dir=" + tmp.resolve("profile")));
    cmd.addAll(List.of(args));
    File out = tmp.resolve("chromium.out").toFile();
    Process p = new ProcessBuilder(cmd).redirectErrorStream(false).redirectOutput(out)
        .redirectError(tmp.resolve("chromium.err").toFile()).start();
    boolean ended = p.waitFor(120, TimeUnit.SECONDS);
    if (!ended) {
      p.destroyForcibly();
    }
    assertTrue(ended, "chromium ended within 120 s: " + cmd);
    assertEquals(0, p.exitValue(), "chromium: " + Files.readString(tmp.resolve("chromium.err")));
    return Files.readString(out.toPath(), StandardCharsets.UTF_8);
  }

  @Test
  void aBrowserRendersTheLinkedListTimeline() throws Exception {
    String chromium = chromium();
    Assumptions.assumeTrue(chromium != null, "no chromium on PATH: install Debian's chromium (apt-get install -y "
        + "chromium, as .ci/run does) to check the timeline in a real browser");
    Path html = tmp.resolve("linked-list.html");
    Jobs.await(Jobs.start(Jobs.Mode.EMBEDDED, Jobs.options(4).setTraceFile(html.toString()),
        (world, args) -> new LinkedList().run(world, args)), 120);
    String url = html.toUri().toString();

    String dom = browse(chromium, "--dump-dom", url);
    assertTrue(dom.contains("class=\"tick\"") && dom.contains(" ms</text>"), "the page's script ran and drew the time "
        + "axis");

    Path png = Path.of(System.getProperty("rma.home", ".")).resolve("target/trace-screenshot.png");
    Files.createDirectories(png.getParent());
    Files.deleteIfExists(png);
    browse(chromium, "--screenshot=" + png, "--window-size=1400,900", url);
    assertTrue(Files.isRegularFile(png), "screenshot written");
    BufferedImage img = ImageIO.read(png.toFile());
    assertEquals(1400, img.getWidth());
    assertEquals(900, img.getHeight());
    Set<Integer> colours = new HashSet<>();
    double sum = 0;
    double sumSq = 0;
    long n = 0;
    for (int y = 0; y < img.getHeight(); y += 2) {
      for (int x = 0; x < img.getWidth(); x += 2) {
        int rgb = img.getRGB(x, y) & 0xffffff;
        colours.add(rgb);
        double lum = 0.299 * (rgb >> 16 & 255) + 0.587 * (rgb >> 8 & 255) + 0.114 * (rgb & 255);
        sum += lum;
        sumSq += lum * lum;
        n++;
      }
    }
    double mean = sum / n;
    double stddev = Math.sqrt(sumSq / n - mean * mean);
    assertTrue(stddev > 10, "not a blank page: luminance standard deviation " + stddev);
    assertTrue(colours.size() > 100, "lanes, bars, arrows and text in many colours: " + colours.size());
    assertTrue(colours.contains(0xedc948) || nearby(img, 0xedc948), "the lockAll epochs' bars are drawn");
  }

  /** Whether some pixel is within a few levels of {@code rgb} (bars are drawn slightly translucent). */
  private static boolean nearby(BufferedImage img, int rgb) {
    for (int y = 0; y < img.getHeight(); y++) {
      for (int x = 0; x < img.getWidth(); x++) {
        int p = img.getRGB(x, y);
        if (Math.abs((p >> 16 & 255) - (rgb >> 16 & 255)) + Math.abs((p >> 8 & 255) - (rgb >> 8 & 255))
            + Math.abs((p & 255) - (rgb & 255)) < 40) {
          return true;
        }
      }
    }
    return false;
  }
}
