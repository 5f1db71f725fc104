package io.streamtrain.serve;

import io.streamtrain.bundle.BundleWriter;
import io.streamtrain.bundle.ModelCard;
import io.streamtrain.bundle.TestTables;
import io.streamtrain.contract.ModelInfo;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Path;

/** Bundles for serving tests: a {@link TestTables} savepoint in {@code dir/savepoint-NAME}, exported to {@code dir/NAME}. */
final class TestBundles {
    private TestBundles() {}

    static Path write(Path dir, String name, ModelInfo info, long rows) throws Exception {
        Path bundle = dir.resolve(name);
        BundleWriter.write(TestTables.write(dir.resolve("savepoint-" + name), info, rows), info,
                ModelCard.FeatureMapping.of("libffm", 24), bundle, new PrintStream(OutputStream.nullOutputStream()), 1000);
        return bundle;
    }
}
