package io.streamtrain.ingest;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtrain.ingest.format.CriteoParser;
import io.streamtrain.ingest.format.FeatureHashing;
import io.streamtrain.ingest.format.InputLines;
import io.streamtrain.ingest.format.LineFormat;
import io.streamtrain.ingest.format.ParseOptions;
import io.streamtrain.ingest.synthetic.PlantedFm;
import io.streamtrain.schema.AvroCodec;
import io.streamtrain.schema.DeadLetter;
import io.streamtrain.schema.Example;
import io.streamtrain.schema.Feature;
import io.streamtrain.testing.KafkaFixture;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class IngestCommandTest {
    private static final Pattern SUMMARY = Pattern.compile(
            "ingest: records=(\\d+) bad=(\\d+) bytes=(\\d+) seconds=(\\d+\\.\\d{3}) rate=(\\d+)/s topic=(\\S+) dead_letter_topic=(\\S+)");

    private final KafkaFixture kafka = KafkaFixture.shared();

    @TempDir
    Path dir;

    @Test
    void goodLinesToTheTopicBadLinesToTheDeadLetterTopic() throws Exception {
        Path file = dir.resolve("small.svm");
        List<String> lines = List.of(
                "1 1:1 2:0.5",   // 1 good
                "0 3:1",         // 2 good
                "2 1:1",         // 3 bad-label
                "",              // 4 empty
                "1 x:1",         // 5 unparsable
                "-1 4:1 5:2",    // 6 good
                "1 5:inf",       // 7 non-finite-value
                "1 -5:1");       // 8 feature-out-of-range
        Files.write(file, lines, StandardCharsets.UTF_8);
        String topic = "ingest-e2e";

        Result r = run("--bootstrap", kafka.bootstrapServers(), "--topic", topic, "--format", "libsvm",
                "--file", file.toString(), "--partitions", "2");

        assertEquals(0, r.exitCode, r.err);
        Matcher m = SUMMARY.matcher(r.out.strip());
        assertTrue(m.matches(), "summary line: " + r.out);
        assertEquals("3", m.group(1));
        assertEquals("5", m.group(2));
        assertEquals(topic, m.group(6));
        assertEquals(topic + ".dlq", m.group(7));

        AvroCodec<Example> examples = AvroCodec.of(Example.class);
        List<Example> got = new ArrayList<>();
        for (ConsumerRecord<byte[], byte[]> rec : kafka.readAll(topic, false, Duration.ofSeconds(10))) {
            assertEquals(null, rec.key());
            got.add(examples.decode(rec.value()));
        }
        got.sort(Comparator.comparing(Example::getId));
        assertEquals(List.of("small.svm:1", "small.svm:2", "small.svm:6"), got.stream().map(Example::getId).toList());
        assertEquals(List.of(new Feature(0, 1L, 1f), new Feature(0, 2L, 0.5f)), got.get(0).getFeatures());
        assertEquals(List.of(new Feature(0, 3L, 1f)), got.get(1).getFeatures());
        assertEquals(List.of(new Feature(0, 4L, 1f), new Feature(0, 5L, 2f)), got.get(2).getFeatures());
        assertEquals(List.of(1f, 0f, 0f), got.stream().map(Example::getLabel).toList());

        AvroCodec<DeadLetter> dlq = AvroCodec.of(DeadLetter.class);
        List<DeadLetter> dead = new ArrayList<>();
        for (ConsumerRecord<byte[], byte[]> rec : kafka.readAll(topic + ".dlq", false, Duration.ofSeconds(10))) {
            dead.add(dlq.decode(rec.value()));
        }
        dead.sort(Comparator.comparing(d -> Integer.parseInt(d.getLocation().substring("line:".length()))));
        assertEquals(List.of("line:3", "line:4", "line:5", "line:7", "line:8"), dead.stream().map(DeadLetter::getLocation).toList());
        assertEquals(List.of("bad-label", "empty", "unparsable", "non-finite-value", "feature-out-of-range"),
                dead.stream().map(DeadLetter::getReason).toList());
        for (DeadLetter d : dead) {
            int n = Integer.parseInt(d.getLocation().substring("line:".length()));
            assertEquals(lines.get(n - 1), StandardCharsets.UTF_8.decode(d.getPayload()).toString());
            assertEquals(file.toString(), d.getSource());
            assertTrue(!d.getDetail().isEmpty() || d.getReason().equals("empty"));
        }
    }

    @Test
    void linesEndOnlyAtLfOrCrlfAndDeadLettersKeepTheOriginalBytes() throws Exception {
        ByteArrayOutputStream file = new ByteArrayOutputStream();
        file.write("1 1:1\r\n".getBytes(StandardCharsets.US_ASCII));          // 1 good (CRLF)
        byte[] lineWithCr = "0 2:1\r3:1".getBytes(StandardCharsets.US_ASCII);  // 2 one line, rejected: a lone CR does not end it
        file.write(lineWithCr);
        file.write('\n');
        byte[] notUtf8 = {'1', ' ', (byte) 0xe9, ':', '1'};                    // 3 Latin-1 'é', not UTF-8: rejected
        file.write(notUtf8);
        file.write('\n');
        file.write("0 4:1\n".getBytes(StandardCharsets.US_ASCII));            // 4 good: the line number after them is right
        Path path = dir.resolve("mixed-endings.svm");
        Files.write(path, file.toByteArray());
        String topic = "ingest-line-ends";

        Result r = run("--bootstrap", kafka.bootstrapServers(), "--topic", topic, "--format", "libsvm",
                "--file", path.toString(), "--partitions", "1");

        assertEquals(0, r.exitCode, r.err);
        Matcher m = SUMMARY.matcher(r.out.strip());
        assertTrue(m.matches(), r.out);
        assertEquals("2", m.group(1));
        assertEquals("2", m.group(2));
        AvroCodec<Example> examples = AvroCodec.of(Example.class);
        List<String> ids = new ArrayList<>();
        for (ConsumerRecord<byte[], byte[]> rec : kafka.readAll(topic, false, Duration.ofSeconds(10))) {
            ids.add(examples.decode(rec.value()).getId());
        }
        ids.sort(Comparator.naturalOrder());
        assertEquals(List.of("mixed-endings.svm:1", "mixed-endings.svm:4"), ids);
        AvroCodec<DeadLetter> dlq = AvroCodec.of(DeadLetter.class);
        Map<String, byte[]> payloads = new java.util.TreeMap<>();
        for (ConsumerRecord<byte[], byte[]> rec : kafka.readAll(topic + ".dlq", false, Duration.ofSeconds(10))) {
            DeadLetter d = dlq.decode(rec.value());
            byte[] payload = new byte[d.getPayload().remaining()];
            d.getPayload().get(payload);
            payloads.put(d.getLocation(), payload);
        }
        assertEquals(List.of("line:2", "line:3"), List.copyOf(payloads.keySet()));
        assertArrayEquals(lineWithCr, payloads.get("line:2"));
        assertArrayEquals(notUtf8, payloads.get("line:3"));
    }

    @Test
    void csvThroughAMappingFileKeepsLineNumbersOfTheFileInDeadLetters() throws Exception {
        Path mapping = dir.resolve("m.json");
        Files.writeString(mapping, "{\"label\": \"y\", \"id\": \"key\", \"features\": ["
                + "{\"column\": \"city\", \"field\": 0}, {\"column\": \"n\", \"field\": 1, \"type\": \"bucketized\"}]}");
        Path file = dir.resolve("rows.csv");
        List<String> lines = List.of(
                "key,y,city,n",   // 1 header
                "a,1,paris,3",    // 2 good
                "b,1,rome",       // 3 unparsable: 3 fields
                "c,0,,0",         // 4 good
                "d,7,oslo,1");    // 5 bad-label
        Files.write(file, lines, StandardCharsets.UTF_8);
        String topic = "ingest-csv";
        ingestCsv(mapping, file, topic, 2, 2);

        List<Example> got = examplesById(topic);
        assertEquals(List.of("a", "c"), got.stream().map(Example::getId).toList());
        long paris = FeatureHashing.hash64(0, "paris") & ((1L << ParseOptions.DEFAULT_HASH_BITS) - 1);
        assertEquals(List.of(new Feature(0, paris, 1f), new Feature(1, 3L, 1f)), got.get(0).getFeatures()); // log2 bucket of 3
        assertEquals(List.of(new Feature(1, 1L, 1f)), got.get(1).getFeatures());

        List<String> dead = deadLetters(topic, d -> d.getLocation() + " " + d.getReason() + " " + StandardCharsets.UTF_8.decode(d.getPayload()));
        assertEquals(List.of("line:3 unparsable b,1,rome", "line:5 bad-label d,7,oslo,1"), dead);

        Result noMapping = run("--bootstrap", kafka.bootstrapServers(), "--topic", topic, "--format", "jsonl", "--file", file.toString());
        assertEquals(2, noMapping.exitCode);
        assertTrue(noMapping.err.contains("--format jsonl needs --mapping FILE"), noMapping.err);
        Result wrongHeader = run("--bootstrap", kafka.bootstrapServers(), "--topic", topic, "--format", "avazu", "--file", file.toString());
        assertEquals(1, wrongHeader.exitCode);
        assertTrue(wrongHeader.err.contains("line 1 (header)"), wrongHeader.err);
    }

    @Test
    void aCsvRecordMayHoldLineBreaksInAQuotedFieldAndIsNumberedByItsFirstLine() throws Exception {
        Path mapping = dir.resolve("m.json");
        Files.writeString(mapping, "{\"label\": \"y\", \"id\": \"key\", \"features\": [{\"column\": \"city\", \"field\": 0}]}");
        Path file = dir.resolve("rows.csv");
        Files.writeString(file, String.join("\r\n",
                "key,y,city",      // 1 header
                "a,1,\"new",       // 2 good: a quoted field over two lines, its line break kept
                "york\"",          // 3
                "b,1,rome,x",      // 4 unparsable: 4 fields
                "c,1,\"rome",      // 5 unparsable: a quote never closed costs its line alone
                "d,0,oslo"));      // 6 good
        String topic = "ingest-csv-multiline";
        ingestCsv(mapping, file, topic, 2, 2);

        List<Example> got = examplesById(topic);
        assertEquals(List.of("a", "d"), got.stream().map(Example::getId).toList());
        long newYork = FeatureHashing.hash64(0, "new\r\nyork") & ((1L << ParseOptions.DEFAULT_HASH_BITS) - 1);
        assertEquals(List.of(new Feature(0, newYork, 1f)), got.get(0).getFeatures());

        List<String> dead = deadLetters(topic, d -> d.getLocation() + " " + d.getReason() + " " + d.getDetail() + " "
                + StandardCharsets.UTF_8.decode(d.getPayload()));
        assertEquals(List.of("line:4 unparsable expected 3 fields, found 4 b,1,rome,x", "line:5 unparsable unclosed quote c,1,\"rome"), dead);
    }

    @Test
    void syntheticWritesPlantedExamplesAndTheTruth() throws Exception {
        Path truth = dir.resolve("planted.json");
        String topic = "ingest-synthetic";
        Result r = run("--bootstrap", kafka.bootstrapServers(), "--topic", topic, "--synthetic", "300", "--seed", "5",
                "--truth", truth.toString(), "--base-time", "1000");
        assertEquals(0, r.exitCode, r.err);
        Matcher m = SUMMARY.matcher(r.out.strip());
        assertTrue(m.matches(), r.out);
        assertEquals("300", m.group(1));
        assertEquals("0", m.group(2));

        PlantedFm planted = PlantedFm.readTruth(truth);
        PlantedFm fresh = new PlantedFm(5);
        AvroCodec<Example> codec = AvroCodec.of(Example.class);
        List<ConsumerRecord<byte[], byte[]>> records = kafka.readAll(topic, false, Duration.ofSeconds(10));
        assertEquals(300, records.size());
        assertEquals(0, kafka.readAll(topic + ".dlq", false, Duration.ofSeconds(5)).size());
        for (ConsumerRecord<byte[], byte[]> rec : records) {
            Example e = codec.decode(rec.value());
            long i = Long.parseLong(e.getId().substring("synthetic-5:".length()));
            assertEquals(1000 + i, e.getEventTime().toEpochMilli());
            assertEquals(PlantedFm.DEFAULT_FIELDS, e.getFeatures().size());
            assertEquals(fresh.predict(e), planted.predict(e));
        }
    }

    @Test
    void syntheticCriteoWritesCriteoShapedExamplesThroughTheCriteoParser() throws Exception {
        String topic = "ingest-synthetic-criteo";
        Result r = run("--bootstrap", kafka.bootstrapServers(), "--topic", topic, "--synthetic-criteo", "200", "--seed", "4");
        assertEquals(0, r.exitCode, r.err);
        Matcher m = SUMMARY.matcher(r.out.strip());
        assertTrue(m.matches(), r.out);
        assertEquals("200", m.group(1));
        assertEquals("0", m.group(2));
        AvroCodec<Example> codec = AvroCodec.of(Example.class);
        List<ConsumerRecord<byte[], byte[]>> records = kafka.readAll(topic, false, Duration.ofSeconds(10));
        assertEquals(200, records.size());
        long fields = 0;
        for (ConsumerRecord<byte[], byte[]> rec : records) {
            Example e = codec.decode(rec.value());
            assertTrue(e.getId().startsWith("synthetic-criteo-4:"), e.getId());
            assertTrue(e.getFeatures().stream().allMatch(f -> f.getField() < CriteoParser.COLUMNS - 1), "Criteo's 39 fields");
            fields += e.getFeatures().size();
        }
        assertTrue(fields < 200L * 39 && fields > 200L * 28, "some values missing: " + fields);
    }

    @Test
    void usageErrorsAndMissingFiles() {
        Result both = run("--bootstrap", kafka.bootstrapServers(), "--topic", "t", "--synthetic", "1", "--file", "x");
        assertEquals(2, both.exitCode);
        assertTrue(both.err.contains("exactly one of"), both.err);
        assertEquals(2, run("--bootstrap", "b", "--topic", "t", "--file", "x").exitCode); // no --format
        assertEquals(2, run("--bootstrap", "b", "--topic", "t", "--format", "csv", "--file", "x").exitCode);
        Result missing = run("--bootstrap", kafka.bootstrapServers(), "--topic", "ingest-missing", "--format", "criteo",
                "--file", dir.resolve("nope.tsv").toString());
        assertEquals(1, missing.exitCode);
        assertTrue(missing.err.contains("no such file"), missing.err);
    }

    @Test
    void aSendFailureFailsTheRun() {
        IngestSettings settings = IngestSettings.of(kafka.connection(), "ingest-too-large")
                .withPartitions(1)
                .withProducerOverrides(Map.of("max.request.size", "200"));
        String big = "1" + " 1:1".repeat(100);
        var parser = LineFormat.LIBSVM.parser(ParseOptions.defaults("big"));
        IngestException e = assertThrows(IngestException.class,
                () -> Ingestor.ingestLines(settings, new InputLines(new ByteArrayInputStream((big + "\n").getBytes(StandardCharsets.UTF_8))),
                        "big", parser));
        assertTrue(e.getMessage().contains("not acknowledged"), e.getMessage());
    }

    /** {@code ingest --format csv} of the file through the mapping, which must write {@code good} examples and {@code bad} dead letters. */
    private void ingestCsv(Path mapping, Path file, String topic, int good, int bad) {
        Result r = run("--bootstrap", kafka.bootstrapServers(), "--topic", topic, "--format", "csv", "--mapping",
                mapping.toString(), "--file", file.toString(), "--partitions", "1");
        assertEquals(0, r.exitCode, r.err);
        Matcher m = SUMMARY.matcher(r.out.strip());
        assertTrue(m.matches(), r.out);
        assertEquals(String.valueOf(good), m.group(1));
        assertEquals(String.valueOf(bad), m.group(2));
    }

    /** The examples in the topic, by id. */
    private List<Example> examplesById(String topic) throws Exception {
        AvroCodec<Example> examples = AvroCodec.of(Example.class);
        List<Example> got = new ArrayList<>();
        for (ConsumerRecord<byte[], byte[]> rec : kafka.readAll(topic, false, Duration.ofSeconds(10))) {
            got.add(examples.decode(rec.value()));
        }
        got.sort(Comparator.comparing(Example::getId));
        return got;
    }

    /** The topic's dead letters, each as {@code describe} puts it, sorted. */
    private List<String> deadLetters(String topic, java.util.function.Function<DeadLetter, String> describe) throws Exception {
        AvroCodec<DeadLetter> dlq = AvroCodec.of(DeadLetter.class);
        List<String> dead = new ArrayList<>();
        for (ConsumerRecord<byte[], byte[]> rec : kafka.readAll(topic + ".dlq", false, Duration.ofSeconds(10))) {
            dead.add(describe.apply(dlq.decode(rec.value())));
        }
        dead.sort(Comparator.naturalOrder());
        return dead;
    }

    private record Result(int exitCode, String out, String err) {}

    private static Result run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = new CommandLine(new IngestCommand()).setOut(new PrintWriter(out)).setErr(new PrintWriter(err)).execute(args);
        return new Result(code, out.toString(), err.toString());
    }
}
