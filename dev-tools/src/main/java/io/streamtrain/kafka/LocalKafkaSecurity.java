package io.streamtrain.kafka;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;

/**
 * What makes the local broker a secured one ({@code streamtrain kafka --secure}): a SASL_SSL
 * listener (SCRAM-SHA-512) on the client port, an mTLS listener (client certificates) on the next
 * port, and internal and controller listeners that only the broker's own certificate may use;
 * the StandardAuthorizer with the broker as the only super user, so every client needs ACLs.
 *
 * <p>{@link #setUp} creates the SCRAM user of {@code client.properties} and gives it and the mTLS
 * client certificate what the whole loop needs (docs/security.md): every topic, group and
 * transactional id, and creating topics, but not changing ACLs or the cluster.
 */
final class LocalKafkaSecurity {
    static final String SASL_LISTENER = "SASL_SSL";
    static final String MTLS_LISTENER = "MTLS";
    static final String INTERNAL_LISTENER = "INTERNAL";
    static final String CONTROLLER_LISTENER = "CONTROLLER";
    static final String USER = "streamtrain";
    static final String SASL_PROPERTIES = "client.properties";
    static final String MTLS_PROPERTIES = "client-mtls.properties";
    private static final String SCRAM = "SCRAM-SHA-512";
    private static final Duration SETUP_TIMEOUT = Duration.ofSeconds(30);

    private final Path dir;
    private final LocalCertificates certificates;
    private final String userPassword;

    private LocalKafkaSecurity(Path dir, LocalCertificates certificates, String userPassword) {
        this.dir = dir;
        this.certificates = certificates;
        this.userPassword = userPassword;
    }

    /** New certificates and a new user password in {@code dir}. */
    static LocalKafkaSecurity generate(Path dir) throws IOException {
        return new LocalKafkaSecurity(dir, LocalCertificates.generate(dir), LocalCertificates.randomSecret());
    }

    Path dir() {
        return dir;
    }

    /** The broker settings of the four listeners, their TLS stores, SCRAM and the authorizer. */
    Map<String, Object> brokerConfig(String host, int saslPort, int internalPort, int controllerPort) {
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("listeners", SASL_LISTENER + "://" + host + ":" + saslPort + "," + MTLS_LISTENER + "://" + host + ":" + (saslPort + 1)
                + "," + INTERNAL_LISTENER + "://" + host + ":" + internalPort + "," + CONTROLLER_LISTENER + "://" + host + ":" + controllerPort);
        c.put("advertised.listeners", SASL_LISTENER + "://" + host + ":" + saslPort + "," + MTLS_LISTENER + "://" + host + ":" + (saslPort + 1)
                + "," + INTERNAL_LISTENER + "://" + host + ":" + internalPort);
        c.put("listener.security.protocol.map", SASL_LISTENER + ":SASL_SSL," + MTLS_LISTENER + ":SSL," + INTERNAL_LISTENER + ":SSL,"
                + CONTROLLER_LISTENER + ":SSL");
        c.put("inter.broker.listener.name", INTERNAL_LISTENER);
        c.put("ssl.keystore.type", "PKCS12");
        c.put("ssl.keystore.location", certificates.brokerKeystore().toString());
        c.put("ssl.keystore.password", certificates.password());
        c.put("ssl.key.password", certificates.password());
        c.put("ssl.truststore.type", "PKCS12");
        c.put("ssl.truststore.location", certificates.truststore().toString());
        c.put("ssl.truststore.password", certificates.password());
        // Every SSL listener asks for a certificate of this CA; the SASL_SSL one authenticates by SCRAM instead.
        c.put("ssl.client.auth", "required");
        c.put("listener.name." + SASL_LISTENER.toLowerCase() + ".ssl.client.auth", "none");
        c.put("sasl.enabled.mechanisms", SCRAM);
        c.put("listener.name." + SASL_LISTENER.toLowerCase() + ".scram-sha-512.sasl.jaas.config",
                "org.apache.kafka.common.security.scram.ScramLoginModule required;");
        c.put("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer");
        c.put("super.users", LocalCertificates.brokerPrincipal());
        c.put("allow.everyone.if.no.acl.found", "false");
        return c;
    }

    /** The client properties of the broker's own identity (super user), for setting up users, ACLs and topics. */
    Map<String, String> brokerClient() {
        return sslClient(certificates.brokerKeystore());
    }

    /** The client properties of {@code client.properties}: SASL_SSL as {@link #USER}. */
    Map<String, String> saslClient() {
        return saslClient(USER, userPassword);
    }

    /** SASL_SSL (SCRAM-SHA-512) client properties for any user of this broker. */
    Map<String, String> saslClient(String user, String password) {
        Map<String, String> p = trusting();
        p.put("security.protocol", "SASL_SSL");
        p.put("sasl.mechanism", SCRAM);
        p.put("sasl.jaas.config", "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"" + user
                + "\" password=\"" + password + "\";");
        return p;
    }

