package dev.vertxrma.impl.transport;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.RmaException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The secret of one job: the key of the HMAC-SHA256 codes with which the JVMs of a job prove to
 * each other that they belong to it (data-plane connections, handshake messages). Its text form
 * is Base64 of at least 16 random bytes; {@code bin/rmarun} makes a fresh one per job and hands it
 * to its JVMs in a file only the user can read, named by the environment variable
 * {@value #FILE_ENV}.
 */
public final class JobSecret {

  /** Environment variable naming the file that holds the job secret (Base64 text). */
  public static final String FILE_ENV = "RMA_JOB_SECRET_FILE";
  /** Bytes of a secret made by {@link #random()}. */
  public static final int RANDOM_BYTES = 32;
  private static final int MIN_BYTES = 16;
  private static final SecureRandom RANDOM = new SecureRandom();

  private final SecretKeySpec key;
  /** Initialised once (loading the JCA classes here, not later on an event loop); cloned per code. */
  private final Mac prototype;

  private JobSecret(byte[] bytes) {
    if (bytes.length < MIN_BYTES) {
      throw RmaException.of(ErrorClass.ARG, "a job secret needs at least %d bytes, got %d", MIN_BYTES, bytes.length);
    }
    this.key = new SecretKeySpec(bytes.clone(), "HmacSHA256");
    try {
      this.prototype = Mac.getInstance("HmacSHA256");
      prototype.init(key);
      ((Mac) prototype.clone()).doFinal(new byte[1]);
    } catch (GeneralSecurityException | CloneNotSupportedException e) {
      throw new IllegalStateException("HmacSHA256 is not available in this JVM", e);
    }
  }

  /** A fresh random secret. */
  public static JobSecret random() {
    byte[] b = new byte[RANDOM_BYTES];
    RANDOM.nextBytes(b);
    return new JobSecret(b);
  }

  /** The secret whose text form (Base64) is {@code text}; ARG if it is not one. */
  public static JobSecret parse(String text) {
    try {
      return new JobSecret(Base64.getDecoder().decode(text.trim()));
    } catch (IllegalArgumentException e) {
      throw new RmaException(ErrorClass.ARG, "a job secret is Base64 text; this one is not: " + e.getMessage());
    }
  }

  /**
   * The secret in {@code file} (Base64 text). As ssh does with its keys, the file is refused when
   * another user could read or replace it: it must belong to this JVM's user, and group and others
   * must have no access to it (mode 0600 or 0400; a link is followed, its target checked).
   *
   * @throws RmaException ARG if the file cannot be read, holds no secret, or is open to others or
   *     owned by another user (the message names the fix, e.g. {@code chmod 600 FILE})
   */
  public static JobSecret read(Path file) {
    String problem;
    try {
      problem = PrivateFile.problem(file, false);
    } catch (IOException e) {
      throw new RmaException(ErrorClass.ARG, "cannot read the job secret file " + file + ": " + e, e);
    }
    if (problem != null) {
      throw new RmaException(ErrorClass.ARG, "the job secret file is refused: " + problem);
    }
    try {
      return parse(Files.readString(file, StandardCharsets.US_ASCII));
    } catch (IOException e) {
      throw new RmaException(ErrorClass.ARG, "cannot read the job secret file " + file + ": " + e, e);
    }
  }

  /**
   * The secret in the file named by {@value #FILE_ENV} in {@code environment}, or {@code null} if
   * that is not set: for the edges of a program (launchers, a JVM's main), which read their
   * environment and hand the secret down; nothing below them reads the environment.
   */
  public static JobSecret fromEnvironment(java.util.Map<String, String> environment) {
    String file = environment.get(FILE_ENV);
    return file == null || file.isBlank() ? null : read(Path.of(file));
  }

  /** The text form (Base64), to write into a file only the user can read. */
  public String text() {
    return Base64.getEncoder().encodeToString(key.getEncoded());
  }

  /**
   * HMAC-SHA256 over {@code parts}, each preceded by its length (so that no two different part
   * lists give the same input).
   */
  public byte[] mac(byte[]... parts) {
    try {
      Mac mac = (Mac) prototype.clone();
      byte[] len = new byte[4];
      for (byte[] p : parts) {
        int n = p.length;
        len[0] = (byte) (n >>> 24);
        len[1] = (byte) (n >>> 16);
        len[2] = (byte) (n >>> 8);
        len[3] = (byte) n;
        mac.update(len);
        mac.update(p);
      }
      return mac.doFinal();
    } catch (CloneNotSupportedException e) {
      throw new IllegalStateException("HmacSHA256 cannot be cloned in this JVM", e);
    }
  }

  /** HMAC over the UTF-8 bytes of {@code parts}. */
  public byte[] mac(String... parts) {
    byte[][] b = new byte[parts.length][];
    for (int i = 0; i < parts.length; i++) {
      b[i] = parts[i].getBytes(StandardCharsets.UTF_8);
    }
    return mac(b);
  }

  /** Whether {@code code} is the HMAC of {@code parts}, compared in constant time. */
  public boolean verify(byte[] code, byte[]... parts) {
    return code != null && MessageDigest.isEqual(code, mac(parts));
  }

  @Override
  public String toString() {
    return "JobSecret[hidden]";
  }
}
