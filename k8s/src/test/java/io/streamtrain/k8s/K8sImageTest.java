package io.streamtrain.k8s;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The job image's Dockerfile against the Maven build that makes the jar and the manifests that run it. */
class K8sImageTest {
    /** Set by k8s/pom.xml from the build's own properties. */
    static final String FLINK_VERSION = System.getProperty("streamtrain.flink.version");
    static final String PROJECT_VERSION = System.getProperty("streamtrain.version");
    static final Dockerfile DOCKERFILE = Dockerfile.read(ManifestTree.DOCKERFILE);

    static List<Rendered> renders() {
        return Rendered.all();
    }

    @Test
    void theImageIsTheOfficialFlinkImageOfTheBuildsFlinkVersionRunAsFlink() {
        assertEquals("flink:" + FLINK_VERSION + "-java17", DOCKERFILE.from());
        assertEquals("flink", DOCKERFILE.user());
    }

    @Test
    void theImageCopiesTheJobJarTheBuildMakesAndPyTorchsNativesIntoFlinksLib() {
        String jar = ManifestTree.shadedJarName("flink-jobs");
        String natives = "pytorch-native-cpu-" + System.getProperty("streamtrain.pytorch.version") + "-linux-x86_64.jar";
        assertEquals(List.of(new Dockerfile.Copy("flink-jobs/target/" + jar, "/opt/flink/usrlib/" + jar),
                        new Dockerfile.Copy("flink-jobs/target/cluster-lib/" + natives, "/opt/flink/lib/" + natives)),
                DOCKERFILE.copies());
    }

    @ParameterizedTest
    @MethodSource("renders")
    void localJarUrisPointAtTheJarInTheImage(Rendered r) {
        for (JsonNode doc : r.ofKind("FlinkDeployment")) {
            JsonNode jarUri = doc.path("spec").path("job").path("jarURI");
            if (!jarUri.isMissingNode()) {
                URI uri = URI.create(jarUri.asText());
                assertEquals("local", uri.getScheme());
                assertEquals(DOCKERFILE.copies().get(0).destination(), uri.getPath(), r.toString());
            }
        }
    }

    @ParameterizedTest
    @MethodSource("renders")
    void deploymentsRunTheImageOfThisBuild(Rendered r) {
        for (JsonNode doc : r.ofKind("FlinkDeployment")) {
            String image = doc.path("spec").path("image").asText();
            String tag = image.substring(image.lastIndexOf(':') + 1);
            assertEquals(PROJECT_VERSION + "-flink" + FLINK_VERSION, tag, r + ": " + ResourceKinds.describe(doc));
            assertTrue(image.substring(0, image.lastIndexOf(':')).endsWith("streamtrain"), image);
        }
    }

    @ParameterizedTest
    @MethodSource("renders")
    void theS3PluginEnabledIsTheOneShippedWithThisFlink(Rendered r) {
        for (JsonNode doc : r.ofKind("FlinkDeployment")) {
            JsonNode env = doc.path("spec").path("podTemplate").path("spec").path("containers").path(0).path("env");
            String plugins = "";
            for (JsonNode var : env) {
                if (var.path("name").asText().equals("ENABLE_BUILT_IN_PLUGINS")) {
                    plugins = var.path("value").asText();
                }
            }
            assertEquals("flink-s3-fs-hadoop-" + FLINK_VERSION + ".jar", plugins, r + ": " + ResourceKinds.describe(doc));
        }
    }
}
