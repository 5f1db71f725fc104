package io.streamtrain.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.streamtrain.ingest.IngestSettings;
import io.streamtrain.ingest.synthetic.PlantedFm;
import io.streamtrain.ingest.synthetic.SyntheticIngest;
import io.streamtrain.model.ModelKind;
import io.streamtrain.ps.PsOptions;
import io.streamtrain.schema.TrainingMetrics;
import io.streamtrain.testing.KafkaFixture;
import io.streamtrain.train.TrainingOptions;
import io.streamtrain.train.run.TrainingRun;
import io.streamtrain.train.run.TrainingSummary;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import javax.imageio.ImageIO;
import org.apache.flink.configuration.Configuration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The live dashboard in a real headless Chromium during a real local training run (KRaft broker,
 * MiniCluster at parallelism 2, a steady planted-FM stream): the page must draw growing curves
 * while the job trains, and once the run is over show the job's own numbers — the examples its
 * workers reported on the metrics topic and the window AUC/logloss of the run's summary line.
 * Skipped when there is no chromium/chromedriver (Debian: chromium, chromium-driver).
 */
class DashboardIT {
    static final Duration WAIT = Duration.ofMinutes(2);
    static final int CHUNK = 250;

    static KafkaFixture kafka;
    static String topic;
    static Dashboard dashboard;
    static Thread stream;
    static Thread training;
    static final AtomicLong written = new AtomicLong();
    static final AtomicReference<Object> outcome = new AtomicReference<>();
    static final ByteArrayOutputStream progress = new ByteArrayOutputStream();

    @TempDir
    static Path dir;

