package io.streamtrain.kafka;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.security.GeneralSecurityException;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSocket;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.apache.kafka.common.utils.Utils;

/**
 * The first thing a command or a job does with Kafka: one short call that shows its clients can
 * talk to the cluster, so that a client whose security settings do not fit the listener fails
 * within seconds with a message naming the problem. A wrong password or certificate fails that
 * call at once; but a client without TLS (no {@code --kafka-properties}: plaintext) talking to a
 * TLS listener is only ever disconnected by the broker, and its calls would time out after tens
 * of seconds with nothing said about security. When the call is not answered, the bootstrap
 * addresses are asked for a TLS handshake: one that speaks TLS to a client that does not is named.
 * A call unanswered for any other reason (a broker down or slow) is left to the caller's own
 * calls, which wait for it or fail on their own timeouts.
 */
public final class KafkaPreflight {
    /** How long the probe call waits: a reachable cluster answers in milliseconds. */
    static final Duration PROBE_TIMEOUT = Duration.ofSeconds(3);
    private static final int HANDSHAKE_TIMEOUT_MS = 2_000;

    private KafkaPreflight() {}

    /**
     * Returns when the cluster answered, or did not answer for a reason other than the client's
     * settings.
     *
     * @throws KafkaException naming the authentication failure, or the listener that wants TLS
     */
    public static void check(KafkaConnection kafka) {
        Admin admin = kafka.client()
                .withDefault(AdminClientConfig.CLIENT_ID_CONFIG, "streamtrain-preflight")
                .require(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, PROBE_TIMEOUT.toMillis())
                .require(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, PROBE_TIMEOUT.toMillis())
                .admin();
        try {
            admin.describeCluster().clusterId().get(PROBE_TIMEOUT.toMillis() + 1_000, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof AuthenticationException) {
                throw new KafkaException("Kafka at " + kafka.bootstrapServers() + ": " + Topics.why(e.getCause()), e.getCause());
            }
            if (e.getCause() instanceof org.apache.kafka.common.errors.TimeoutException) {
                unanswered(kafka);
            }
        } catch (TimeoutException e) {
            unanswered(kafka);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KafkaException("interrupted while reaching Kafka at " + kafka.bootstrapServers(), e);
        } finally {
            admin.close(Duration.ZERO);
        }
    }

    private static void unanswered(KafkaConnection kafka) {
        SecurityProtocol protocol = protocol(kafka);
        if (protocol == SecurityProtocol.SSL || protocol == SecurityProtocol.SASL_SSL) {
            return;
        }
        for (String address : kafka.bootstrapServers().split(",")) {
            Optional<String> tls = speaksTls(address.trim());
            if (tls.isPresent()) {
                throw new KafkaException("Kafka at " + address.trim() + " did not answer: its listener speaks TLS (" + tls.get()
                        + "), but this client's security.protocol is " + protocol + ". Give the client properties of a secured"
                        + " listener, e.g. --kafka-properties FILE with security.protocol=SASL_SSL and sasl.* (or SSL and"
                        + " ssl.keystore.* for client certificates), or streamtrain.kafka.properties.<key> (docs/security.md)");
            }
        }
    }

    private static SecurityProtocol protocol(KafkaConnection kafka) {
        String name = kafka.clientProperties().getOrDefault(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG,
                CommonClientConfigs.DEFAULT_SECURITY_PROTOCOL);
        try {
            return SecurityProtocol.forName(name.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            return SecurityProtocol.PLAINTEXT; // the client itself refuses an unknown protocol, naming it
        }
    }

    /**
     * What shows that {@code address} speaks TLS: a completed handshake, the server's certificate
     * (which need not be trusted here: nothing is sent over the connection), or a TLS alert; empty
     * when it does not (a plaintext listener closes the connection on a ClientHello) or cannot be
     * reached.
     */
    static Optional<String> speaksTls(String address) {
        String host = Utils.getHost(address);
        Integer port = Utils.getPort(address);
        if (host == null || port == null) {
            return Optional.empty();
        }
        try (Socket plain = new Socket()) {
            plain.connect(new InetSocketAddress(host, port), HANDSHAKE_TIMEOUT_MS);
            plain.setSoTimeout(HANDSHAKE_TIMEOUT_MS);
            try (SSLSocket tls = (SSLSocket) SSLContext.getDefault().getSocketFactory().createSocket(plain, host, port, false)) {
                tls.startHandshake();
                return Optional.of("a TLS handshake completed");
            }
        } catch (SSLException e) {
            for (Throwable c = e; c != null; c = c.getCause()) {
                if (c instanceof GeneralSecurityException) {
                    return Optional.of("it presented a certificate");
                }
                if (c.getMessage() != null && c.getMessage().contains("Received fatal alert")) {
                    return Optional.of("it answered with a TLS alert");
                }
            }
            return Optional.empty();
        } catch (IOException | GeneralSecurityException e) {
            return Optional.empty();
        }
    }
}
