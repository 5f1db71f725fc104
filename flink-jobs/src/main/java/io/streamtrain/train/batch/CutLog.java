package io.streamtrain.train.batch;

import io.streamtrain.kafka.KafkaConnection;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.java.tuple.Tuple3;

/**
 * Where the batcher records its idle cuts so that they are durable before a checkpoint is
 * (decisions/0018): the job's cuts topic, and where a fresh job starts reading it (the topic's
 * end when the job was built, so that a fresh job that fails before its first checkpoint finds
 * its failed attempt's cuts but never an earlier job's). A source partition's cuts all go to one
 * cuts partition, the source partition modulo the cuts topic's partitions when the job was built.
 * {@link #off()}: seals wait for a checkpoint (decisions/0017).
 */
public final class CutLog implements Serializable {
    private static final long serialVersionUID = 1L;

    private final KafkaConnection kafka;
    private final String topic;
    /** Per cuts partition, where a fresh job reads from. */
    private final HashMap<Integer, Long> start;

    private CutLog(KafkaConnection kafka, String topic, Map<Integer, Long> start) {
        this.kafka = kafka;
        this.topic = topic;
        this.start = new HashMap<>(start);
    }

    /** The cut log on {@code topic}, whose partitions a fresh job reads from {@code start}. */
    public static CutLog on(KafkaConnection kafka, String topic, Map<Integer, Long> start) {
        if (start.isEmpty()) {
            throw new IllegalArgumentException("the cuts topic " + topic + " has no partitions");
        }
        return new CutLog(kafka, topic, start);
    }

    /** No cut log: an idle batch is released by a checkpoint only. */
    public static CutLog off() {
        return new CutLog(null, null, Map.of());
    }

    boolean isOn() {
        return topic != null;
    }

    KafkaConnection kafka() {
        return kafka;
    }

    String topic() {
        return topic;
    }

    int partitions() {
        return start.size();
    }

    /** The cuts partition that records {@code sourcePartition}'s cuts. */
    int partitionOf(int sourcePartition) {
        return sourcePartition % start.size();
    }

    /**
     * This log with the start of the lineage it continues: {@code restored} holds (topic, cuts
     * partition, start) as {@link #lineageStart()} gave them to a checkpoint of an earlier job
     * (a resume, a backfill's hand-over). A partition without batcher state in that checkpoint
     * may have been cut idle by the earlier job after it, so it reads from the lineage's start,
     * not from this job's. Entries of another topic are ignored.
     */
    CutLog continuing(Iterable<Tuple3<String, Integer, Long>> restored) {
        if (!isOn()) {
            return this;
        }
        Map<Integer, Long> lineage = new HashMap<>(start);
        for (Tuple3<String, Integer, Long> e : restored) {
            if (topic.equals(e.f0) && lineage.containsKey(e.f1)) {
                lineage.merge(e.f1, e.f2, Math::min);
            }
        }
        return new CutLog(kafka, topic, lineage);
    }

    /** (topic, cuts partition, start) of this lineage, for {@link #continuing} in a later job. */
    List<Tuple3<String, Integer, Long>> lineageStart() {
        List<Tuple3<String, Integer, Long>> entries = new ArrayList<>();
        if (isOn()) {
            start.forEach((partition, offset) -> entries.add(Tuple3.of(topic, partition, offset)));
        }
        return entries;
    }

    /** Where a partition without batcher state (a fresh job's) reads its cuts from. */
    long startOf(int sourcePartition) {
        return start.get(partitionOf(sourcePartition));
    }

    @Override
    public String toString() {
        return isOn() ? "cut log " + topic : "no cut log";
    }
}
