package io.streamtrain.config;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.MemorySize;

/**
 * A {@link ConfigOption} as a static field of an options class declares it: with its value type,
 * which the option itself does not expose, so a bad value can be answered with what is allowed.
 *
 * @param valueType the option's value class ({@code Integer}, an enum, {@code Duration}, ...),
 *     or {@code Object} when the field's declaration does not say
 * @param declaredIn the options class
 * @param deprecated whether the field is {@code @Deprecated}
 */
public record KnownOption(ConfigOption<?> option, Class<?> valueType, Class<?> declaredIn, boolean deprecated) {

    /** The static ConfigOption fields of {@code optionsClass}, in declaration order. */
    public static List<KnownOption> declaredIn(Class<?> optionsClass) {
        List<KnownOption> result = new ArrayList<>();
        for (Field f : optionsClass.getDeclaredFields()) {
            if (Modifier.isStatic(f.getModifiers()) && ConfigOption.class.isAssignableFrom(f.getType())) {
                result.add(new KnownOption(read(f), valueType(f.getGenericType()), optionsClass, f.isAnnotationPresent(Deprecated.class)));
            }
        }
        return result;
    }

    public String key() {
        return option.key();
    }

    /** Why {@code value} is not a value of this option's type, if it is not. */
    public Optional<String> parseProblem(String value) {
        try {
            Configuration.fromMap(Map.of(option.key(), value)).get(option);
            return Optional.empty();
        } catch (RuntimeException e) {
            return Optional.of("must be " + expected());
        }
    }

    /** What a value of this option's type looks like, e.g. {@code an integer} or {@code one of lr, fm}. */
    public String expected() {
        if (valueType.isEnum()) {
            return "one of " + Arrays.stream(valueType.getEnumConstants()).map(String::valueOf).collect(Collectors.joining(", "));
        }
        if (valueType == Integer.class || valueType == Long.class) {
            return "an integer";
        }
        if (valueType == Double.class || valueType == Float.class) {
            return "a number";
        }
        if (valueType == Boolean.class) {
            return "true or false";
        }
        if (valueType == Duration.class) {
            return "a duration such as 500 ms, 10 s or 5 min";
        }
        if (valueType == MemorySize.class) {
            return "a memory size such as 64 mb";
        }
        if (valueType == Map.class) {
            return "comma-separated key:value pairs";
        }
        if (valueType == List.class) {
            return "a list separated by ;";
        }
        return valueType == String.class ? "a string" : "a value of its type";
    }

    /** {@code value} as a configuration file writes it for {@code option} ({@code 500 ms}, {@code rowwise-adagrad}). */
    @SuppressWarnings("unchecked")
    public static <T> String valueText(ConfigOption<T> option, Object value) {
        Configuration c = new Configuration();
        c.set(option, (T) value);
        return c.toMap().get(option.key());
    }

    private static Class<?> valueType(Type fieldType) {
        if (fieldType instanceof ParameterizedType p) {
            Type arg = p.getActualTypeArguments()[0];
            if (arg instanceof Class<?> c) {
                return c;
            }
            if (arg instanceof ParameterizedType inner && inner.getRawType() instanceof Class<?> raw) {
                return raw;
            }
        }
        return Object.class;
    }

    private static ConfigOption<?> read(Field f) {
        try {
            f.setAccessible(true);
            return (ConfigOption<?>) f.get(null);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException("cannot read " + f, e);
        }
    }
}