    /** The client properties of {@code client-mtls.properties}: SSL with the client certificate. */
    Map<String, String> mtlsClient() {
        return sslClient(certificates.clientKeystore());
    }

    private Map<String, String> sslClient(Path keystore) {
        Map<String, String> p = trusting();
        p.put("security.protocol", "SSL");
        p.put("ssl.keystore.type", "PKCS12");
        p.put("ssl.keystore.location", keystore.toString());
        p.put("ssl.keystore.password", certificates.password());
        p.put("ssl.key.password", certificates.password());
        return p;
    }

    private Map<String, String> trusting() {
        Map<String, String> p = new LinkedHashMap<>();
        p.put("ssl.truststore.type", "PKCS12");
        p.put("ssl.truststore.location", certificates.truststore().toString());
        p.put("ssl.truststore.password", certificates.password());
        return p;
    }

    /** Writes {@code client.properties} and {@code client-mtls.properties} into the directory; returns them. */
    List<Path> writeClientProperties(String saslBootstrap, String mtlsBootstrap) throws IOException {
        return List.of(
                write(SASL_PROPERTIES, "SASL_SSL (SCRAM-SHA-512) as user " + USER + ": --bootstrap " + saslBootstrap, saslClient()),
                write(MTLS_PROPERTIES, "mTLS (client certificate CN=" + LocalCertificates.CLIENT_NAME + "): --bootstrap "
                        + mtlsBootstrap, mtlsClient()));
    }

    private Path write(String name, String comment, Map<String, String> properties) throws IOException {
        StringBuilder text = new StringBuilder("# streamtrain kafka --secure: " + comment + "\n"
                + "# Use with --kafka-properties " + dir.resolve(name) + " (Kafka's --command-config format).\n");
        // Kafka reads these with java.util.Properties: escape what that format treats specially.
        properties.forEach((k, v) -> text.append(k).append('=').append(v.replace("\\", "\\\\")).append('\n'));
        Path file = dir.resolve(name);
        Files.writeString(file, text, StandardCharsets.UTF_8);
        LocalCertificates.ownerOnly(file);
        return file;
    }

    /** Creates the SCRAM user and the ACLs of both client identities, and waits until the broker applies them. */
    void setUp(Admin asBroker) {
        try {
            asBroker.alterUserScramCredentials(List.of(new UserScramCredentialUpsertion(USER,
                    new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 8192), userPassword)))
                    .all().get(SETUP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            List<AclBinding> acls = new ArrayList<>();
            for (String principal : List.of("User:" + USER, LocalCertificates.clientPrincipal())) {
                acls.addAll(loopAcls(principal));
            }
            asBroker.createAcls(acls).all().get(SETUP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            awaitAcls(asBroker, acls.size());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KafkaException("interrupted while creating the local broker's users and ACLs", e);
        } catch (Exception e) {
            throw new KafkaException("could not create the local broker's users and ACLs: " + e.getMessage(), e);
        }
    }

    /** Everything the loop does, for a principal that is not an administrator: all topics, groups and transactional ids. */
    static List<AclBinding> loopAcls(String principal) {
        List<AclBinding> acls = new ArrayList<>();
        for (ResourceType type : List.of(ResourceType.TOPIC, ResourceType.GROUP, ResourceType.TRANSACTIONAL_ID)) {
            acls.add(allow(principal, new ResourcePattern(type, ResourcePattern.WILDCARD_RESOURCE, PatternType.LITERAL), AclOperation.ALL));
        }
        ResourcePattern cluster = new ResourcePattern(ResourceType.CLUSTER, "kafka-cluster", PatternType.LITERAL);
        for (AclOperation op : List.of(AclOperation.CREATE, AclOperation.DESCRIBE, AclOperation.IDEMPOTENT_WRITE, AclOperation.DESCRIBE_CONFIGS)) {
            acls.add(allow(principal, cluster, op));
        }
        return acls;
    }

    static AclBinding allow(String principal, ResourcePattern resource, AclOperation operation) {
        return new AclBinding(resource, new AccessControlEntry(principal, "*", operation, AclPermissionType.ALLOW));
    }

    /** The authorizer applies new ACLs from the metadata log after the controller committed them. */
    private static void awaitAcls(Admin asBroker, int expected) throws Exception {
        long deadline = System.nanoTime() + SETUP_TIMEOUT.toNanos();
        while (asBroker.describeAcls(AclBindingFilter.ANY).values().get(SETUP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS).size() < expected) {
            if (System.nanoTime() > deadline) {
                throw new KafkaException("the broker did not apply its ACLs within " + SETUP_TIMEOUT);
            }
            Thread.sleep(50);
        }
    }
}
