package io.streamtrain.train;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamtrain.contract.LatestCheckpoint;
import io.streamtrain.contract.ModelInfo;
import io.streamtrain.cli.StreamtrainCli;
import io.streamtrain.export.CheckpointRows;
import io.streamtrain.ingest.format.FeatureHashing;
import io.streamtrain.schema.AvroCodec;
import io.streamtrain.schema.DeadLetter;
import io.streamtrain.schema.FeatureKey;
import io.streamtrain.testing.KafkaFixture;
import io.streamtrain.train.run.TrainingRun;
import io.streamtrain.train.run.TrainingSummary;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.flink.configuration.Configuration;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import picocli.CommandLine;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code train} reads a user's own topic through the feature mapping that ingest uses: JSON
 * objects, plain Avro with the records' schema, and Avro in the schema registry's wire format
 * across two schema versions (a reader schema gives the older records the newer field's default).
 * Every good record is trained exactly once (the count oracle, with the expected rows computed from
 * the raw values with the mapping's hashing), and every record that does not decode, lacks a mapped
 * field or fails the mapping is in the dead-letter topic with its reason and its original bytes.
 * {@code backfill} reads such topics the same way, through its command line.
 */
class UserFormatsIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String MAPPING = """
            {"label": "click", "features": [
              {"column": "user", "field": 0, "type": "categorical"},
              {"column": "ad", "field": 1, "type": "categorical"},
              {"column": "tags", "field": 2, "type": "multi"}%s]}""";
    /** The numeric price of V2, for the mapping of the registry topic. */
    private static final String PRICE_FEATURE = ", {\"column\": \"price\", \"field\": 3, \"type\": \"numeric\"}";
    private static final String V1 = """
            {"type": "record", "name": "AdEvent", "namespace": "com.example", "fields": [
              {"name": "click", "type": "int"},
              {"name": "user", "type": "string"},
              {"name": "ad", "type": "string"},
              {"name": "tags", "type": {"type": "array", "items": "string"}}]}""";
    /** V1 plus a field with a default: records written with V1 read as V2 get the default. */
    private static final String V2 = """
            {"type": "record", "name": "AdEvent", "namespace": "com.example", "fields": [
              {"name": "click", "type": "int"},
              {"name": "user", "type": "string"},
              {"name": "ad", "type": "string"},
              {"name": "tags", "type": {"type": "array", "items": "string"}},
              {"name": "price", "type": "double", "default": 1.0}]}""";
    /** Without "ad", which V2 requires (no default): its records do not resolve to the reader schema. */
    private static final String V3_WITHOUT_AD = """
            {"type": "record", "name": "AdEvent", "namespace": "com.example", "fields": [
              {"name": "click", "type": "int"},
              {"name": "user", "type": "string"},
              {"name": "tags", "type": {"type": "array", "items": "string"}}]}""";

    private final KafkaFixture kafka = KafkaFixture.shared();

    @Test
    void jsonRecordsAreTrainedThroughTheMappingAndBadOnesDeadLettered(@TempDir Path dir) throws Exception {
        String topic = "user-json-" + System.nanoTime();
        Truth truth = new Truth(false);
        Map<byte[], String> bad = jsonTopic(topic, truth);
        Configuration conf = job(topic, dir, InputFormat.JSON, mapping(dir, ""));
        trainAndCheck(conf, dir, truth, bad);
    }

    /** The same JSON topic through {@code backfill --input-format json --mapping} on the command line. */
    @Test
    @Tag("extended")
    void aBackfillOfJsonRecordsTrainsThroughTheMappingAndDeadLettersBadOnes(@TempDir Path dir) throws Exception {
        String topic = "user-json-backfill-" + System.nanoTime();
        Truth truth = new Truth(false);
        Map<byte[], String> bad = jsonTopic(topic, truth);
        backfillAndCheck(topic, dir, truth, bad, "--input-format", "json", "--mapping", mapping(dir, "").toString());
    }

    /** 300 good JSON events and three bad records (their reasons) written to a new topic. */
    private Map<byte[], String> jsonTopic(String topic, Truth truth) throws Exception {
        Map<byte[], String> bad = new LinkedHashMap<>();
        bad.put(utf8("{\"click\": 1, \"user\": \"u1\""), "unparsable");
        bad.put(utf8("{\"click\": 1, \"user\": \"u1\", \"tags\": []}"), "missing-field");
        bad.put(utf8("{\"click\": \"maybe\", \"user\": \"u1\", \"ad\": \"a1\", \"tags\": []}"), "bad-label");
        List<byte[]> records = new ArrayList<>();
        for (Map<String, Object> event : truth.events(300)) {
            records.add(JSON.writeValueAsBytes(event));
        }
        records.addAll(bad.keySet());
        produce(topic, records);
        return bad;
    }

    @Test
    void plainAvroRecordsAreReadWithTheirSchemaFile(@TempDir Path dir) throws Exception {
        String topic = "user-avro-" + System.nanoTime();
        Schema schema = new Schema.Parser().parse(V1);
        Truth truth = new Truth(false);
        Map<byte[], String> bad = new LinkedHashMap<>();
        bad.put(new byte[] {0x00, 0x01}, "not-avro"); // click 0, then a string of length -1
        List<byte[]> records = new ArrayList<>();
        for (Map<String, Object> event : truth.events(300)) {
            records.add(avro(schema, event));
        }
        records.addAll(bad.keySet());
        produce(topic, records);

        Configuration conf = job(topic, dir, InputFormat.AVRO, mapping(dir, ""));
        conf.set(TrainingOptions.READER_SCHEMA, write(dir.resolve("ad-event.avsc"), V1).toString());
        trainAndCheck(conf, dir, truth, bad);
    }

    @Test
    void registryFramedAvroAcrossSchemaVersionsIsResolvedToTheReaderSchema(@TempDir Path dir) throws Exception {
        String topic = "user-registry-" + System.nanoTime();
        try (RegistryServer registry = new RegistryServer()) {
            Truth truth = new Truth(true);
            Map<byte[], String> bad = registryTopic(topic, registry, truth);
            Configuration conf = job(topic, dir, InputFormat.AVRO_REGISTRY,
                    mapping(dir, PRICE_FEATURE));
            conf.set(TrainingOptions.READER_SCHEMA, write(dir.resolve("ad-event-v2.avsc"), V2).toString());
            conf.set(TrainingOptions.SCHEMA_REGISTRY_URL, registry.url());
            trainAndCheck(conf, dir, truth, bad);
            // Three known ids (and one unknown) among 403 records: schemas are fetched once, not per record.
            assertTrue(registry.requests() <= 8, "schema fetches: " + registry.requests());
        }
    }

    /**
     * {@code backfill --input-format avro-registry --mapping … --schema-registry URL} on the command
     * line, over the registry topic of {@link #registryFramedAvroAcrossSchemaVersionsIsResolvedToTheReaderSchema}.
     */
    @Test
    void aBackfillOfRegistryFramedAvroTrainsThroughTheMappingAndDeadLettersBadOnes(@TempDir Path dir) throws Exception {
        String topic = "user-registry-backfill-" + System.nanoTime();
        try (RegistryServer registry = new RegistryServer()) {
            Truth truth = new Truth(true);
            Map<byte[], String> bad = registryTopic(topic, registry, truth);
            backfillAndCheck(topic, dir, truth, bad, "--input-format", "avro-registry",
                    "--mapping", mapping(dir, PRICE_FEATURE).toString(),
                    "--reader-schema", write(dir.resolve("ad-event-v2.avsc"), V2).toString(), "--schema-registry", registry.url());
        }
    }

    /**
     * 200 events written with V1 and 200 with V2, registry-framed, and three bad records (their
     * reasons): one without framing, one with an unknown schema id, one whose schema lacks a field.
     */
    private Map<byte[], String> registryTopic(String topic, RegistryServer registry, Truth truth) throws Exception {
        Schema v1 = new Schema.Parser().parse(V1);
        Schema v2 = new Schema.Parser().parse(V2);
        Schema v3 = new Schema.Parser().parse(V3_WITHOUT_AD);
        int v1Id = registry.register(topic + "-value", V1);
        int v2Id = registry.register(topic + "-value", V2);
        int v3Id = registry.register(topic + "-value", V3_WITHOUT_AD);
        List<byte[]> records = new ArrayList<>();
        for (Map<String, Object> event : truth.events(200)) {
            event.remove("price"); // written before the field existed: read with its default, 1.0
            records.add(framed(v1Id, avro(v1, event)));
        }
        for (Map<String, Object> event : truth.events(200)) {
            records.add(framed(v2Id, avro(v2, event)));
        }
        Map<byte[], String> bad = new LinkedHashMap<>();
        bad.put(avro(v1, Map.of("click", 1, "user", "u1", "ad", "a1", "tags", List.of())), "not-avro"); // no framing
        bad.put(framed(999, avro(v1, Map.of("click", 1, "user", "u1", "ad", "a1", "tags", List.of()))), "unknown-schema");
        bad.put(framed(v3Id, avro(v3, Map.of("click", 1, "user", "u1", "tags", List.of()))), "missing-field");
        records.addAll(bad.keySet());
        produce(topic, records);
        return bad;
    }

    /** Backfills the whole topic through the command line with the oracle job's settings and {@code formatArgs}, then checks. */
    private void backfillAndCheck(String topic, Path dir, Truth truth, Map<byte[], String> bad, String... formatArgs) throws Exception {
        Path out = dir.resolve("backfill");
        List<String> args = new ArrayList<>(List.of("backfill", "--bootstrap", kafka.bootstrapServers(), "--topic", topic,
                "--name", topic, "--model", "lr", "--dim", "1", "--optimizer", "count", "--batch-size", "64",
                "--from", "earliest", "--to", "latest", "--out-savepoint", out.toString()));
        args.addAll(List.of(formatArgs));
        assertEquals(0, new CommandLine(new StreamtrainCli()).execute(args.toArray(String[]::new)), "backfill " + args);
        check(out, topic + ".dlq", truth, bad);
    }

    /** Trains the topic to its end and checks the oracle and the dead letters. */
    private void trainAndCheck(Configuration conf, Path dir, Truth truth, Map<byte[], String> bad) throws Exception {
        Path checkpoints = dir.resolve("checkpoints");
        TrainingSummary summary = TrainingRun.run(new TrainingRun.Settings(conf, checkpoints, 1, Duration.ofMillis(500),
                Duration.ofSeconds(4), false, System.err));
        System.err.println("summary: " + summary.line());
        assertEquals(bad.size(), summary.deadLetters(), summary.line());
        check(checkpoints, TrainingOptions.deadLetterTopic(conf), truth, bad);
    }

    /** The count oracle on the latest checkpoint in {@code checkpoints}, and each bad record dead-lettered once with its reason and bytes. */
    private void check(Path checkpoints, String deadLetterTopic, Truth truth, Map<byte[], String> bad) throws Exception {
        TestExamples.assertCountedExactlyOnce(CheckpointRows.readAll(LatestCheckpoint.in(checkpoints), ModelInfo.read(checkpoints)),
                truth.good, truth.counts);

        List<ConsumerRecord<byte[], byte[]>> dead = kafka.readAll(deadLetterTopic, true, Duration.ofSeconds(20));
        assertEquals(bad.size(), dead.size(), "each bad record dead-lettered once");
        AvroCodec<DeadLetter> codec = AvroCodec.of(DeadLetter.class);
        List<byte[]> expected = new ArrayList<>(bad.keySet());
        for (int i = 0; i < dead.size(); i++) {
            DeadLetter d = codec.decode(dead.get(i).value());
            assertEquals(bad.get(expected.get(i)), d.getReason(), "reason of dead letter " + i + ": " + d.getDetail());
            assertArrayEquals(expected.get(i), toArray(d.getPayload()), "dead letter " + i + " keeps the original bytes");
        }
    }

    private Configuration job(String topic, Path dir, InputFormat format, Path mapping) {
        Configuration conf = TestExamples.connect(TestExamples.oracleJob(kafka.bootstrapServers(), topic), kafka);
        conf.set(TrainingOptions.INPUT_FORMAT, format);
        conf.set(TrainingOptions.MAPPING, mapping.toString());
        return conf;
    }

    /** One partition: the dead letters come in the order the bad records were written. */
    private void produce(String topic, List<byte[]> values) throws Exception {
        kafka.createTopic(topic, 1);
        try (KafkaProducer<byte[], byte[]> producer = kafka.producer()) {
            for (byte[] v : values) {
                producer.send(new ProducerRecord<>(topic, v)).get();
            }
        }
    }

    private static Path mapping(Path dir, String moreFeatures) throws IOException {
        return write(dir.resolve("mapping.json"), MAPPING.formatted(moreFeatures));
    }

    private static Path write(Path file, String text) throws IOException {
        return Files.writeString(file, text);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] avro(Schema schema, Map<String, Object> values) throws IOException {
        GenericRecord r = new GenericData.Record(schema);
        values.forEach(r::put);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
        new GenericDatumWriter<GenericRecord>(schema).write(r, encoder);
        encoder.flush();
        return out.toByteArray();
    }

    /** The schema registry's wire format: magic byte 0, the schema id (4 bytes, big endian), the Avro binary. */
    private static byte[] framed(int schemaId, byte[] avro) {
        return ByteBuffer.allocate(5 + avro.length).put((byte) 0).putInt(schemaId).put(avro).array();
    }

    private static byte[] toArray(ByteBuffer b) {
        byte[] a = new byte[b.remaining()];
        b.duplicate().get(a);
        return a;
    }

    /**
     * Random ad events and what training them must count: per row key, the records containing its
     * feature, with the ids a mapping gives (categorical and multi values hashed to 24 bits; the
     * numeric price is feature 3:0).
     */
    private static final class Truth {
        private final Random random = new Random(11);
        private final boolean price;
        final Map<Long, Long> counts = new HashMap<>();
        long good;

        Truth(boolean price) {
            this.price = price;
        }

        List<Map<String, Object>> events(int n) {
            List<Map<String, Object>> events = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                Map<String, Object> e = new LinkedHashMap<>();
                e.put("click", random.nextInt(2));
                e.put("user", "u" + random.nextInt(40));
                e.put("ad", "a" + random.nextInt(15));
                List<String> tags = new ArrayList<>(new LinkedHashSet<>(List.of("t" + random.nextInt(6), "t" + random.nextInt(6))));
                e.put("tags", tags);
                Set<Long> keys = new LinkedHashSet<>();
                keys.add(key(0, (String) e.get("user")));
                keys.add(key(1, (String) e.get("ad")));
                tags.forEach(t -> keys.add(key(2, t)));
                if (price) {
                    e.put("price", 0.5 + random.nextInt(100));
                    keys.add(FeatureKey.of(3, 0));
                }
                keys.forEach(k -> counts.merge(k, 1L, Long::sum));
                good++;
                events.add(e);
            }
            return events;
        }

        private static long key(int field, String value) {
            return FeatureKey.of(field, FeatureHashing.id(field, value, 0, value.length(), 24));
        }
    }
}
