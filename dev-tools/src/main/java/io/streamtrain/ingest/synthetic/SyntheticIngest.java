package io.streamtrain.ingest.synthetic;

import io.streamtrain.ingest.IngestSettings;
import io.streamtrain.ingest.IngestStats;
import io.streamtrain.ingest.Ingestor;
import io.streamtrain.ingest.format.CriteoParser;
import io.streamtrain.ingest.format.InputLines;
import io.streamtrain.ingest.format.ParseOptions;
import io.streamtrain.schema.AvroCodec;
import io.streamtrain.schema.Click;
import io.streamtrain.schema.Impression;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Random;

/** Planted synthetic data into Kafka through an {@link Ingestor.Run}: examples for training, or impressions and clicks for the joiner. */
public final class SyntheticIngest {
    /** Mixed into the seed for the example draws, so they are not the stream the weights came from. */
    private static final long DATA_SEED_MIX = 0x5851F42D4C957F2DL;

    private SyntheticIngest() {}

    /**
     * Ingests {@code n} examples drawn from the planted model with {@code new Random(seed ^ mix)};
     * example i (1-based) has id {@code synthetic-<seed>:<i>} and event time {@code baseTimeMillis + i}.
     */
    public static IngestStats ingestSynthetic(IngestSettings settings, PlantedFm model, long n, long seed, long baseTimeMillis) {
        Random random = new Random(seed ^ DATA_SEED_MIX);
        String prefix = "synthetic-" + seed + ":";
        try (Ingestor.Run run = new Ingestor.Run(settings)) {
            for (long i = 1; i <= n; i++) {
                run.example(model.next(random, prefix + i, baseTimeMillis + i));
            }
            return run.finish();
        }
    }

    /**
     * Ingests {@code n} Criteo-shaped lines (drawn with {@code new Random(seed ^ mix)}) through the
     * Criteo parser, as {@code ingest --format criteo} would a file of them.
     */
    public static IngestStats ingestSyntheticCriteo(IngestSettings settings, CriteoShaped lines, long n, long seed) {
        String source = "synthetic-criteo-" + seed;
        InputLines input = new InputLines(ascii(new BufferedReader(lines.lines(n, seed ^ DATA_SEED_MIX), 1 << 16)));
        return Ingestor.ingestLines(settings, input, source, new CriteoParser(ParseOptions.defaults(source)));
    }

    /** The generator writes ASCII only, so each char is one byte. */
    private static InputStream ascii(Reader reader) {
        return new InputStream() {
            @Override
            public int read() throws IOException {
                return reader.read();
            }
        };
    }

    /**
     * Writes a synthetic impression/click stream: impressions to {@code settings.topic()}, clicks to
     * {@code clicksTopic}, both keyed by impression id (so an id's events share a partition and keep
     * their order, as the joiner asks), in delivery order.
     */
    public static SyntheticEventsRun ingestSyntheticEvents(IngestSettings settings, String clicksTopic, SyntheticEvents events) {
        Map<String, Integer> topics = new LinkedHashMap<>();
        topics.put(settings.topic(), settings.partitions());
        topics.put(clicksTopic, settings.partitions());
        AvroCodec<Impression> impressions = AvroCodec.of(Impression.class);
        AvroCodec<Click> clicks = AvroCodec.of(Click.class);
        try (Ingestor.Run run = new Ingestor.Run(settings, topics)) {
            SyntheticEvents.Stats stats = events.generate(new SyntheticEvents.Sink() {
                @Override
                public void impression(Impression i) {
                    run.keyed(settings.topic(), i.getImpressionId(), impressions.encode(i));
                }

                @Override
                public void click(Click c) {
                    run.keyed(clicksTopic, c.getImpressionId(), clicks.encode(c));
                }
            });
            return new SyntheticEventsRun(run.finish(), stats, clicksTopic);
        }
    }

    /** The outcome of {@link #ingestSyntheticEvents}. */
    public record SyntheticEventsRun(IngestStats io, SyntheticEvents.Stats events, String clicksTopic) {
        /** {@code ingest: impressions=… clicks=… … planted_auc=… seconds=… rate=…/s impressions_topic=… clicks_topic=…}. */
        public String summaryLine() {
            return String.format(Locale.ROOT, "ingest: impressions=%d clicks=%d duplicate_impressions=%d duplicate_clicks=%d"
                            + " clicks_beyond_window=%d ctr=%.4f planted_auc=%.4f records=%d bytes=%d seconds=%.3f rate=%.0f/s"
                            + " impressions_topic=%s clicks_topic=%s",
                    events.impressions(), events.clicks(), events.duplicateImpressions(), events.duplicateClicks(),
                    events.clicksBeyondWindow(), events.ctr(), events.plantedAuc(), io.records(), io.bytes(), io.seconds(),
                    io.rate(), io.topic(), clicksTopic);
        }
    }
}
