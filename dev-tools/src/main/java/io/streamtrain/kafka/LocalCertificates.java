package io.streamtrain.kafka;

import java.io.IOException;
import java.io.OutputStream;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.HexFormat;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A throw-away certificate authority for the secured local broker, made at run time (no key is
 * ever committed): a CA, the broker's certificate (for 127.0.0.1 and localhost, also its identity
 * on its internal listeners) and a client certificate for the mTLS listener, written as PKCS12
 * stores readable by the owner only. Every store has the same random password.
 */
final class LocalCertificates {
    static final String BROKER_NAME = "streamtrain-broker";
    static final String CLIENT_NAME = "streamtrain-mtls";
    private static final Duration VALIDITY = Duration.ofDays(30);
    private static final String SIGNATURE = "SHA256withECDSA";

    private final Path truststore;
    private final Path brokerKeystore;
    private final Path clientKeystore;
    private final String password;

    private LocalCertificates(Path dir, String password) {
        this.truststore = dir.resolve("ca.p12");
        this.brokerKeystore = dir.resolve("broker.p12");
        this.clientKeystore = dir.resolve("client.p12");
        this.password = password;
    }

    /** A new CA and certificates in {@code dir}, replacing any there (a restarted broker gets new ones). */
    static LocalCertificates generate(Path dir) throws IOException {
        LocalCertificates c = new LocalCertificates(dir, randomSecret());
        try {
            KeyPair caKeys = keyPair();
            X500Name ca = new X500Name("CN=streamtrain-local-ca");
            X509Certificate caCert = sign(new JcaX509v3CertificateBuilder(ca, serial(), start(), end(), ca, caKeys.getPublic())
                    .addExtension(Extension.basicConstraints, true, new BasicConstraints(true))
                    .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign)), caKeys);
            c.writeKeystore(c.brokerKeystore, BROKER_NAME, ca, caKeys, caCert);
            c.writeKeystore(c.clientKeystore, CLIENT_NAME, ca, caKeys, caCert);
            KeyStore trust = KeyStore.getInstance("PKCS12");
            trust.load(null, null);
            trust.setCertificateEntry("ca", caCert);
            c.store(trust, c.truststore);
        } catch (GeneralSecurityException | OperatorCreationException e) {
            throw new IOException("could not generate the local broker's certificates: " + e.getMessage(), e);
        }
        return c;
    }

    /** The principal Kafka's SSL listeners give a holder of the broker's certificate. */
    static String brokerPrincipal() {
        return "User:CN=" + BROKER_NAME;
    }

    /** The principal Kafka's SSL listeners give a holder of the client certificate. */
    static String clientPrincipal() {
        return "User:CN=" + CLIENT_NAME;
    }

    Path truststore() {
        return truststore;
    }

    Path brokerKeystore() {
        return brokerKeystore;
    }

    Path clientKeystore() {
        return clientKeystore;
    }

    String password() {
        return password;
    }

    /** A random secret of 24 hex digits. */
    static String randomSecret() {
        byte[] bytes = new byte[12];
        new SecureRandom().nextBytes(bytes);
        return HexFormat.of().formatHex(bytes);
    }

    private void writeKeystore(Path file, String commonName, X500Name issuer, KeyPair caKeys, X509Certificate caCert)
            throws GeneralSecurityException, OperatorCreationException, IOException {
        KeyPair keys = keyPair();
        X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(issuer, serial(), start(), end(),
                new X500Name("CN=" + commonName), keys.getPublic())
                .addExtension(Extension.basicConstraints, true, new BasicConstraints(false))
                .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyEncipherment))
                .addExtension(Extension.extendedKeyUsage, false,
                        new ExtendedKeyUsage(new KeyPurposeId[] {KeyPurposeId.id_kp_serverAuth, KeyPurposeId.id_kp_clientAuth}))
                // Clients verify the broker's host name (ssl.endpoint.identification.algorithm=https).
                .addExtension(Extension.subjectAlternativeName, false, new GeneralNames(new GeneralName[] {
                    new GeneralName(GeneralName.iPAddress, "127.0.0.1"), new GeneralName(GeneralName.dNSName, "localhost")}));
        X509Certificate cert = sign(builder, caKeys);
        KeyStore ks = KeyStore.getInstance("PKCS12");
        ks.load(null, null);
        ks.setKeyEntry(commonName, keys.getPrivate(), password.toCharArray(), new Certificate[] {cert, caCert});
        store(ks, file);
    }

    private void store(KeyStore ks, Path file) throws IOException, GeneralSecurityException {
        Path partial = file.resolveSibling(file.getFileName() + ".partial");
        try (OutputStream out = Files.newOutputStream(partial)) {
            ks.store(out, password.toCharArray());
        }
        ownerOnly(partial);
        Files.move(partial, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /** Readable by the owner only, where the file system has POSIX permissions. */
    static void ownerOnly(Path file) throws IOException {
        try {
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        } catch (UnsupportedOperationException e) {
            // not a POSIX file system: its default permissions apply
        }
    }

    private static X509Certificate sign(X509v3CertificateBuilder builder, KeyPair issuerKeys)
            throws OperatorCreationException, GeneralSecurityException {
        return new JcaX509CertificateConverter().getCertificate(builder.build(new JcaContentSignerBuilder(SIGNATURE).build(issuerKeys.getPrivate())));
    }

    private static KeyPair keyPair() throws GeneralSecurityException {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
        generator.initialize(256);
        return generator.generateKeyPair();
    }

    private static BigInteger serial() {
        return new BigInteger(64, new SecureRandom());
    }

    private static Date start() {
        return Date.from(Instant.now().minus(Duration.ofHours(1))); // tolerate a little clock skew
    }

    private static Date end() {
        return Date.from(Instant.now().plus(VALIDITY));
    }
}
