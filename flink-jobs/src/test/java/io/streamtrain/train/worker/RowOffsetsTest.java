package io.streamtrain.train.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class RowOffsetsTest {
    @Test
    void everyKeyFindsItsOffsetAsAHashMapWould() {
        Random random = new Random(3);
        Map<Long, Integer> expected = new HashMap<>();
        RowOffsets offsets = new RowOffsets(5000);
        for (int i = 0; i < 5000; i++) {
            long key = i % 7 == 0 ? i : random.nextLong(); // dense small keys and scattered ones, 0 included
            expected.put(key, i * 17);
            offsets.put(key, i * 17);
        }
        expected.forEach((key, offset) -> assertEquals(offset, offsets.get(key), "key " + key));
    }

    @Test
    void aKeyThatWasNotPulledIsAClearError() {
        RowOffsets offsets = new RowOffsets(2);
        offsets.put(1L, 0);
        assertThrows(IllegalStateException.class, () -> offsets.get(2L));
    }
}
