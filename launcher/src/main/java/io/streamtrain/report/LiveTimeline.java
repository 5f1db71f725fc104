package io.streamtrain.report;

import io.streamtrain.kafka.KafkaConnection;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A run's {@link RunTimeline}, kept current: a thread follows the metrics topic from its beginning
 * (waiting for the topic if the job has not created it yet), and {@link #timeline()} applies the
 * timeline's rules to every record read so far. All records stay in memory (a few hundred bytes
 * each, about one a second per subtask), which is what lets late, out-of-order records land in
 * the right second.
 */
public final class LiveTimeline implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(LiveTimeline.class);
    private static final Duration LOOKUP = Duration.ofSeconds(2);

    private final String topic;
    private final MetricsTopic read = new MetricsTopic(); // guarded by this
    private final KafkaConsumer<byte[], byte[]> consumer;
    private final Thread thread;
    private volatile boolean running = true;
    private volatile String status = "waiting for the topic";
    private RunTimeline timeline = RunTimeline.of(List.of()); // guarded by this
    private int timelineRecords;

    public LiveTimeline(KafkaConnection kafka, String topic) {
        this.topic = topic;
        this.consumer = MetricsTopic.consumer(kafka);
        this.thread = new Thread(this::follow, "streamtrain-dashboard-follower");
        thread.setDaemon(true);
        thread.start();
    }

    private void follow() {
        try (consumer) {
            List<TopicPartition> partitions = List.of();
            while (running && partitions.isEmpty()) {
                partitions = MetricsTopic.partitions(consumer, topic, LOOKUP);
                if (partitions.isEmpty()) {
                    Thread.sleep(LOOKUP.toMillis());
                }
            }
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            status = "following";
            while (running) {
                var polled = consumer.poll(Duration.ofMillis(500));
                if (!polled.isEmpty()) {
                    synchronized (this) {
                        read.add(polled);
                    }
                }
            }
        } catch (WakeupException | InterruptedException stopped) {
            // closed
        } catch (RuntimeException e) {
            status = "stopped: " + e.getMessage();
            LOG.warn("stopped following {}", topic, e);
        }
        if (!status.startsWith("stopped")) {
            status = "stopped";
        }
    }

    /** The timeline of every record read so far (recomputed only when records arrived). */
    public synchronized RunTimeline timeline() {
        if (timelineRecords != read.records().size()) {
            timeline = RunTimeline.of(read.records());
            timelineRecords = read.records().size();
        }
        return timeline;
    }

    public String topic() {
        return topic;
    }

    /** Records read so far, readable or not. */
    public synchronized long records() {
        return read.records().size() + read.unreadable();
    }

    public synchronized long unreadable() {
        return read.unreadable();
    }

    /** "waiting for the topic", "following", or why it stopped. */
    public String status() {
        return status;
    }

    /** Stops following; the timeline read so far stays available. */
    @Override
    public void close() throws InterruptedException {
        running = false;
        consumer.wakeup();
        thread.join(5000);
    }
}
