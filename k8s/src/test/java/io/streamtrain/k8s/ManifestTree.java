package io.streamtrain.k8s;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/** Where the manifests are: the k8s module's directory, which Surefire runs the tests in. */
final class ManifestTree {
    static final Path ROOT = Path.of(System.getProperty("basedir", ".")).toAbsolutePath().normalize();
    static final Path BASE = ROOT.resolve("base");
    static final Path OVERLAYS = ROOT.resolve("overlays");
    static final Path COMPONENTS = ROOT.resolve("components");
    static final Path DOCKERFILE = ROOT.resolve("image/Dockerfile");
    static final Path REPOSITORY = ROOT.getParent();

    private ManifestTree() {}

    /** Every YAML file of the module except build output and test sources. */
    static List<Path> yamlFiles() {
        try (Stream<Path> files = Files.walk(ROOT)) {
            return files.filter(p -> !p.startsWith(ROOT.resolve("target")) && !p.startsWith(ROOT.resolve("src")))
                    .filter(p -> p.toString().endsWith(".yaml") || p.toString().endsWith(".yml"))
                    .sorted()
                    .collect(Collectors.toList());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The directories one applies with {@code kubectl apply -k}: base and every overlay. */
    static List<Path> kustomizationRoots() {
        return Stream.concat(Stream.of(BASE), subdirectories(OVERLAYS).stream()).collect(Collectors.toList());
    }

    static List<Path> components() {
        return subdirectories(COMPONENTS);
    }

    static Path overlay(String name) {
        return OVERLAYS.resolve(name);
    }

    /** The jar name (finalName) a module's shade plugin writes, from its pom. */
    static String shadedJarName(String module) {
        try {
            var pom = javax.xml.parsers.DocumentBuilderFactory.newInstance().newDocumentBuilder()
                    .parse(REPOSITORY.resolve(module).resolve("pom.xml").toFile());
            return javax.xml.xpath.XPathFactory.newInstance().newXPath().evaluate(
                    "//*[local-name()='plugin'][*[local-name()='artifactId']='maven-shade-plugin']//*[local-name()='finalName']", pom)
                    + ".jar";
        } catch (Exception e) {
            throw new IllegalStateException("cannot read " + module + "/pom.xml", e);
        }
    }

    static String relative(Path p) {
        return ROOT.relativize(p.toAbsolutePath().normalize()).toString();
    }

    private static List<Path> subdirectories(Path dir) {
        try (Stream<Path> children = Files.list(dir)) {
            return children.filter(Files::isDirectory).sorted().collect(Collectors.toList());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
