package io.streamtrain.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtrain.ingest.format.ParseResult;
import io.streamtrain.ingest.format.RejectReason;
import io.streamtrain.schema.AvroCodec;
import io.streamtrain.schema.DeadLetter;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class DeadLettersTest {
    @Test
    void lineAndRecordLocations() throws Exception {
        Instant t = Instant.ofEpochMilli(1234);
        DeadLetter d = DeadLetters.forLine("data/a.svm", 12, new ParseResult.Rejected(RejectReason.BAD_LABEL, "label '2'"),
                "2 1:1".getBytes(StandardCharsets.UTF_8), t);
        assertEquals("data/a.svm", d.getSource());
        assertEquals("line:12", d.getLocation());
        assertEquals("bad-label", d.getReason());
        assertEquals("2 1:1", StandardCharsets.UTF_8.decode(d.getPayload()).toString());
        AvroCodec<DeadLetter> codec = AvroCodec.of(DeadLetter.class);
        assertEquals(d, codec.decode(codec.encode(d)));

        DeadLetter r = DeadLetters.forRecord("examples", 3, 42, "not-avro", "", new byte[] {1, 2}, t);
        assertEquals("partition:3/offset:42", r.getLocation());
        assertEquals(2, r.getPayload().remaining());
        assertEquals(0, DeadLetters.of("s", "l", "r", null, null, t).getPayload().remaining());
    }

    @Test
    void cutsHugePayloadsAndDetails() {
        DeadLetter d = DeadLetters.of("s", "line:1", "unparsable", "x".repeat(5000),
                new byte[DeadLetters.MAX_PAYLOAD_BYTES + 10], Instant.EPOCH);
        assertEquals(DeadLetters.MAX_PAYLOAD_BYTES, d.getPayload().remaining());
        assertTrue(d.getDetail().length() <= DeadLetters.MAX_DETAIL_CHARS + 3);
    }
}
