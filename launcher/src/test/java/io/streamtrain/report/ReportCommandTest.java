package io.streamtrain.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtrain.schema.TrainingMetrics;
import io.streamtrain.schema.TrainingMetricsCodec;
import io.streamtrain.testing.KafkaFixture;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code report} reads a real metrics topic to its end and writes the run's curves and summary. */
class ReportCommandTest {
    private final KafkaFixture kafka = KafkaFixture.shared();

    @Test
    void writesCurvesAndSummaryOfTheTopicsRun(@TempDir Path dir) throws Exception {
        String topic = "report-" + System.nanoTime() + ".metrics";
        kafka.createTopic(topic, 1);
        TrainingMetricsCodec codec = new TrainingMetricsCodec();
        try (KafkaProducer<byte[], byte[]> producer = kafka.producer()) {
            for (TrainingMetrics m : RunTimelineTest.run()) {
                producer.send(new ProducerRecord<>(topic, codec.encode(m)));
            }
            producer.send(new ProducerRecord<>(topic, "not a metrics record".getBytes(StandardCharsets.UTF_8)));
            producer.flush();
        }
        Path out = dir.resolve("run.html");
        int code = new CommandLine(new io.streamtrain.cli.ReportCommand())
                .execute("--bootstrap", kafka.bootstrapServers(), "--metrics-topic", topic, "--out", out.toString());
        assertEquals(0, code);
        String html = Files.readString(out);
        assertTrue(html.contains("<tr><th>examples trained</th><td>2940</td></tr>"), html);
        assertTrue(html.contains("<tr><th>rescales</th><td>1</td></tr>"), html);
        assertTrue(html.contains("<tr><th>recoveries</th><td>1</td></tr>"), html);
        assertTrue(html.contains("<tr><th>last staleness p99 ms</th><td>120</td></tr>"), html);
        assertTrue(html.contains("<tr><th>last base-rate logloss</th><td>0.5004</td></tr>"), html);
        assertTrue(html.contains("<td id=\"warning\" style=\"color:#c00\">window logloss 0.6765 is above the base-rate predictor's 0.5004"), html);
        assertEquals(5, html.split("<polyline", -1).length - 1, "one curve per series");
        assertTrue(html.contains("class=\"recovery\""), "the recovery is marked on the charts");
        assertTrue(!html.contains("<script") && !html.contains("http"), "self-contained: no scripts, no external assets");

        Path svgs = dir.resolve("img");
        assertEquals(0, new CommandLine(new io.streamtrain.cli.ReportCommand())
                .execute("--bootstrap", kafka.bootstrapServers(), "--metrics-topic", topic, "--svg-dir", svgs.toString()));
        for (ReportWriter.Series s : ReportWriter.SERIES) {
            String svg = Files.readString(svgs.resolve(topic + "-" + s.key() + ".svg"));
            assertTrue(svg.startsWith("<svg xmlns=\"http://www.w3.org/2000/svg\""), "a standalone SVG document: " + svg);
            int curve = svg.indexOf("<polyline");
            assertTrue(html.contains(svg.substring(svg.indexOf("<rect"), svg.indexOf("/>", curve) + 2)),
                    "the same markers and curve as the report's " + s.title());
            assertTrue(svg.contains(">" + s.title() + "</text>"), "a standalone plot names its series");
        }
        javax.xml.parsers.DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(svgs.resolve(topic + "-auc.svg").toFile()); // well-formed XML
    }
}
