package io.streamtrain.serve;

import io.streamtrain.bundle.Bundle;
import io.streamtrain.bundle.LocalBundle;
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
 * {@link #follower}) and model loading ({@link #open}). A bundle on remote storage is served from a
 * local copy of its own ({@link LocalBundle}), deleted when the model closes.
 */
public final class ServedModel implements AutoCloseable {
    /** Where {@code serve --follow} reads model updates and keeps the writable store of a bundle. */
    public record Follow(KafkaConnection kafka, String topic) {}

    private final LocalBundle local;
    private final Bundle bundle;
    private final LoadedModel model;
    private final ModelFollower follower; // null: not following
    private final long loadedAtMs = System.currentTimeMillis();

    private ServedModel(LocalBundle local, Bundle bundle, ModelFollower follower) {
        this.local = local;
        this.bundle = bundle;
        this.model = LoadedModel.of(bundle);
        this.follower = follower;
    }

    /** Opens a bundle read-only (a remote one from a new local copy). */
    public static ServedModel open(Path bundleDir) throws IOException {
        return open(LocalBundle.of(bundleDir));
    }

    /** Opens a bundle read-only; takes ownership of {@code local} as {@link #following} does. */
    public static ServedModel open(LocalBundle local) throws IOException {
        try {
            return new ServedModel(local, Bundle.open(local.dir()), null);
        } catch (IOException | RuntimeException e) {
            local.close();
            throw e;
        }
    }

    /**
     * Opens the writable serving store of a bundle ({@code store}) and follows the model updates
     * into it. Takes ownership of {@code local}: it is closed (a copy deleted) with the model, or
     * here when the model cannot open.
     */
    public static ServedModel following(LocalBundle local, Path store, Follow follow) throws IOException {
        Bundle bundle;
        try {
            bundle = Bundle.openStore(local.dir(), store);
        } catch (IOException | RuntimeException e) {
            local.close();
            throw e;
        }
        try {
            return new ServedModel(local, bundle, new ModelFollower(follow.kafka(), follow.topic(), bundle));
        } catch (RuntimeException e) {
            bundle.close();
            local.close();
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

    /** The bundle directory as given (a symlink stays a symlink; a remote bundle its mirror name, {@link io.streamtrain.contract.ModelStorage#location}). */
    public Path source() {
        return local.source();
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
            try {
                bundle.close();
            } finally {
                local.close(); // only now: the files of an open bundle are never touched
            }
        }
    }
}
