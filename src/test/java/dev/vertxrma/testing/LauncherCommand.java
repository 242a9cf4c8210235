package dev.vertxrma.testing;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;

/**
 * The start of a command line that runs a JVM as a user of the Vert.x launchers would: this JVM's
 * {@code java}, the project's {@code conf/jvm.options} and this JVM's class path. Tests append the
 * launcher, the verticle and its options.
 */
public final class LauncherCommand {

  private LauncherCommand() {
  }

  /** The project's directory (where {@code conf/} is). */
  public static File home() {
    return new File(System.getProperty("rma.home", System.getProperty("user.dir")));
  }

  /**
   * {@code java}, the flags of {@code conf/jvm.options} and {@link LaunchClassPath#jvmFlags()}, and
   * {@code -cp} this JVM's class path as {@link LaunchClassPath#jar()}: a list to extend.
   */
  public static List<String> java() throws IOException {
    List<String> cmd = new ArrayList<>();
    cmd.add(System.getProperty("java.home") + File.separator + "bin" + File.separator + "java");
    for (String line : Files.readAllLines(home().toPath().resolve("conf/jvm.options"))) {
      if (!line.isBlank() && !line.startsWith("#")) {
        cmd.add(line.trim());
      }
    }
    cmd.addAll(LaunchClassPath.jvmFlags());
    cmd.add("-cp");
    cmd.add(LaunchClassPath.jar());
    return cmd;
  }
}
