package io.streamtrain.ps;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class RowExpiryTest {
    @Test
    void aRowIsGoneOnceItsTtlHasPassedSinceItsLastUpdate() {
        RowExpiry expiry = new RowExpiry(Duration.ofSeconds(10));
        assertFalse(expiry.expired(1_000, 10_999));
        assertTrue(expiry.expired(1_000, 11_000));
    }

    @Test
    void withoutATtlNoRowExpires() {
        assertFalse(new RowExpiry(null).expired(0, Long.MAX_VALUE));
    }
}
