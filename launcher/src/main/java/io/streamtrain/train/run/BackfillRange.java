package io.streamtrain.train.run;

import io.streamtrain.train.KafkaProgress;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.TopicPartition;

/**
 * A backfill's input: per partition of the topic, the offsets [from, to), resolved once before the
 * job starts so that the range, the job's stop offsets and the hand-over are the same numbers.
 */
public record BackfillRange(String topic, Map<Integer, Long> from, Map<Integer, Long> to) {

    /**
     * One end of the range as given on the command line: {@code earliest}, {@code latest}, a time
     * (ISO-8601 instant or epoch milliseconds: the first record at or after it), or explicit
     * {@code partition:offset} pairs (partitions not listed take {@code fallback}).
     */
    public record Bound(String time, Map<Integer, Long> offsets) {
        public static Bound ofTime(String time) {
            return new Bound(time, null);
        }

        public static Bound ofOffsets(Map<Integer, Long> offsets) {
            return new Bound(null, offsets);
        }

        Map<Integer, Long> resolve(KafkaProgress kafka, String topic, Map<Integer, Long> fallback) throws Exception {
            if (offsets != null) {
                Map<Integer, Long> result = new TreeMap<>(fallback);
                for (Map.Entry<Integer, Long> e : offsets.entrySet()) {
                    if (!fallback.containsKey(e.getKey())) {
                        throw new IllegalArgumentException("topic " + topic + " has no partition " + e.getKey());
                    }
                    result.put(e.getKey(), e.getValue());
                }
                return result;
            }
            if (time.equals("earliest")) {
                return byPartition(kafka.startOffsets(topic));
            }
            if (time.equals("latest")) {
                return byPartition(kafka.endOffsets(topic));
            }
            return byPartition(kafka.offsetsForTime(topic, epochMillis(time)));
        }

        static long epochMillis(String time) {
            try {
                return time.chars().allMatch(Character::isDigit) ? Long.parseLong(time) : Instant.parse(time).toEpochMilli();
            } catch (NumberFormatException | DateTimeParseException e) {
                throw new IllegalArgumentException("not a time: '" + time
                        + "' (expected an ISO-8601 instant such as 2026-12-01T00:00:00Z, epoch milliseconds, earliest or latest)");
            }
        }
    }

    /** Resolves both ends against what Kafka holds now, and rejects a range Kafka cannot deliver. */
    public static BackfillRange resolve(KafkaProgress kafka, String topic, Bound from, Bound to) throws Exception {
        Map<Integer, Long> start = byPartition(kafka.startOffsets(topic));
        Map<Integer, Long> end = byPartition(kafka.endOffsets(topic));
        Map<Integer, Long> f = from.resolve(kafka, topic, start);
        Map<Integer, Long> t = to.resolve(kafka, topic, end);
        for (int p : start.keySet()) {
            if (f.get(p) < start.get(p)) {
                throw new IllegalArgumentException("partition " + p + ": offset " + f.get(p)
                        + " is no longer in Kafka (the log starts at " + start.get(p) + ")");
            }
            if (t.get(p) > end.get(p)) {
                throw new IllegalArgumentException("partition " + p + ": end offset " + t.get(p)
                        + " is beyond the last committed record (the log ends at " + end.get(p) + ")");
            }
            if (t.get(p) < f.get(p)) {
                throw new IllegalArgumentException("partition " + p + ": the range ends (" + t.get(p)
                        + ") before it starts (" + f.get(p) + ")");
            }
        }
        return new BackfillRange(topic, f, t);
    }

    /** Offsets in the range (an upper bound of its records: transaction markers take offsets too). */
    public long size() {
        long n = 0;
        for (Map.Entry<Integer, Long> e : to.entrySet()) {
            n += e.getValue() - from.get(e.getKey());
        }
        return n;
    }

    public Map<TopicPartition, Long> fromOffsets() {
        return topicPartitions(from);
    }

    public Map<TopicPartition, Long> toOffsets() {
        return topicPartitions(to);
    }

    private Map<TopicPartition, Long> topicPartitions(Map<Integer, Long> offsets) {
        Map<TopicPartition, Long> result = new java.util.HashMap<>();
        offsets.forEach((p, o) -> result.put(new TopicPartition(topic, p), o));
        return result;
    }

    static Map<Integer, Long> byPartition(Map<TopicPartition, Long> offsets) {
        Map<Integer, Long> result = new TreeMap<>();
        offsets.forEach((tp, o) -> result.put(tp.partition(), o));
        return result;
    }
}
