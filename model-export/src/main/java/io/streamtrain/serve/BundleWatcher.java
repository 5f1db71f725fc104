package io.streamtrain.serve;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code serve --watch}: checks every interval whether the bundle path (typically a symlink that
 * export's caller moves) now resolves to another directory, and reloads the server from it. A
 * bundle that fails to open is logged and not retried until the path moves again.
 */
final class BundleWatcher implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(BundleWatcher.class);

    private final Path bundle;
    private final Duration interval;
    private final ScoringServer server;
    private final Thread thread;

    BundleWatcher(Path bundle, Duration interval, ScoringServer server) throws IOException {
        this.bundle = bundle;
        this.interval = interval;
        this.server = server;
        Path served = bundle.toRealPath();
        this.thread = new Thread(() -> watch(served), "serve-watch");
        thread.setDaemon(true);
        thread.start();
    }

    private void watch(Path served) {
        try {
            while (true) {
                Thread.sleep(interval.toMillis());
                Path now;
                try {
                    now = bundle.toRealPath();
                } catch (IOException e) {
                    continue; // mid-switch: the link is being replaced
                }
                if (!now.equals(served)) {
                    try {
                        server.reload(bundle);
                    } catch (Exception e) {
                        LOG.warn("switching to {} failed; still serving {}: {}", now, served, e.toString());
                    }
                    served = now;
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
