package io.streamtrain.sql;

import io.streamtrain.ingest.mapping.FeatureMapping;
import io.streamtrain.ingest.mapping.MappingException;
import io.streamtrain.ingest.mapping.RawRecord;
import io.streamtrain.schema.AvroCodec;
import io.streamtrain.schema.Example;
import io.streamtrain.train.batch.Rejected;
import io.streamtrain.train.feedback.DeadLetterSerializer;
import io.streamtrain.train.feedback.Outgoing;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.metrics.Counter;
import org.apache.flink.streaming.api.functions.ProcessFunction;
import org.apache.flink.table.data.RowData;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * The query's rows as Avro {@link Example}s for the staging topic, through the table's feature
 * mapping; a row the mapping rejects (bad label, non-finite value) becomes a dead letter with the
 * reason, exactly as a bad line of a file or a bad Kafka record does.
 */
public final class RowsToExamples extends ProcessFunction<RowData, Outgoing> {
    private static final long serialVersionUID = 1L;

    private final String table;
    private final RowValues values;
    private final FeatureMapping mapping;
    private final String stagingTopic;
    private final DeadLetterSerializer deadLetters;
    private transient AvroCodec<Example> codec;
    private transient String idPrefix;
    private transient long seq;
    private transient Counter rejected;

    public RowsToExamples(String table, RowValues values, FeatureMapping mapping, String stagingTopic, String deadLetterTopic) {
        this.table = table;
        this.values = values;
        this.mapping = mapping;
        this.stagingTopic = stagingTopic;
        this.deadLetters = new DeadLetterSerializer(deadLetterTopic);
    }

    @Override
    public void open(OpenContext openContext) {
        codec = AvroCodec.of(Example.class);
        idPrefix = table + ":" + getRuntimeContext().getTaskInfo().getIndexOfThisSubtask() + ":";
        rejected = getRuntimeContext().getMetricGroup().counter("sqlRowsRejected");
    }

    @Override
    public void processElement(RowData row, Context ctx, Collector<Outgoing> out) {
        RawRecord raw = values.of(row);
        long now = System.currentTimeMillis();
        seq++;
        try {
            String id = mapping.id(raw);
            Example example = Example.newBuilder()
                    .setId(id != null ? id : idPrefix + seq)
                    .setEventTime(java.time.Instant.ofEpochMilli(mapping.time(raw, now)))
                    .setLabel(mapping.label(raw))
                    .setFeatures(mapping.features(raw))
                    .setDense(List.of())
                    .setSampleRate(1f)
                    .build();
            out.collect(new Outgoing(new ProducerRecord<>(stagingTopic, null, codec.encode(example))));
        } catch (MappingException e) {
            rejected.inc();
            Rejected letter = new Rejected("sql:" + table, "row:" + seq, e.reason().code(), e.getMessage(),
                    row.toString().getBytes(StandardCharsets.UTF_8), now);
            out.collect(new Outgoing(deadLetters.serialize(letter, null, null)));
        }
    }
}
