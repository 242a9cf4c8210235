package dev.vertxrma.impl.comm;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The proofs of {@link SharedMemoryDomain} are untrusted input: only a well-formed proof naming a
 * file of ours, in this rank's directory, with the same token, makes another rank a sharer.
 */
class SharedMemoryDomainTest {

  private static final String NAME = "domain-4242.18c3a9f1e2b.effffffc-job-1-0123abcd-0123-4567-89ab-0123456789ab";

  private static byte[] proof(String name, byte[] token) {
    byte[] n = name.getBytes(StandardCharsets.UTF_8);
    return ByteBuffer.allocate(4 + n.length + token.length).putInt(n.length).put(n).put(token).array();
  }

  @Test
  void onlyAMatchingFileInThisDirectoryProvesSharing(@TempDir Path root) throws Exception {
    Path dir = Files.createDirectory(root.resolve("shm"));
    byte[] token = new byte[16];
    token[3] = 7;
    Files.write(dir.resolve(NAME), token);
    byte[] other = token.clone();
    other[3] = 8;
    byte[] secret = new byte[16];
    Files.write(root.resolve("passwd"), secret);
    List<byte[]> forged = List.of(
        new byte[0],                              // a rank that proved nothing
        new byte[] {0, 0, 0, 99, 1},              // malformed
        proof("../passwd", secret),               // a path out of the directory
        proof(NAME, other),                       // the file, another token
        proof(NAME.replace('0', '1'), token),     // no such file
        new byte[20]);                            // this rank (5)
    assertEquals(5, SharedMemoryDomain.lowestSharer(dir, forged, 5), "no forged proof holds");
    List<byte[]> real = List.of(new byte[0], proof(NAME, token), new byte[20]);
    assertEquals(1, SharedMemoryDomain.lowestSharer(dir, real, 2), "a matching file proves sharing");
    assertEquals(0, SharedMemoryDomain.lowestSharer(dir, real, 0), "a rank is its own lowest sharer");
  }
}
