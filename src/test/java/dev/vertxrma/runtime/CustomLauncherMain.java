package dev.vertxrma.runtime;

/**
 * An application's own main class that hands its arguments to the Vert.x application launcher,
 * as a user wrapping the launcher would: the JVM's command line names this class, not a launcher.
 */
public final class CustomLauncherMain {

  private CustomLauncherMain() {
  }

  /** Runs {@code io.vertx.launcher.application.VertxApplication} with {@code args}. */
  public static void main(String[] args) {
    io.vertx.launcher.application.VertxApplication.main(args);
  }
}