    @BeforeAll
    static void startTraining() throws Exception {
        HeadlessChromium.unavailable().ifPresent(why -> Assumptions.abort("DashboardIT skipped: " + why));
        kafka = KafkaFixture.shared();
        topic = "dashboard-it-" + System.nanoTime();
        kafka.createTopic(topic, 2);
        // Started before the job exists: the page must wait for the metrics topic to appear.
        dashboard = Dashboard.start(kafka.connection(), topic + ".metrics", 0);

        PlantedFm truth = new PlantedFm(11, PlantedFm.DEFAULT_FIELDS, 50, PlantedFm.DEFAULT_ZIPF_EXPONENT, PlantedFm.DEFAULT_DIM);
        IngestSettings ingest = IngestSettings.of(kafka.connection(), topic);
        stream = new Thread(() -> {
            for (long chunk = 0; !Thread.currentThread().isInterrupted(); chunk++) {
                // Counted before it is sent: the interrupt that ends the stream may stop a chunk
                // after its records reached Kafka (CI: 8,000 trained of 7,750 counted).
                written.addAndGet(CHUNK);
                SyntheticIngest.ingestSynthetic(ingest, truth, CHUNK, 1000 + chunk, System.currentTimeMillis());
                try {
                    Thread.sleep(250);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "dashboard-it-stream");
        stream.setDaemon(true);
        stream.start();

        Configuration conf = new Configuration();
        conf.set(TrainingOptions.BOOTSTRAP, kafka.bootstrapServers());
        conf.set(TrainingOptions.TOPIC, topic);
        conf.set(TrainingOptions.NAME, topic);
        conf.set(TrainingOptions.MODEL, ModelKind.FM);
        conf.set(TrainingOptions.BATCH_SIZE, 256);
        conf.set(TrainingOptions.VALIDATION_WINDOW, 2000);
        conf.set(PsOptions.DIM, 4);
        TrainingRun.Settings settings = new TrainingRun.Settings(conf, dir.resolve("checkpoints"), 2,
                Duration.ofSeconds(1), Duration.ofSeconds(5), false, new PrintStream(progress, true, StandardCharsets.UTF_8));
        training = new Thread(() -> {
            try {
                outcome.set(TrainingRun.run(settings));
            } catch (Throwable t) {
                outcome.set(t);
            }
        }, "dashboard-it-training");
        training.start();
    }

    @AfterAll
    static void stop() throws Exception {
        if (stream != null) {
            stream.interrupt();
            stream.join(10_000);
        }
        if (training != null) {
            training.interrupt();
            training.join(WAIT.toMillis());
            Files.writeString(Path.of("target", "dashboard-it-train.log"), progress.toString(StandardCharsets.UTF_8));
        }
        if (dashboard != null) {
            dashboard.close();
        }
    }

    /** What the page shows: its numbers (text and data-value), how often it updated, how many points its curve has. */
    record Page(long updates, long records, long points, Map<String, String> values, Map<String, String> texts) {
        double number(String key) {
            String v = values.get(key);
            return v == null || v.isEmpty() ? Double.NaN : Double.parseDouble(v);
        }
    }

    static final String READ_PAGE = """
            var now = {}, texts = {};
            document.querySelectorAll('#now td').forEach(function (td) {
              now[td.id.substring(4)] = td.getAttribute('data-value'); texts[td.id.substring(4)] = td.textContent; });
            var line = document.querySelector('#chart-examples-per-second polyline');
            return {updates: Number(document.body.getAttribute('data-updates') || 0),
                    records: Number(document.body.getAttribute('data-records') || 0),
                    points: line ? Number(line.getAttribute('data-points')) : 0, values: now, texts: texts};
            """;

    static Page read(HeadlessChromium chrome) throws Exception {
        JsonNode j = chrome.script(READ_PAGE);
        Map<String, String> values = new HashMap<>();
        Map<String, String> texts = new HashMap<>();
        j.get("values").fields().forEachRemaining(e -> values.put(e.getKey(), e.getValue().isNull() ? null : e.getValue().asText()));
        j.get("texts").fields().forEachRemaining(e -> texts.put(e.getKey(), e.getValue().asText()));
        return new Page(j.get("updates").asLong(), j.get("records").asLong(), j.get("points").asLong(), values, texts);
    }

    static Page await(HeadlessChromium chrome, String what, Predicate<Page> ready, boolean whileTraining) throws Exception {
        long deadline = System.nanoTime() + WAIT.toNanos();
        Page last = null;
        while (System.nanoTime() < deadline) {
            if (whileTraining && outcome.get() != null) {
                throw new AssertionError("training ended before the page showed " + what + ": " + outcome.get() + "; page: " + last);
            }
            last = read(chrome);
            if (ready.test(last)) {
                return last;
            }
            Thread.sleep(500);
        }
        throw new AssertionError("the page did not show " + what + " within " + WAIT + "; last: " + last);
    }

    @Test
    void pageDrawsTheRunLiveAndShowsTheJobsOwnNumbers() throws Exception {
        try (HeadlessChromium chrome = HeadlessChromium.start(Path.of("target"), 1400, 1000)) {
            chrome.open(dashboard.url());

            // Live: the page's own polling brings new seconds while the job trains.
            Page first = await(chrome, "trained examples and a window AUC",
                    p -> p.number("examples") > 0 && !Double.isNaN(p.number("auc")) && p.points() >= 2, true);
            Page later = await(chrome, "its curves growing",
                    p -> p.updates() > first.updates() && p.number("examples") > first.number("examples")
                            && p.points() > Math.max(first.points(), 6), true);
            assertTrue(later.number("examples-per-second") > 0, "examples/s while the stream runs: " + later);

            byte[] png = chrome.screenshot();
            Files.write(Path.of("target", "dashboard-it.png"), png);
            assertDrawn(png);

            // Over: the run's summary and its metrics topic are the truth the page must show.
            stream.interrupt();
            stream.join(10_000);
            training.join(WAIT.toMillis());
            assertTrue(outcome.get() instanceof TrainingSummary, "training returned a summary: " + outcome.get());
            TrainingSummary summary = (TrainingSummary) outcome.get();
            assertEquals(0, summary.restarts(), "a run without failures (the examples rule below assumes one attempt)");

            MetricsTopic metrics = MetricsTopic.readToEnd(kafka.connection(), topic + ".metrics", WAIT);
            long topicRecords = metrics.records().size() + metrics.unreadable();
            Map<Integer, Long> examplesBySubtask = new HashMap<>();
            for (TrainingMetrics m : metrics.records()) {
                if ("worker".equals(m.getOperator())) {
                    examplesBySubtask.merge(m.getSubtask(), m.getExamples(), Math::max);
                }
            }
            long reported = examplesBySubtask.values().stream().mapToLong(Long::longValue).sum();

            Page last = await(chrome, "every record of the metrics topic (" + topicRecords + ")", p -> p.records() >= topicRecords, false);
            assertEquals(2, examplesBySubtask.size(), "two worker subtasks reported");
            assertEquals(reported, (long) last.number("examples"), "examples trained = Σ the workers' own counts on the metrics topic");
            assertEquals(Long.toString(reported), last.texts().get("examples"));
            assertTrue(reported <= summary.records() && summary.records() <= written.get(),
                    "the workers report what they trained (at most the run's records, at most what was written): "
                            + reported + " / " + summary.records() + " / " + written.get());
            assertEquals(summary.windowAuc(), last.number("auc"), 1e-9, "window AUC = the run's summary");
            assertEquals(String.format(Locale.ROOT, "%.4f", summary.windowAuc()), last.texts().get("auc"));
            assertEquals(summary.windowLogloss(), last.number("logloss"), 1e-9, "window logloss = the run's summary");
            assertTrue(summary.windowAuc() > 0 && summary.windowAuc() < 1, "a window AUC: " + summary.windowAuc());
            double checkpoints = last.number("checkpoints");
            assertTrue(checkpoints >= 1 && checkpoints <= summary.checkpoints(),
                    "checkpoint markers (one per growth of the completed id) within the run's " + summary.checkpoints() + ": " + checkpoints);
            assertEquals(0, last.number("rescales"));
            assertEquals(0, last.number("recoveries"));
            assertTrue(last.number("lag") >= 0, "lag shown: " + last);
            assertNotNull(last.values().get("staleness-p99"), "staleness shown: " + last);
            assertTrue(last.number("staleness-p99") >= 0, "staleness shown: " + last);
        }
    }

    /** A real rendering: a full-width PNG with the page's colours and the curves' blue in it. */
    private static void assertDrawn(byte[] png) throws Exception {
        assertTrue(png.length > 10_000, "a non-trivial PNG: " + png.length + " bytes");
        BufferedImage image = ImageIO.read(new ByteArrayInputStream(png));
        assertNotNull(image, "the screenshot is a PNG");
        assertTrue(image.getWidth() >= 1200 && image.getHeight() >= 800, image.getWidth() + "x" + image.getHeight());
        Set<Integer> colours = new HashSet<>();
        long curve = 0;
        for (int y = 0; y < image.getHeight(); y++) {
            for (int x = 0; x < image.getWidth(); x++) {
                int rgb = image.getRGB(x, y) & 0xffffff;
                colours.add(rgb);
                int r = rgb >> 16, g = (rgb >> 8) & 0xff, b = rgb & 0xff;
                if (b > 150 && b > r + 80 && b > g + 40) {
                    curve++;
                }
            }
        }
        assertTrue(colours.size() > 20, "more than a blank page: " + colours.size() + " colours");
        assertTrue(curve > 200, "curves drawn in the curve colour: " + curve + " pixels");
    }
}
