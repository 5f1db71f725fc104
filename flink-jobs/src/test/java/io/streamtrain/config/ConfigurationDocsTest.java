package io.streamtrain.config;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * docs/configuration.md is what {@link ConfigurationDocs} generates from the options classes, and
 * every option has a description: Flink's {@code ConfigOptionsDocsCompletenessITCase}, for streamtrain.
 */
class ConfigurationDocsTest {
    private static final Path DOC = Path.of("..", "docs", "configuration.md");
    private static final String REGENERATE = "./mvnw -o -q test -pl flink-jobs -am -Dtest=ConfigurationDocsTest"
            + " -Dsurefire.failIfNoSpecifiedTests=false -Dstreamtrain.docs.regenerate=true";

    @Test
    void theReferenceIsCompleteAndCurrent() throws IOException {
        String generated = ConfigurationDocs.markdown();
        if (Boolean.getBoolean("streamtrain.docs.regenerate")) {
            Files.writeString(DOC, generated, StandardCharsets.UTF_8);
        }
        String written = Files.exists(DOC) ? Files.readString(DOC, StandardCharsets.UTF_8) : "";
        assertEquals(generated, written, "docs/configuration.md is stale or incomplete; regenerate it with: " + REGENERATE);
    }

    @Test
    void everyOptionSaysWhatItDoes() {
        List<String> undocumented = StreamtrainOptions.all().stream()
                .filter(o -> o.option().description().getBlocks().isEmpty())
                .map(KnownOption::key)
                .toList();
        assertEquals(List.of(), undocumented, "options without a description");
    }
}
