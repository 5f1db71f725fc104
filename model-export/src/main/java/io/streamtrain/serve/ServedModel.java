package io.streamtrain.serve;

import io.streamtrain.bundle.Bundle;
import io.streamtrain.bundle.ModelCard;
import io.streamtrain.export.LoadedModel;
import io.streamtrain.kafka.KafkaConnection;
import io.streamtrain.schema.ExampleRows;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;

/**
 * One opened bundle that the server scores with, and its follower when it follows model updates:
 * the seam between the HTTP layer (which only calls {@link #score}, {@link #card} and
 * {@link #follower}) and model loading ({@link #open}).
 */
public final class ServedModel implements AutoCloseable {
    /** Where {@code serve --follow} reads model updates and keeps the writable store of a bundle. */
    public record Follow(KafkaConnection kafka, String topic) {}

    private final Path source;
    private final Bundle bundle;
    private final LoadedModel model;
    private final ModelFollower follower; // null: not following
    private final long loadedAtMs = System.currentTimeMillis();

    private ServedModel(Path source, Bundle bundle, ModelFollower follower) {
        this.source = source;
        this.bundle = bundle;
        this.model = LoadedModel.of(bundle);
        this.follower = follower;
    }

    /** Opens a bundle read-only. */
    public static ServedModel open(Path bundleDir) throws IOException {
        return new ServedModel(bundleDir, Bundle.open(bundleDir), null);
    }

    /** Opens the writable serving store of a bundle ({@code store}) and follows the model updates into it. */
    public static ServedModel following(Path bundleDir, Path store, Follow follow) throws IOException {
        Bundle bundle = Bundle.openStore(bundleDir, store);
        try {
            return new ServedModel(bundleDir, bundle, new ModelFollower(follow.kafka(), follow.topic(), bundle));
        } catch (RuntimeException e) {
            bundle.close();
            throw e;
        }
    }

    /** P(label = 1) for one example. Thread-safe. */
    public double score(ExampleRows example) {
        return model.predict(example.keys(), example.values());
    }

    public ModelCard card() {
        return bundle.card();
    }

    /** The bundle directory as given (a symlink stays a symlink). */
    public Path source() {
        return source;
    }

    public long loadedAtMs() {
        return loadedAtMs;
    }

    public Optional<ModelFollower> follower() {
        return Optional.ofNullable(follower);
    }

    /** The first {@code n} row keys, for load generators. */
    long[] sampleKeys(int n) {
        return bundle.firstKeys(n);
    }

    @Override
    public void close() throws InterruptedException {
        try {
            if (follower != null) {
                follower.close();
            }
        } finally {
            bundle.close();
        }
    }
}
