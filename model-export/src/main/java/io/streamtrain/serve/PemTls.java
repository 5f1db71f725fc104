package io.streamtrain.serve;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.eclipse.jetty.util.ssl.SslContextFactory;

/**
 * TLS for {@code serve --tls-cert --tls-key}: a PEM certificate chain and its PEM PKCS#8 private
 * key (what {@code openssl req -x509 -newkey … -nodes} and cert-manager write), loaded into an
 * in-memory key store for Jetty. Read once at start-up; a key that does not parse is a clear error.
 */
final class PemTls {
    private static final Pattern KEY = Pattern.compile(
            "-----BEGIN PRIVATE KEY-----([A-Za-z0-9+/=\\s]+)-----END PRIVATE KEY-----");
    private static final List<String> ALGORITHMS = List.of("RSA", "EC", "Ed25519", "EdDSA");

    private PemTls() {}

    static SslContextFactory.Server server(Path certFile, Path keyFile) throws IOException {
        Certificate[] chain = certificates(certFile);
        PrivateKey key = privateKey(keyFile);
        try {
            char[] password = new char[0];
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            store.setKeyEntry("serve", key, password, chain);
            SslContextFactory.Server tls = new SslContextFactory.Server();
            tls.setKeyStore(store);
            tls.setKeyStorePassword("");
            tls.setKeyManagerPassword("");
            return tls;
        } catch (GeneralSecurityException e) {
            throw new IOException("--tls-key " + keyFile + " does not go with --tls-cert " + certFile + ": " + e.getMessage(), e);
        }
    }

    private static Certificate[] certificates(Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            Certificate[] chain = CertificateFactory.getInstance("X.509").generateCertificates(in).toArray(new Certificate[0]);
            if (chain.length == 0) {
                throw new IOException("--tls-cert " + file + " holds no certificate");
            }
            return chain;
        } catch (GeneralSecurityException e) {
            throw new IOException("--tls-cert " + file + " is not a PEM X.509 certificate chain: " + e.getMessage(), e);
        }
    }

    private static PrivateKey privateKey(Path file) throws IOException {
        String pem = Files.readString(file, StandardCharsets.US_ASCII);
        Matcher m = KEY.matcher(pem);
        if (!m.find()) {
            throw new IOException("--tls-key " + file + " holds no '-----BEGIN PRIVATE KEY-----' block (PEM PKCS#8);"
                    + " convert a PKCS#1 or SEC1 key with: openssl pkcs8 -topk8 -nocrypt -in KEY -out KEY.pk8");
        }
        PKCS8EncodedKeySpec spec = new PKCS8EncodedKeySpec(Base64.getMimeDecoder().decode(m.group(1)));
        for (String algorithm : ALGORITHMS) {
            try {
                return KeyFactory.getInstance(algorithm).generatePrivate(spec);
            } catch (GeneralSecurityException e) {
                // not this algorithm: try the next
            }
        }
        throw new IOException("--tls-key " + file + ": not an unencrypted RSA, EC or Ed25519 private key");
    }
}
