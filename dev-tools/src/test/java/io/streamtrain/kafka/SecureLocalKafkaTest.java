package io.streamtrain.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtrain.testing.KafkaFixture;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The secured local broker ({@code streamtrain kafka --secure}): its two client listeners take the
 * properties files it writes, ACLs are enforced, and a client without the right credentials fails
 * within seconds, naming the problem.
 */
class SecureLocalKafkaTest {
    private final KafkaFixture fixture = KafkaFixture.secured();
    private final LocalKafka kafka = fixture.secureBroker();

    @Test
    void theWrittenClientPropertiesFilesReachBothListeners() throws Exception {
        Path dir = kafka.securityDir();
        KafkaConnection sasl = KafkaConnection.of(kafka.bootstrapServers(), dir.resolve("client.properties"));
        KafkaConnection mtls = KafkaConnection.of(kafka.mtlsBootstrapServers(), dir.resolve("client-mtls.properties"));
        assertEquals("SASL_SSL", sasl.clientProperties().get("security.protocol"));
        assertEquals("SCRAM-SHA-512", sasl.clientProperties().get("sasl.mechanism"));
        assertEquals("SSL", mtls.clientProperties().get("security.protocol"));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve("client.properties"))),
                "the password is the owner's only");

        String topic = "secure-roundtrip-" + System.nanoTime();
        Topics.ensure(sasl, Map.of(topic, 1)); // the client.properties user may create topics
        try (KafkaProducer<byte[], byte[]> producer = sasl.client().idempotent().producer()) {
            producer.send(new ProducerRecord<>(topic, "over SASL_SSL".getBytes())).get(30, TimeUnit.SECONDS);
        }
        try (KafkaProducer<byte[], byte[]> producer = mtls.client().idempotent().producer()) {
            producer.send(new ProducerRecord<>(topic, "over mTLS".getBytes())).get(30, TimeUnit.SECONDS);
        }
        List<ConsumerRecord<byte[], byte[]>> read = fixture.readAll(topic, true, Duration.ofSeconds(30));
        assertEquals(List.of("over SASL_SSL", "over mTLS"), read.stream().map(r -> new String(r.value())).toList());
    }

    /** As the Kubernetes manifests give the password: a mounted secret, read through Kafka's DirectoryConfigProvider. */
    @Test
    void theJaasConfigMayComeFromAMountedSecretThroughAConfigProvider(@TempDir Path secret) throws Exception {
        Map<String, String> sasl = kafka.connection().clientProperties();
        Files.writeString(secret.resolve("sasl.jaas.config"), sasl.get("sasl.jaas.config"));
        Map<String, String> viaProvider = new HashMap<>(sasl);
        viaProvider.put("config.providers", "dir");
        viaProvider.put("config.providers.dir.class", "org.apache.kafka.common.config.provider.DirectoryConfigProvider");
        viaProvider.put("sasl.jaas.config", "${dir:" + secret + ":sasl.jaas.config}");
        try (Admin admin = Topics.admin(new KafkaConnection(kafka.bootstrapServers(), viaProvider))) {
            assertFalse(admin.describeCluster().nodes().get(30, TimeUnit.SECONDS).isEmpty());
        }
    }

    @Test
    void aWrongPasswordFailsWithinSecondsNamingTheAuthentication() {
        KafkaConnection wrong = kafka.saslConnection(LocalKafkaSecurity.USER, "not-the-password");
        long t0 = System.nanoTime();
        KafkaException e = assertThrows(KafkaException.class, () -> KafkaPreflight.check(wrong));
        assertFastAndNamed(t0, e, "authentication failed (SaslAuthenticationException)");
        assertTrue(hasCause(e, AuthenticationException.class), messages(e));
    }

    /** The broker only disconnects a plaintext client; the pre-flight names the listener's TLS instead of timing out. */
    @Test
    void aClientWithoutCredentialsFailsWithinSecondsNamingTheSecurityProtocol() {
        KafkaConnection plaintext = KafkaConnection.to(kafka.bootstrapServers());
        long t0 = System.nanoTime();
        KafkaException e = assertThrows(KafkaException.class, () -> KafkaPreflight.check(plaintext));
        assertFastAndNamed(t0, e, "its listener speaks TLS");
        assertTrue(e.getMessage().contains("security.protocol is PLAINTEXT"), e.getMessage());
    }

    @Test
    void saslCredentialsWithoutTlsFailWithinSecondsNamingTheSecurityProtocol() {
        Map<String, String> noTls = new HashMap<>(kafka.connection().clientProperties());
        noTls.put("security.protocol", "SASL_PLAINTEXT");
        KafkaConnection client = new KafkaConnection(kafka.bootstrapServers(), noTls);
        long t0 = System.nanoTime();
        KafkaException e = assertThrows(KafkaException.class, () -> KafkaPreflight.check(client));
        assertFastAndNamed(t0, e, "security.protocol is SASL_PLAINTEXT");
    }

    /** TLS that the listener accepts, but no SASL: the broker disconnects it as it does a plaintext client; the pre-flight names SASL. */
    @Test
    void tlsWithoutSaslCredentialsFailsWithinSecondsNamingSasl() {
        Map<String, String> noSasl = new HashMap<>(kafka.connection().clientProperties());
        noSasl.keySet().removeIf(k -> k.startsWith("sasl."));
        noSasl.put("security.protocol", "SSL");
        KafkaConnection client = new KafkaConnection(kafka.bootstrapServers(), noSasl);
        long t0 = System.nanoTime();
        KafkaException e = assertThrows(KafkaException.class, () -> KafkaPreflight.check(client));
        assertFastAndNamed(t0, e, "its listener wants SASL authentication");
        assertTrue(e.getMessage().contains("security.protocol is SSL") && e.getMessage().contains("security.protocol=SASL_SSL"), e.getMessage());
    }

    /**
     * A plaintext listener slow to answer the first call (a loaded machine) is asked the SASL probe
     * next; it answers that it takes no SASL, which is not a listener wanting SASL.
     */
    @Test
    void aPlaintextListenerAnsweringTheSaslProbeIsNotTakenForOneThatWantsSasl() {
        KafkaPreflight.wantsSasl(KafkaFixture.shared().connection(), SecurityProtocol.PLAINTEXT);
    }

    /** Nobody listening is an outage, not a misconfiguration: the pre-flight leaves it to the callers, who wait for Kafka or time out. */
    @Test
    void aBrokerThatIsDownIsLeftToTheCallersOutageHandling() throws Exception {
        int free;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            free = s.getLocalPort();
        }
        long t0 = System.nanoTime();
        KafkaPreflight.check(KafkaConnection.to("127.0.0.1:" + free));
        assertTrue((System.nanoTime() - t0) / 1e9 < 10, "the pre-flight gives up within seconds");
    }

    @Test
    void anMtlsClientWithoutACertificateFailsWithinSecondsNamingTheHandshake() {
        Map<String, String> noCertificate = new HashMap<>(fixture.secureBroker().mtlsConnection().clientProperties());
        noCertificate.keySet().removeIf(k -> k.startsWith("ssl.keystore") || k.equals("ssl.key.password"));
        KafkaConnection anonymous = new KafkaConnection(kafka.mtlsBootstrapServers(), noCertificate);
        long t0 = System.nanoTime();
        KafkaException e = assertThrows(KafkaException.class, () -> KafkaPreflight.check(anonymous));
        assertFastAndNamed(t0, e, "authentication failed (SslAuthenticationException)");
        assertTrue(messages(e).contains("bad_certificate"), messages(e));
    }

    @Test
    void aPlaintextBrokerRefusesTheSecuredBrokersDirectory() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> LocalKafka.start(0, kafka.securityDir()));
        assertTrue(e.getMessage().contains("holds a secured broker"), e.getMessage());
    }

    @Test
    void aUserWithoutAclsIsRefused() throws Exception {
        String user = "nobody-" + System.nanoTime();
        String password = LocalCertificates.randomSecret();
        try (Admin admin = Topics.admin(kafka.adminConnection())) {
            admin.alterUserScramCredentials(List.of(new org.apache.kafka.clients.admin.UserScramCredentialUpsertion(user,
                    new org.apache.kafka.clients.admin.ScramCredentialInfo(org.apache.kafka.clients.admin.ScramMechanism.SCRAM_SHA_512, 8192),
                    password))).all().get(30, TimeUnit.SECONDS);
        }
        String topic = "acl-" + System.nanoTime();
        fixture.createTopic(topic, 1);
        KafkaConnection nobody = kafka.saslConnection(user, password);
        ExecutionException e = awaitAuthenticated(nobody, topic);
        assertTrue(e.getCause() instanceof TopicAuthorizationException, messages(e));
    }

    /** A new SCRAM user is known to the broker once the metadata reaches it: retry while authentication still fails. */
    private static ExecutionException awaitAuthenticated(KafkaConnection nobody, String topic) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (true) {
            try (KafkaProducer<byte[], byte[]> producer = nobody.client().idempotent().producer()) {
                producer.send(new ProducerRecord<>(topic, new byte[1])).get(30, TimeUnit.SECONDS);
                throw new AssertionError("a user without ACLs wrote to " + topic);
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof AuthenticationException) || System.nanoTime() > deadline) {
                    return e;
                }
            }
            Thread.sleep(200);
        }
    }

    private static void assertFastAndNamed(long t0, Throwable e, String named) {
        double seconds = (System.nanoTime() - t0) / 1e9;
        String messages = messages(e);
        assertTrue(messages.contains(named), "names '" + named + "': " + messages);
        assertTrue(seconds < 10, "failed after " + seconds + " s: " + messages);
        assertFalse(messages.contains("not-the-password"), messages);
    }

    private static boolean hasCause(Throwable t, Class<? extends Throwable> type) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (type.isInstance(c)) {
                return true;
            }
        }
        return false;
    }

    private static String messages(Throwable t) {
        StringBuilder s = new StringBuilder();
        for (Throwable c = t; c != null; c = c.getCause()) {
            s.append(c.getClass().getSimpleName()).append(": ").append(c.getMessage()).append('\n');
        }
        return s.toString();
    }
}
