package io.streamtrain.kafka;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.security.GeneralSecurityException;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
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
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.IllegalSaslStateException;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.apache.kafka.common.security.scram.ScramLoginModule;
import org.apache.kafka.common.utils.Utils;

/**
 * The first thing a command or a job does with Kafka: one short call that shows its clients can
 * talk to the cluster, so that a client whose security settings do not fit the listener fails
 * within seconds with a message naming the problem. A wrong password or certificate fails that
 * call at once; but a client without TLS (no {@code --kafka-properties}: plaintext) talking to a
 * TLS listener is only ever disconnected by the broker, and its calls would time out after tens
 * of seconds with nothing said about security. When the call is not answered, the bootstrap
 * addresses are asked for a TLS handshake: one that speaks TLS to a client that does not is named.
 * A client without SASL (PLAINTEXT or SSL) talking to a listener that wants SASL is disconnected the
 * same way; it is named when the listener, asked once more over the client's own transport with a
 * SASL handshake of a made-up user, refuses that user. A call unanswered for any other reason (a
 * broker down or slow) is left to the caller's own calls, which wait for it or fail on their own
 * timeouts.
 */
public final class KafkaPreflight {
    /** How long the probe call waits: a reachable cluster answers in milliseconds. */
    static final Duration PROBE_TIMEOUT = Duration.ofSeconds(3);
    private static final int HANDSHAKE_TIMEOUT_MS = 2_000;
    /** The SASL user of the probe that tells a listener wanting SASL: a name no cluster gives a user. */
    static final String PROBE_USER = "streamtrain-preflight-no-such-user";

    private KafkaPreflight() {}

    /**
     * Returns when the cluster answered, or did not answer for a reason other than the client's
     * settings.
     *
     * @throws KafkaException naming the authentication failure, or the listener that wants TLS
     */
    public static void check(KafkaConnection kafka) {
        try {
            describeCluster(kafka, kafka.client().withDefault(AdminClientConfig.CLIENT_ID_CONFIG, "streamtrain-preflight"));
        } catch (ExecutionException e) {
            if (e.getCause() instanceof AuthenticationException) {
                throw new KafkaException("Kafka at " + kafka.bootstrapServers() + ": " + Topics.why(e.getCause()), e.getCause());
            }
            if (e.getCause() instanceof org.apache.kafka.common.errors.TimeoutException) {
                unanswered(kafka);
            }
        } catch (TimeoutException e) {
            unanswered(kafka);
        }
    }

    /** The probe call, by an admin client of {@code client}'s settings: the cluster's id within {@link #PROBE_TIMEOUT}. */
    private static void describeCluster(KafkaConnection kafka, KafkaClientConfig client) throws ExecutionException, TimeoutException {
        Admin admin = client
                .require(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, PROBE_TIMEOUT.toMillis())
                .require(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, PROBE_TIMEOUT.toMillis())
                .admin();
        try {
            admin.describeCluster().clusterId().get(PROBE_TIMEOUT.toMillis() + 1_000, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KafkaException("interrupted while reaching Kafka at " + kafka.bootstrapServers(), e);
        } finally {
            admin.close(Duration.ZERO);
        }
    }

    private static void unanswered(KafkaConnection kafka) {
        List<String> reachable = Arrays.stream(kafka.bootstrapServers().split(",")).map(String::trim)
                .filter(KafkaPreflight::acceptsConnections).toList();
        if (reachable.isEmpty()) {
            return; // an outage, not a misconfiguration
        }
        SecurityProtocol protocol = protocol(kafka);
        if (protocol == SecurityProtocol.PLAINTEXT || protocol == SecurityProtocol.SASL_PLAINTEXT) {
            for (String address : reachable) {
                Optional<String> tls = speaksTls(address);
                if (tls.isPresent()) {
                    throw new KafkaException("Kafka at " + address + " did not answer: its listener speaks TLS (" + tls.get()
                            + "), but this client's security.protocol is " + protocol + ". Give the client properties of a secured"
                            + " listener, e.g. --kafka-properties FILE with security.protocol=SASL_SSL and sasl.* (or SSL and"
                            + " ssl.keystore.* for client certificates), or streamtrain.kafka.properties.<key> (docs/security.md)");
                }
            }
        }
        if (protocol == SecurityProtocol.PLAINTEXT || protocol == SecurityProtocol.SSL) {
            wantsSasl(kafka, protocol);
        }
    }

    private static boolean acceptsConnections(String address) {
        String host = Utils.getHost(address);
        Integer port = Utils.getPort(address);
        if (host == null || port == null) {
            return false;
        }
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), HANDSHAKE_TIMEOUT_MS);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * Fails, naming SASL, if the listener answers a SASL handshake over {@code protocol}'s transport:
     * it refuses the made-up user (a SCRAM user nobody creates, with a random password), or the
     * mechanism. Returns when it does not answer that either, or answers that it takes no SASL at
     * all: a listener without SASL that was only slow to answer the first call.
     */
    static void wantsSasl(KafkaConnection kafka, SecurityProtocol protocol) {
        SecurityProtocol withSasl = protocol == SecurityProtocol.SSL ? SecurityProtocol.SASL_SSL : SecurityProtocol.SASL_PLAINTEXT;
        String password = java.util.UUID.randomUUID().toString();
        KafkaClientConfig probe = kafka.client()
                .require(AdminClientConfig.CLIENT_ID_CONFIG, "streamtrain-preflight")
                .require(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, withSasl.name)
                .require(SaslConfigs.SASL_MECHANISM, "SCRAM-SHA-512")
                .require(SaslConfigs.SASL_JAAS_CONFIG, ScramLoginModule.class.getName() + " required username=\"" + PROBE_USER
                        + "\" password=\"" + password + "\";");
        try {
            describeCluster(kafka, probe);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof AuthenticationException && !(e.getCause() instanceof IllegalSaslStateException)) {
                throw new KafkaException("Kafka at " + kafka.bootstrapServers() + " did not answer: its listener wants SASL"
                        + " authentication (it answered a SASL handshake), but this client's security.protocol is " + protocol
                        + ". Give the client properties of the listener, e.g. --kafka-properties FILE with security.protocol="
                        + withSasl.name + ", sasl.mechanism and sasl.jaas.config, or streamtrain.kafka.properties.<key>"
                        + " (docs/security.md)");
            }
        } catch (TimeoutException e) {
            // not answered over SASL either: nothing to name
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
