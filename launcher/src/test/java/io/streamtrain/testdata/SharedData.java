package io.streamtrain.testdata;

import java.nio.file.Files;
import java.nio.file.Path;

/** The small real click logs of the {@code shared/data} directory beside the project (README there says where they come from). */
public final class SharedData {
    public static final String CRITEO_SAMPLE = "criteo-sample-2k.tsv";

    private SharedData() {}

    /** {@code shared/data/NAME} in the nearest directory above the working directory that has it (-Dstreamtrain.shared-data=DIR overrides). */
    public static Path file(String name) {
        String configured = System.getProperty("streamtrain.shared-data");
        if (configured != null) {
            return Path.of(configured, name);
        }
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path candidate = dir.resolve("shared").resolve("data").resolve(name);
            if (Files.isRegularFile(candidate)) {
                return candidate;
            }
        }
        return Path.of("shared", "data", name);
    }
}
