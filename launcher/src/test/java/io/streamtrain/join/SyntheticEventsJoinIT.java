package io.streamtrain.join;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtrain.ingest.IngestCommand;
import io.streamtrain.ingest.synthetic.Auc;
import io.streamtrain.ingest.synthetic.SyntheticEvents;
import io.streamtrain.schema.AvroCodec;
import io.streamtrain.schema.Click;
import io.streamtrain.schema.DeadLetter;
import io.streamtrain.schema.Example;
import io.streamtrain.schema.Impression;
import io.streamtrain.testing.KafkaFixture;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.configuration.Configuration;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code ingest --synthetic-events} into a real broker, the joiner over it on a MiniCluster, and
 * the joined examples compared with {@link JoinScenario}'s independent join of the events as
 * they sit in the topics. One ingest and one join for the class (broker shared).
 */
class SyntheticEventsJoinIT {
    private static final long WINDOW_MS = 60_000;
    private static final long SEED = 9;
    private final KafkaFixture kafka = KafkaFixture.shared();

    @Test
    void theJoinOfSyntheticEventsMatchesAnIndependentJoinAndCarriesThePlantedSignal(@TempDir Path dir) throws Exception {
        String t = "synth-" + System.nanoTime();
        String[] args = {"--bootstrap", kafka.bootstrapServers(), "--synthetic-events", "4000", "--seed", String.valueOf(SEED),
                "--impressions", t + ".impressions", "--clicks", t + ".clicks", "--truth", dir.resolve("truth.json").toString(),
                "--base-time", String.valueOf(JoinScenario.BASE), "--window", "1m", "--interval", "50ms", "--click-delay", "10s",
                "--ctr", "0.2", "--beyond-window", "0.1", "--duplicates", "0.03", "--disorder", "3s", "--users", "500",
                "--items", "100"};
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = new CommandLine(new IngestCommand());
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        assertEquals(0, cli.execute(args), err.toString());
        Matcher summary = Pattern.compile("ingest: impressions=(\\d+) clicks=(\\d+) duplicate_impressions=(\\d+)"
                + " duplicate_clicks=(\\d+) clicks_beyond_window=(\\d+) ctr=\\S+ planted_auc=(\\S+) records=(\\d+) .*").matcher(out.toString().trim());
        assertTrue(summary.matches(), out.toString());
        assertEquals(4000, Long.parseLong(summary.group(1)));
        assertTrue(Files.size(dir.resolve("truth.json")) > 1000, "the planted truth is written beside the events");

        // The events as the joiner will read them, per partition in log order.
        JoinScenario scenario = new JoinScenario();
        AvroCodec<Impression> impressions = AvroCodec.of(Impression.class);
        AvroCodec<Click> clicks = AvroCodec.of(Click.class);
        for (ConsumerRecord<byte[], byte[]> r : kafka.readAll(t + ".impressions", false, Duration.ofSeconds(30))) {
            Impression i = impressions.decode(r.value());
            assertEquals(i.getImpressionId(), new String(r.key(), StandardCharsets.UTF_8), "keyed by impression id");
            scenario.addImpression(i);
        }
        for (ConsumerRecord<byte[], byte[]> r : kafka.readAll(t + ".clicks", false, Duration.ofSeconds(30))) {
            Click c = clicks.decode(r.value());
            assertEquals(c.getImpressionId(), new String(r.key(), StandardCharsets.UTF_8), "keyed by impression id");
            scenario.addClick(c.getImpressionId(), c.getEventTime().toEpochMilli());
        }
        long records = Long.parseLong(summary.group(7));
        assertEquals(records, scenario.impressions.size() + scenario.clicks.size(), "every record the summary counts is in Kafka");

        Configuration conf = new Configuration();
        conf.set(JoinOptions.BOOTSTRAP, kafka.bootstrapServers());
        conf.set(JoinOptions.IMPRESSIONS_TOPIC, t + ".impressions");
        conf.set(JoinOptions.CLICKS_TOPIC, t + ".clicks");
        conf.set(JoinOptions.OUT_TOPIC, t + ".out");
        conf.set(JoinOptions.NAME, t);
        conf.set(JoinOptions.WINDOW, Duration.ofMillis(WINDOW_MS));
        conf.set(JoinOptions.UNTIL_END, true); // out-of-orderness stays at its default (30 s), above the 3 s disorder
        JoinRun.Summary join = JoinRun.run(new JoinRun.Settings(conf, dir.resolve("checkpoints"), 2, Duration.ofMillis(500),
                null, true, System.err));
        System.err.println(join.line());

        JoinScenario.Expected expected = scenario.expected(WINDOW_MS);
        Map<String, Example> joined = readExamples(t + ".out");
        assertEquals(4000, expected.labels().size());
        assertEquals(expected.labels().size(), joined.size(), "one example per distinct impression");
        SyntheticEvents generator = new SyntheticEvents(SyntheticEvents.Settings.defaults(0, 0).withPopulation(500, 100)
                .withCtr(0.2), SEED);
        double[] planted = new double[joined.size()];
        float[] labels = new float[joined.size()];
        int k = 0;
        for (Map.Entry<String, Float> e : expected.labels().entrySet()) {
            Example ex = joined.get(e.getKey());
            Impression imp = scenario.firstImpression.get(e.getKey());
            assertEquals(e.getValue(), ex.getLabel(), e.getKey());
            assertEquals(JoinScenario.impressionsMappingFeatures(imp), ex.getFeatures(), "the built-in impressions mapping");
            planted[k] = generator.model().probability(imp);
            labels[k++] = ex.getLabel();
        }
        assertEquals(Map.of("click-outside-window", expected.deadLetters().get("click-outside-window")),
                deadLetterReasons(t + ".out.dlq"), "only the planted beyond-window clicks are dead letters");
        assertTrue(expected.deadLetters().get("click-outside-window") >= Long.parseLong(summary.group(5)),
                "each beyond-window click (and its duplicates) is dead-lettered");
        assertTrue(expected.positives() > 400, "positives: " + expected.positives());
        double auc = Auc.of(planted, labels);
        assertTrue(auc > 0.65, "the planted model ranks the joined labels: AUC " + auc);
        assertEquals(Double.parseDouble(summary.group(6)), auc, 1e-3, "as the ingest summary said");
        assertEquals(scenario.impressions.size(), join.impressions(), join.line());
    }

    private Map<String, Example> readExamples(String topic) throws Exception {
        AvroCodec<Example> examples = AvroCodec.of(Example.class);
        Map<String, Example> out = new HashMap<>();
        for (ConsumerRecord<byte[], byte[]> r : kafka.readAll(topic, true, Duration.ofSeconds(30))) {
            Example e = examples.decode(r.value());
            assertNull(out.put(e.getId(), e), "duplicate example " + e.getId());
        }
        return out;
    }

    private Map<String, Long> deadLetterReasons(String topic) throws Exception {
        AvroCodec<DeadLetter> deadLetters = AvroCodec.of(DeadLetter.class);
        Map<String, Long> reasons = new HashMap<>();
        for (ConsumerRecord<byte[], byte[]> r : kafka.readAll(topic, true, Duration.ofSeconds(30))) {
            reasons.merge(deadLetters.decode(r.value()).getReason(), 1L, Long::sum);
        }
        return reasons;
    }
}
