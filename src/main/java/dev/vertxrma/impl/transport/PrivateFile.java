package dev.vertxrma.impl.transport;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * The check ssh makes of a key file, for the files that hold secrets (a job secret, the user's
 * job key and its directory): the file belongs to this process's user and neither its group nor
 * others have any access to it. A file that fails it is refused with the fix in the message.
 */
public final class PrivateFile {

  private static final Set<PosixFilePermission> OTHERS = Set.of(PosixFilePermission.GROUP_READ,
      PosixFilePermission.GROUP_WRITE, PosixFilePermission.GROUP_EXECUTE, PosixFilePermission.OTHERS_READ,
      PosixFilePermission.OTHERS_WRITE, PosixFilePermission.OTHERS_EXECUTE);

  private PrivateFile() {
  }

  /**
   * Why {@code p} may not hold a secret, or {@code null} if it may: it is not a regular file
   * (a directory when {@code directory}), another user owns it, or its group or others have any
   * access to it ({@code chmod 600}, {@code chmod 700} for a directory, is the fix then). A link
   * is refused when {@code options} has {@link LinkOption#NOFOLLOW_LINKS}, else its target is
   * checked. On a file system without POSIX permissions only the owner is checked.
   *
   * @throws IOException if {@code p} cannot be looked at (e.g. it does not exist)
   */
  public static String problem(Path p, boolean directory, LinkOption... options) throws IOException {
    if (!Files.exists(p, options)) {
      throw new java.nio.file.NoSuchFileException(p.toString());
    }
    if (directory ? !Files.isDirectory(p, options) : !Files.isRegularFile(p, options)) {
      return p + " is not a " + (directory ? "directory" : "regular file")
          + (options.length > 0 ? " (a link is not taken)" : "");
    }
    String owner = ownerProblem(p, options);
    if (owner != null) {
      return owner;
    }
    Set<PosixFilePermission> perms;
    try {
      perms = Files.getPosixFilePermissions(p, options);
    } catch (UnsupportedOperationException e) {
      return null;
    }
    Set<PosixFilePermission> open = new java.util.HashSet<>(perms);
    open.retainAll(OTHERS);
    if (!open.isEmpty()) {
      return p + " is open to other users (" + PosixFilePermissions.toString(perms) + "): chmod "
          + (directory ? "700" : "600") + " " + p;
    }
    return null;
  }

  /** Another user owns {@code p}: the message; compared by user id where the system tells it. */
  private static String ownerProblem(Path p, LinkOption... options) throws IOException {
    Integer mine = ownUid();
    if (mine != null) {
      Object theirs;
      try {
        theirs = Files.getAttribute(p, "unix:uid", options);
      } catch (UnsupportedOperationException | IllegalArgumentException e) {
        theirs = null;
      }
      if (theirs instanceof Integer uid) {
        return uid.intValue() == mine.intValue() ? null
            : p + " belongs to user id " + uid + ", not to this process's user id " + mine + ": give the file to that "
                + "user (chown), or run as its owner";
      }
    }
    String owner = Files.getOwner(p, options).getName();
    String me = System.getProperty("user.name");
    return owner.equals(me) ? null : p + " belongs to " + owner + ", not to " + me + ": give the file to " + me
        + " (chown), or run as its owner";
  }

  /**
   * This process's user id, from the owner of {@code /proc/self} (Linux), or {@code null}: a
   * user id works where the user has no name in the system's user database (a container run
   * with {@code --user UID}), which a comparison of names would not.
   */
  private static Integer ownUid() {
    try {
      Object uid = Files.getAttribute(Path.of("/proc/self"), "unix:uid");
      return uid instanceof Integer i ? i : null;
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }
}
