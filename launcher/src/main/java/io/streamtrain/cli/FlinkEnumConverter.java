package io.streamtrain.cli;

import io.streamtrain.model.ModelKind;
import io.streamtrain.ps.optimizer.OptimizerKind;
import io.streamtrain.train.StartFrom;
import java.util.Arrays;
import java.util.Iterator;
import java.util.stream.Collectors;
import org.apache.flink.configuration.ConfigurationUtils;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * A flag's value as the enum-typed option it sets reads it (Flink's conversion: the constant's
 * configuration name, any case), so {@code --optimizer rowwise-adagrad} and
 * {@code -D streamtrain.ps.optimizer=rowwise-adagrad} accept the same words.
 */
abstract class FlinkEnumConverter<E extends Enum<E>> implements ITypeConverter<E>, Iterable<String> {
    private final Class<E> type;

    FlinkEnumConverter(Class<E> type) {
        this.type = type;
    }

    @Override
    public E convert(String value) {
        try {
            return ConfigurationUtils.convertToEnum(value, type);
        } catch (IllegalArgumentException e) {
            throw new TypeConversionException("'" + value + "' is not one of " + String.join(", ", this));
        }
    }

    /** The accepted words, for picocli's completion candidates and the help's {@code ${COMPLETION-CANDIDATES}}. */
    @Override
    public Iterator<String> iterator() {
        return Arrays.stream(type.getEnumConstants()).map(String::valueOf).collect(Collectors.toList()).iterator();
    }

    static final class Models extends FlinkEnumConverter<ModelKind> {
        Models() {
            super(ModelKind.class);
        }
    }

    static final class Optimizers extends FlinkEnumConverter<OptimizerKind> {
        Optimizers() {
            super(OptimizerKind.class);
        }
    }

    static final class InputFormats extends FlinkEnumConverter<io.streamtrain.train.InputFormat> {
        InputFormats() {
            super(io.streamtrain.train.InputFormat.class);
        }
    }

    static final class StartPositions extends FlinkEnumConverter<StartFrom> {
        StartPositions() {
            super(StartFrom.class);
        }
    }
}
