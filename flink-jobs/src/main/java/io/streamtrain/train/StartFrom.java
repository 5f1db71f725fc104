package io.streamtrain.train;

import static org.apache.flink.configuration.description.TextElement.text;

import java.util.Locale;
import org.apache.flink.configuration.DescribedEnum;
import org.apache.flink.configuration.description.InlineElement;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.kafka.clients.consumer.OffsetResetStrategy;

/** Where a fresh job (no checkpoint to resume) starts reading its input topics. */
public enum StartFrom implements DescribedEnum {
    EARLIEST("each partition's earliest retained record."),
    LATEST("each partition's end: only records written after the job starts."),
    COMMITTED("the offsets the job's consumer group committed last, or the earliest where it has none.");

    private final String description;

    StartFrom(String description) {
        this.description = description;
    }

    /** The Kafka source's starting offsets. */
    public OffsetsInitializer offsets() {
        return switch (this) {
            case EARLIEST -> OffsetsInitializer.earliest();
            case LATEST -> OffsetsInitializer.latest();
            case COMMITTED -> OffsetsInitializer.committedOffsets(OffsetResetStrategy.EARLIEST);
        };
    }

    /** The name a configuration uses; Flink's enum options match it case-insensitively. */
    @Override
    public String toString() {
        return name().toLowerCase(Locale.ROOT);
    }

    @Override
    public InlineElement getDescription() {
        return text(description);
    }
}
