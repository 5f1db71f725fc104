package io.streamtrain.report;

import io.streamtrain.kafka.KafkaConnection;
import java.io.IOException;
import java.io.PrintStream;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** A live dashboard of one metrics topic: the follower and the page that shows it, started and stopped together. */
public final class Dashboard implements AutoCloseable {
    private final LiveTimeline live;
    private final DashboardServer server;

    private Dashboard(LiveTimeline live, DashboardServer server) {
        this.live = live;
        this.server = server;
    }

    /** Follows {@code metricsTopic} from its beginning and serves the page on 127.0.0.1:{@code port} (0: any free port). */
    public static Dashboard start(KafkaConnection kafka, String metricsTopic, int port) throws IOException, InterruptedException {
        LiveTimeline live = new LiveTimeline(kafka, metricsTopic);
        try {
            return new Dashboard(live, new DashboardServer(live, port));
        } catch (IOException | RuntimeException e) {
            live.close();
            throw e;
        }
    }

    public String url() {
        return server.url();
    }

    public LiveTimeline timeline() {
        return live;
    }

    /** Stops reading the topic (e.g. before its broker goes away); the page keeps showing what was read. */
    public void stopFollowing() throws InterruptedException {
        live.close();
    }

    /** Blocks until the JVM is asked to stop (Ctrl-C), printing a progress line every {@code every} while records arrive. */
    public void awaitShutdown(PrintStream progress, Duration every) throws InterruptedException {
        CountDownLatch stop = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(stop::countDown, "streamtrain-dashboard-shutdown"));
        long last = live.records();
        while (!stop.await(every.toMillis(), TimeUnit.MILLISECONDS)) {
            long records = live.records();
            if (records != last) {
                RunTimeline run = live.timeline();
                progress.printf("dashboard: %s, %d records, %d s of metrics, %d examples, %d checkpoints, %d rescales, %d recoveries%n",
                        live.status(), records, run.seconds(), run.examples(), run.count(RunTimeline.Kind.CHECKPOINT),
                        run.count(RunTimeline.Kind.RESCALE), run.count(RunTimeline.Kind.RECOVERY));
                last = records;
            }
        }
    }

    @Override
    public void close() throws InterruptedException {
        server.close();
        live.close();
    }
}
