package dev.vertxrma.impl.transport;

import dev.vertxrma.ErrorClass;
import dev.vertxrma.RmaException;
import io.vertx.core.http.ClientAuth;
import io.vertx.core.net.NetClientOptions;
import io.vertx.core.net.NetServerOptions;
import io.vertx.core.net.PemTrustOptions;
import io.vertx.core.net.PfxOptions;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Optional mutual TLS on the data plane, from a configuration directory's {@code tls/} (made by
 * {@code bin/rmatls}): {@code ca.pem}, the job-private CA, is the only trust anchor (never
 * trust-all); {@code node.p12} with {@code password} holds the JVM's key and certificate, which
 * both ends present (client authentication required). Host names are not checked: a certificate
 * of the job's CA is the proof, and the HMAC challenge-response on the secret still runs inside
 * the TLS session.
 */
public final class DataPlaneTls {

  private final Path dir;
  private final String password;

  private DataPlaneTls(Path dir, String password) {
    this.dir = dir;
    this.password = password;
  }

  /**
   * The TLS settings of a job: from {@code tlsDirectory} (the transport options', {@code -Drma.tls}),
   * else from {@code tls/} in {@code configDirectory} (the cluster options', {@code -Drma.conf});
   * {@code null} (plain TCP) when neither is given or the configuration directory holds no TLS
   * material.
   *
   * @param tlsDirectory a directory that must hold the TLS material, or {@code null}
   * @param configDirectory a configuration directory whose {@code tls/} may hold it, or {@code null}
   * @throws RmaException ARG when the directory holds some of the files but not all
   */
  public static DataPlaneTls fromConfiguration(String tlsDirectory, String configDirectory) {
    if (tlsDirectory != null && !tlsDirectory.isBlank()) {
      return of(Path.of(tlsDirectory), true);
    }
    return configDirectory == null || configDirectory.isBlank() ? null : of(Path.of(configDirectory, "tls"), false);
  }

  /**
   * The settings in {@code dir}; {@code null} when it has none and they are not {@code required}.
   *
   * @throws RmaException ARG when files are missing (all of them, if {@code required}) or unreadable
   */
  public static DataPlaneTls of(Path dir, boolean required) {
    Path ca = dir.resolve("ca.pem");
    Path node = dir.resolve("node.p12");
    Path pass = dir.resolve("password");
    boolean any = Files.exists(ca) || Files.exists(node) || Files.exists(pass);
    if (!any && !required) {
      return null;
    }
    for (Path p : new Path[] {ca, node, pass}) {
      if (!Files.isReadable(p)) {
        throw RmaException.of(ErrorClass.ARG, "data-plane TLS: %s is missing or unreadable; make the directory with "
            + "bin/rmatls CONF-DIR (it writes CONF-DIR/tls/ca.pem, node.p12 and password)", p);
      }
    }
    try {
      return new DataPlaneTls(dir, Files.readString(pass, StandardCharsets.UTF_8).trim());
    } catch (IOException e) {
      throw new RmaException(ErrorClass.ARG, "data-plane TLS: cannot read " + pass + ": " + e, e);
    }
  }

  /** The server side: TLS, this JVM's certificate, peers must present one of the job's CA. */
  NetServerOptions apply(NetServerOptions o) {
    return o.setSsl(true).setKeyCertOptions(key()).setTrustOptions(trust()).setClientAuth(ClientAuth.REQUIRED);
  }

  /** The client side: TLS, this JVM's certificate, the peer's must be of the job's CA. */
  NetClientOptions apply(NetClientOptions o) {
    return o.setSsl(true).setKeyCertOptions(key()).setTrustOptions(trust()).setHostnameVerificationAlgorithm("")
        .setTrustAll(false);
  }

  private PfxOptions key() {
    return new PfxOptions().setPath(dir.resolve("node.p12").toString()).setPassword(password).setAlias("node");
  }

  private PemTrustOptions trust() {
    return new PemTrustOptions().addCertPath(dir.resolve("ca.pem").toString());
  }

  @Override
  public String toString() {
    return "mutual TLS, trusting only " + dir.resolve("ca.pem");
  }
}
