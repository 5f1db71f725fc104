package io.streamtrain.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class BenchVariantTest {
    @Test
    void aVariantIsANameAndItsKeys() {
        BenchVariant v = BenchVariant.parse("cw20:streamtrain.train.credit-wait=20ms, state.backend.rocksdb.thread.num=2");
        assertEquals("cw20", v.name());
        assertEquals(Map.of("streamtrain.train.credit-wait", "20ms", "state.backend.rocksdb.thread.num", "2"), v.settings());
        assertEquals("-cw20", v.topicSuffix());
    }

    @Test
    void aNameAloneIsTheBaseline() {
        BenchVariant base = BenchVariant.parse("base:");
        assertEquals("base", base.name());
        assertTrue(base.settings().isEmpty());
    }

    @Test
    void noVariantsMeansOneRunWithTheCommandsOwnSettings() {
        assertEquals(List.of(BenchVariant.NONE), BenchVariant.parseAll(List.of()));
        assertEquals("", BenchVariant.NONE.topicSuffix());
    }

    @Test
    void malformedOrRepeatedVariantsAreRefusedWithTheReason() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> BenchVariant.parse("credit-wait=20ms"))
                .getMessage().contains("NAME:KEY=VALUE"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> BenchVariant.parse("a b:x=1"))
                .getMessage().contains("NAME:KEY=VALUE"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> BenchVariant.parse("a:x"))
                .getMessage().contains("'x' is not KEY=VALUE"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> BenchVariant.parseAll(List.of("a:", "a:x=1")))
                .getMessage().contains("given twice"));
    }
}
