package io.streamtrain.cli;

import java.time.Duration;
import org.apache.flink.util.TimeUtils;
import picocli.CommandLine.ITypeConverter;

/** Durations the way Flink writes them: 500ms, 10s, 15min, 7d. */
public final class DurationConverter implements ITypeConverter<Duration> {
    @Override
    public Duration convert(String value) {
        return TimeUtils.parseDuration(value);
    }
}
