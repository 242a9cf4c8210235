package dev.vertxrma.impl.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.RmaException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A job secret file ({@code RMA_JOB_SECRET_FILE}) is taken only when it is this user's and closed
 * to others, as ssh takes its keys; otherwise the job refuses it with ARG and the fix.
 */
class JobSecretFileTest {

  @TempDir
  Path dir;

  private Path secretFile(String mode) throws Exception {
    Path f = dir.resolve("job-" + mode + ".secret");
    Files.writeString(f, JobSecret.random().text() + "\n");
    Files.setPosixFilePermissions(f, PosixFilePermissions.fromString(mode));
    return f;
  }

  @ParameterizedTest
  @ValueSource(strings = {"rw-r--r--", "rw-r-----", "rw----r--", "rw--w----", "rw-rw-rw-"})
  void aFileOthersCanReachIsRefusedWithTheFix(String mode) throws Exception {
    Path f = secretFile(mode);
    RmaException e = assertThrows(RmaException.class, () -> JobSecret.read(f));
    assertEquals(ErrorClass.ARG, e.errorClass());
    assertTrue(e.getMessage().contains("chmod 600 " + f), e.getMessage());
    assertTrue(e.getMessage().contains(mode), e.getMessage());
    RmaException viaEnv = assertThrows(RmaException.class,
        () -> JobSecret.fromEnvironment(Map.of(JobSecret.FILE_ENV, f.toString())));
    assertEquals(ErrorClass.ARG, viaEnv.errorClass());
  }

  @ParameterizedTest
  @ValueSource(strings = {"rw-------", "r--------"})
  void aFileOnlyTheUserCanReadIsTaken(String mode) throws Exception {
    Path f = secretFile(mode);
    JobSecret s = JobSecret.read(f);
    assertEquals(Files.readString(f).trim(), s.text());
    assertEquals(s.text(), JobSecret.fromEnvironment(Map.of(JobSecret.FILE_ENV, f.toString())).text());
  }

  @Test
  void aLinkIsFollowedToItsTargetWhichIsChecked() throws Exception {
    Path open = secretFile("rw-r--r--");
    Path link = Files.createSymbolicLink(dir.resolve("link.secret"), open);
    RmaException e = assertThrows(RmaException.class, () -> JobSecret.read(link));
    assertTrue(e.getMessage().contains("chmod 600"), e.getMessage());
    Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rw-------"));
    assertEquals(Files.readString(open).trim(), JobSecret.read(link).text());
  }

  /** Another user's file, even of mode 0600, is refused: made so only where this test may chown (as root). */
  @Test
  void aFileOfAnotherUserIsRefused() throws Exception {
    Path f = secretFile("rw-------");
    UserPrincipal nobody;
    try {
      nobody = f.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("nobody");
      Files.setOwner(f, nobody);
    } catch (java.io.IOException e) {
      assumeTrue(false, "cannot give a file to user nobody here (not root): " + e);
      return;
    }
    RmaException e = assertThrows(RmaException.class, () -> JobSecret.read(f));
    assertEquals(ErrorClass.ARG, e.errorClass());
    assertTrue(e.getMessage().contains("belongs to"), e.getMessage());
    assertTrue(e.getMessage().contains("chown"), e.getMessage());
  }

  @Test
  void aMissingFileIsAnArgumentErrorNamingIt() {
    Path f = dir.resolve("none.secret");
    RmaException e = assertThrows(RmaException.class, () -> JobSecret.read(f));
    assertEquals(ErrorClass.ARG, e.errorClass());
    assertTrue(e.getMessage().contains(f.toString()), e.getMessage());
  }

  /**
   * The engine reads the secret's file the options name (JobOptions.setSecretFile), never the
   * environment: a job given a file open to others fails to start with ARG and the fix, and one
   * given a private file starts, embedded and clustered (a clustered job needs the secret).
   */
  @ParameterizedTest
  @org.junit.jupiter.params.provider.EnumSource(dev.vertxrma.testing.Jobs.Mode.class)
  void theJobReadsTheFileItsOptionsName(dev.vertxrma.testing.Jobs.Mode mode) throws Exception {
    Path open = secretFile("rw-r--r--");
    Throwable refused = dev.vertxrma.testing.Jobs.runExpectingFailure(mode,
        dev.vertxrma.testing.Jobs.options(2).setSecret(null).setSecretFile(open.toString()),
        (world, args) -> world.barrier());
    RmaException e = org.junit.jupiter.api.Assertions.assertInstanceOf(RmaException.class, refused);
    assertEquals(ErrorClass.ARG, e.errorClass(), e.getMessage());
    assertTrue(e.getMessage().contains("chmod 600 " + open), e.getMessage());
    Path own = secretFile("rw-------");
    dev.vertxrma.testing.Jobs.await(dev.vertxrma.testing.Jobs.start(mode,
        dev.vertxrma.testing.Jobs.options(2).setSecret(null).setSecretFile(own.toString()),
        (world, args) -> world.barrier()), 60);
  }
}
