package dev.vertxrma.impl.transport;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.net.NetSocket;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.function.Consumer;

/**
 * The proof that both ends of a data-plane connection hold the job's secret, before any frame
 * crosses it. Records are {@code i32 length | bytes}; a proof-phase record's body is parts of
 * {@code u16 length | bytes}.
 *
 * <pre>
 * acceptor  → connector : CHALLENGE  magic "RMADP1", nonce A (32 bytes)
 * connector → acceptor  : PROOF      node id C, nonce B, HMAC(secret, "connector", job, C, A, B)
 * acceptor  → connector : PROOF      node id S, HMAC(secret, "acceptor", job, S, B, A)
 * </pre>
 *
 * Each end checks the other's code (constant-time) and, on the connecting side, that the peer is
 * the node it meant to reach; a wrong or late proof closes the connection (5 s to prove), and
 * until the proof holds a record is at most {@value DataLink#MAX_PROOF_RECORD} bytes. A stranger
 * who connects learns a random nonce and nothing else. The accepting side keeps at most {@value
 * UnprovenConnections#DEFAULT_MAX_PER_SOURCE} unproven connections per source address and {@value
 * UnprovenConnections#DEFAULT_MAX_TOTAL} in all ({@link UnprovenConnections}); a closed one keeps
 * no timer, and every failure before the proof (a reset, a close, a wrong or late proof, a
 * connection over the bounds) is counted in the rate-limited rejected-input log, not logged alone.
 */
final class SecretExchange {

  static final String MAGIC = "RMADP1";
  static final int NONCE_BYTES = 32;
  private static final SecureRandom RANDOM = new SecureRandom();

  private SecretExchange() {
  }

  /**
   * Connecting side: answers the challenge on {@code s}, checks the acceptor's proof that it is
   * {@code node}, then hands the proven socket to {@code open}.
   */
  static void prove(DataPlane plane, String node, NetSocket s, Consumer<NetSocket> open) {
    byte[] b = nonce();
    Proof proof = new Proof(plane, s);
    proof.expect(challenge -> {
      byte[] a = parseChallenge(challenge);
      if (a == null) {
        return proof.fail("an answer that is not a data-plane challenge");
      }
      s.write(record(plane.localNode().getBytes(StandardCharsets.UTF_8), b,
          plane.secret().mac(bytes("connector"), bytes(plane.jobName()), bytes(plane.localNode()), a, b)));
      proof.expect(answer -> {
        byte[][] p = parseProof(answer, 2);
        if (p == null || !node.equals(new String(p[0], StandardCharsets.UTF_8))
            || !plane.secret().verify(p[1], bytes("acceptor"), bytes(plane.jobName()), p[0], b, a)) {
          return proof.fail("a data-plane peer at " + s.remoteAddress() + " that did not prove the job's secret");
        }
        proof.done(node);
        open.accept(s);
        return true;
      });
      return true;
    });
  }

  /** Accepting side: challenge a new connection; bind it to its link once the peer proved the secret. */
  static void accept(DataPlane plane, NetSocket s, String source) {
    byte[] a = nonce();
    Proof proof = new Proof(plane, s, source);
    s.write(record(MAGIC.getBytes(StandardCharsets.US_ASCII), a));
    proof.expect(answer -> {
      byte[][] p = parseProof(answer, 3);
      if (p == null || p[1].length != NONCE_BYTES
          || !plane.secret().verify(p[2], bytes("connector"), bytes(plane.jobName()), p[0], a, p[1])) {
        return proof.fail("a data-plane connection from " + s.remoteAddress() + " that did not prove the job's secret");
      }
      String peer = new String(p[0], StandardCharsets.UTF_8);
      s.write(record(bytes(plane.localNode()),
          plane.secret().mac(bytes("acceptor"), bytes(plane.jobName()), bytes(plane.localNode()), p[1], a)));
      proof.done(peer);
      plane.bindIncoming(peer, s);
      return true;
    });
  }

  private static byte[] nonce() {
    byte[] n = new byte[NONCE_BYTES];
    RANDOM.nextBytes(n);
    return n;
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** A proof-phase record: its parts, each {@code u16 length | bytes}. */
  static Buffer record(byte[]... parts) {
    Buffer b = Buffer.buffer();
    b.appendInt(0);
    for (byte[] p : parts) {
      b.appendUnsignedShort(p.length).appendBytes(p);
    }
    b.setInt(0, b.length() - 4);
    return b;
  }

  /** Splits a proof-phase record body into exactly {@code n} parts, or {@code null} if it is not that. */
  static byte[][] parseProof(Buffer body, int n) {
    byte[][] parts = new byte[n][];
    int p = 0;
    for (int i = 0; i < n; i++) {
      if (p + 2 > body.length()) {
        return null;
      }
      int len = body.getUnsignedShort(p);
      p += 2;
      if (len > body.length() - p) {
        return null;
      }
      parts[i] = body.getBytes(p, p + len);
      p += len;
    }
    return p == body.length() ? parts : null;
  }

  private static byte[] parseChallenge(Buffer body) {
    byte[][] p = parseProof(body, 2);
    if (p == null || !MAGIC.equals(new String(p[0], StandardCharsets.US_ASCII)) || p[1].length != NONCE_BYTES) {
      return null;
    }
    return p[1];
  }
}
