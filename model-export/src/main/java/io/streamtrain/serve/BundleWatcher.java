package io.streamtrain.serve;

import io.streamtrain.bundle.ModelCard;
import io.streamtrain.contract.ModelStorage;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code serve --watch}: checks every interval whether the bundle at the path changed, and reloads
 * the server from it as {@code POST /admin/reload} does. A local path changes when it resolves to
 * another directory (typically a symlink that export's caller moves); a remote one
 * ({@code s3://…}) when its files do (their names, sizes and times, through Flink's file system)
 * or its model card's content. A bundle that fails to open is logged and not retried until the
 * path changes again: an upload still under way changes it again when it completes.
 */
final class BundleWatcher implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(BundleWatcher.class);

    private final Path bundle;
    private final Duration interval;
    private final ScoringServer server;
    private final Thread thread;

    /** {@code served}: the bundle's {@link #version} when the server's model was opened from it. */
    BundleWatcher(Path bundle, Object served, Duration interval, ScoringServer server) {
        this.bundle = bundle;
        this.interval = interval;
        this.server = server;
        this.thread = new Thread(() -> watch(served), "serve-watch");
        thread.setDaemon(true);
        thread.start();
    }

    /**
     * What tells the bundle at {@code bundle} now from another: the directory a local path resolves
     * to, or a remote bundle's {@linkplain ModelStorage#fingerprint fingerprint}; empty while
     * there is none (a link being replaced, a location being written).
     */
    static Optional<Object> version(Path bundle) {
        try {
            if (ModelStorage.isRemote(bundle)) {
                String fingerprint = ModelStorage.fingerprint(bundle, ModelCard.FILE);
                return fingerprint.isEmpty() ? Optional.empty() : Optional.of(fingerprint);
            }
            return Optional.of(bundle.toRealPath());
        } catch (IOException | RuntimeException e) {
            LOG.debug("cannot look at {} now: {}", bundle, e.toString());
            return Optional.empty();
        }
    }

    private void watch(Object initial) {
        Object served = initial;
        try {
            while (true) {
                Thread.sleep(interval.toMillis());
                Optional<Object> now = version(bundle);
                if (now.isPresent() && !now.get().equals(served)) {
                    try {
                        server.reload(bundle);
                    } catch (Exception e) {
                        LOG.warn("switching to the changed bundle at {} failed; still serving the one before: {}",
                                ModelStorage.location(bundle), e.toString());
                    }
                    served = now.get();
                }
            }
        } catch (InterruptedException e) {
            // closing
        }
    }

    @Override
    public void close() throws InterruptedException {
        thread.interrupt();
        thread.join(10_000);
    }
}
