package io.streamtrain.train.run;

import io.streamtrain.kafka.KafkaConnection;
import io.streamtrain.schema.TrainingMetrics;
import io.streamtrain.schema.TrainingMetricsCodec;
import io.streamtrain.train.worker.ProgressiveValidation;
import io.streamtrain.train.worker.WindowReport;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Follows the metrics topic from where this run began and keeps each worker subtask's latest window. */
public final class MetricsFollower implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(MetricsFollower.class);

    private final Thread thread;
    private final Map<Integer, TrainingMetrics> latest = new HashMap<>();
    private volatile boolean running = true;

    public MetricsFollower(KafkaConnection kafka, String topic, Map<TopicPartition, Long> from) {
        thread = new Thread(() -> follow(kafka, from), "streamtrain-metrics-follower");
        thread.setDaemon(true);
        thread.start();
    }

    private void follow(KafkaConnection kafka, Map<TopicPartition, Long> from) {
        TrainingMetricsCodec codec = new TrainingMetricsCodec();
        try (KafkaConsumer<byte[], byte[]> consumer = kafka.client()
                .withDefault(ConsumerConfig.CLIENT_ID_CONFIG, "streamtrain-metrics-follower")
                .consumer()) {
            consumer.assign(from.keySet());
            from.forEach(consumer::seek);
            while (running) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    try {
                        TrainingMetrics m = codec.decode(r.value());
                        if (!WindowReport.WORKER.equals(m.getOperator())) {
                            continue;
                        }
                        synchronized (latest) {
                            TrainingMetrics prev = latest.get(m.getSubtask());
                            if (prev == null || !m.getTime().isBefore(prev.getTime())) {
                                latest.put(m.getSubtask(), m);
                            }
                        }
                    } catch (Exception e) {
                        LOG.warn("skipping unreadable metrics record at {}/{}", r.partition(), r.offset(), e);
                    }
                }
            }
        } catch (Exception e) {
            if (running) {
                LOG.warn("metrics follower stopped", e);
            }
        }
    }

    /**
     * Window AUC, logloss and the base-rate predictor's logloss over all subtasks, weighted by their
     * window sizes; NaN before any report.
     */
    public double[] window() {
        double auc = 0;
        double logloss = 0;
        double weight = 0;
        long positives = 0;
        synchronized (latest) {
            for (TrainingMetrics m : latest.values()) {
                double w = m.getWindowExamples();
                if (w > 0 && !Double.isNaN(m.getWindowAuc())) {
                    auc += w * m.getWindowAuc();
                    logloss += w * m.getWindowLogloss();
                    weight += w;
                    positives = positives < 0 || m.getWindowPositives() < 0 ? -1 : positives + m.getWindowPositives();
                }
            }
        }
        return weight == 0 ? new double[] {Double.NaN, Double.NaN, Double.NaN}
                : new double[] {auc / weight, logloss / weight, ProgressiveValidation.baseLogloss(positives, (long) weight)};
    }

    @Override
    public void close() throws InterruptedException {
        running = false;
        thread.join(2000);
    }
}
