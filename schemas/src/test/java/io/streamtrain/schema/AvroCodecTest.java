package io.streamtrain.schema;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class AvroCodecTest {
    private final AvroCodec<Example> codec = AvroCodec.of(Example.class);

    private static Example example(String id) {
        return Example.newBuilder()
                .setId(id)
                .setEventTime(Instant.ofEpochMilli(1_700_000_000_000L))
                .setLabel(1f)
                .setFeatures(List.of(new Feature(3, 42L, 1f), new Feature(7, 1L << 40, 0.5f)))
                .build();
    }

    @Test
    void roundTripsRepeatedly() throws Exception {
        for (int i = 0; i < 3; i++) {
            Example e = example("e" + i);
            assertEquals(e, codec.decode(codec.encode(e)));
        }
    }

    @Test
    void rejectsGarbageAndTrailingBytes() {
        assertThrows(Exception.class, () -> codec.decode("not avro 0".getBytes(StandardCharsets.UTF_8)));
        byte[] good = codec.encode(example("x"));
        byte[] longer = java.util.Arrays.copyOf(good, good.length + 3);
        assertThrows(Exception.class, () -> codec.decode(longer));
    }

    @Test
    void featureKeysPackAndUnpack() {
        long k = FeatureKey.of(513, 123_456_789_012L);
        assertEquals(513, FeatureKey.field(k));
        assertEquals(123_456_789_012L, FeatureKey.id(k));
        assertEquals(false, FeatureKey.isValidInput(FeatureKey.MAX_FIELD, 0));
    }
}
