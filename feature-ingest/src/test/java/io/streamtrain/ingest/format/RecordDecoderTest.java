package io.streamtrain.ingest.format;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtrain.ingest.mapping.FeatureMapping;
import io.streamtrain.schema.Example;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.junit.jupiter.api.Test;

/** Topic records in a user's format through a feature mapping: what is trained and what is dead-lettered, with which reason. */
class RecordDecoderTest {
    private static final FeatureMapping MAPPING = FeatureMapping.fromJson("""
            {"label": "click", "features": [
              {"column": "user", "field": 0, "type": "categorical"},
              {"column": "tags", "field": 1, "type": "multi"}]}""", "test");
    private static final Schema SCHEMA = new Schema.Parser().parse("""
            {"type": "record", "name": "E", "fields": [
              {"name": "click", "type": "boolean"},
              {"name": "user", "type": ["null", "string"]},
              {"name": "tags", "type": {"type": "array", "items": "string"}}]}""");

    @Test
    void jsonObjectsAreMappedAsJsonLinesAreAndTheRecordTimestampIsTheEventTime() {
        ParseResult r = RecordDecoder.json(MAPPING, 100).decode("t-0", 5, 1_000L, utf8("{\"click\": 1, \"user\": \"u\", \"tags\": [\"a\", \"b\"]}"));
        Example e = assertInstanceOf(ParseResult.Ok.class, r).example();
        assertEquals(1f, e.getLabel());
        assertEquals(3, e.getFeatures().size());
        assertEquals("t-0:5", e.getId());
        assertEquals(1_000L, e.getEventTime().toEpochMilli());
    }

    @Test
    void aNullValueIsMissingButAnAbsentFieldIsDeadLettered() {
        RecordDecoder json = RecordDecoder.json(MAPPING, 100);
        assertTrue(json.decode("t-0", 0, 0, utf8("{\"click\": 0, \"user\": null, \"tags\": [\"a\"]}")).isOk());
        assertRejected(RejectReason.MISSING_FIELD, json.decode("t-0", 0, 0, utf8("{\"click\": 0, \"tags\": [\"a\"]}")));
        assertRejected(RejectReason.UNPARSABLE, json.decode("t-0", 0, 0, utf8("{\"click\": 0,")));
        assertRejected(RejectReason.UNPARSABLE, json.decode("t-0", 0, 0, utf8("[1, 2]")));
        assertRejected(RejectReason.BAD_LABEL, json.decode("t-0", 0, 0, utf8("{\"click\": 7, \"user\": \"u\", \"tags\": []}")));
    }

    @Test
    void plainAvroIsReadWithItsSchemaAndAnythingElseIsNotAvro() throws IOException {
        RecordDecoder avro = RecordDecoder.avro(MAPPING, SCHEMA, 100);
        byte[] good = avro(true, "u", List.of("a"));
        Example e = assertInstanceOf(ParseResult.Ok.class, avro.decode("t-1", 9, 0, good)).example();
        assertEquals(1f, e.getLabel());
        assertEquals(2, e.getFeatures().size());
        byte[] longer = Arrays.copyOf(good, good.length + 1);
        assertRejected(RejectReason.NOT_AVRO, avro.decode("t-1", 10, 0, longer));
        assertRejected(RejectReason.NOT_AVRO, avro.decode("t-1", 11, 0, new byte[] {0x01, 0x03}));
        assertRejected(RejectReason.NOT_AVRO, avro.decode("t-1", 12, 0, null));
    }

    @Test
    void aSchemaWithoutAMappedFieldDeadLettersEveryRecordAsMissingField() throws IOException {
        FeatureMapping wantsAd = FeatureMapping.fromJson("""
                {"label": "click", "features": [{"column": "ad", "field": 0, "type": "categorical"}]}""", "ad");
        assertRejected(RejectReason.MISSING_FIELD, RecordDecoder.avro(wantsAd, SCHEMA, 100).decode("t", 0, 0, avro(false, "u", List.of())));
    }

    private static byte[] avro(boolean click, String user, List<String> tags) throws IOException {
        GenericRecord r = new GenericData.Record(SCHEMA);
        r.put("click", click);
        r.put("user", user);
        r.put("tags", tags);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
        new GenericDatumWriter<GenericRecord>(SCHEMA).write(r, encoder);
        encoder.flush();
        return out.toByteArray();
    }

    private static void assertRejected(RejectReason reason, ParseResult r) {
        assertEquals(reason, assertInstanceOf(ParseResult.Rejected.class, r, String.valueOf(r)).reason(), String.valueOf(r));
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
