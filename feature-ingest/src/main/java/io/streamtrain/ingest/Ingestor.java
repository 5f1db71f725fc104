package io.streamtrain.ingest;

import io.streamtrain.ingest.format.CriteoParser;
import io.streamtrain.ingest.format.LineParser;
import io.streamtrain.ingest.format.ParseOptions;
import io.streamtrain.ingest.format.ParseResult;
import io.streamtrain.ingest.synthetic.CriteoShaped;
import io.streamtrain.ingest.synthetic.PlantedFm;
import io.streamtrain.ingest.synthetic.SyntheticEvents;
import io.streamtrain.kafka.Topics;
import io.streamtrain.schema.AvroCodec;
import io.streamtrain.schema.Click;
import io.streamtrain.schema.DeadLetter;
import io.streamtrain.schema.Example;
import io.streamtrain.schema.Impression;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The core of {@code streamtrain ingest}, callable in-process: parses lines (or draws synthetic
 * examples), writes good examples as Avro to the topic and rejected lines as {@code DeadLetter}s
 * to the dead-letter topic, and returns only after Kafka acknowledged every record.
 *
 * <p>Records carry no key: the sticky partitioner then fills large batches, and the example id
 * travels in the value. The producer is idempotent with {@code acks=all}, so broker retries
 * cannot duplicate or reorder records within a partition.
 */
public final class Ingestor {
    private static final Logger LOG = LoggerFactory.getLogger(Ingestor.class);
    /** Mixed into the seed for the example draws, so they are not the stream the weights came from. */
    private static final long DATA_SEED_MIX = 0x5851F42D4C957F2DL;

    private Ingestor() {}

    /** Ingests a file, or stdin for {@code "-"}; dead letters name the path as given. */
    public static IngestStats ingestFile(IngestSettings settings, String file, LineParser parser) {
        if ("-".equals(file)) {
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8), 1 << 16);
            return ingestLines(settings, in, "stdin", parser);
        }
        try (BufferedReader in = new BufferedReader(
                new InputStreamReader(Files.newInputStream(Path.of(file)), StandardCharsets.UTF_8), 1 << 16)) {
            return ingestLines(settings, in, file, parser);
        } catch (NoSuchFileException e) {
            throw new IngestException("no such file: " + file, e);
        } catch (IOException e) {
            throw new IngestException("could not read " + file + ": " + e.getMessage(), e);
        }
    }

    /**
     * Ingests lines; line numbers are 1-based and count a header line (which a CSV parser reads first). Bytes that are not UTF-8 in a file read as U+FFFD
     * (a replacing decoder): one bad byte must not abort a long run, and such a line usually
     * ends up rejected.
     */
    public static IngestStats ingestLines(IngestSettings settings, BufferedReader lines, String source, LineParser parser) {
        try (Run run = new Run(settings)) {
            long lineNumber = 0;
            String line;
            try {
                if (parser.expectsHeader()) {
                    String header = lines.readLine();
                    if (header == null) {
                        return run.finish();
                    }
                    lineNumber = 1;
                    try {
                        parser = parser.afterHeader(header);
                    } catch (IllegalArgumentException e) {
                        throw new IngestException(source + " line 1 (header): " + e.getMessage(), e);
                    }
                }
                while ((line = lines.readLine()) != null) {
                    lineNumber++;
                    ParseResult result = parser.parse(line, lineNumber);
                    if (result instanceof ParseResult.Ok ok) {
                        run.example(ok.example());
                    } else {
                        run.deadLetter(DeadLetters.forLine(source, lineNumber, (ParseResult.Rejected) result, line, Instant.now()));
                    }
                }
            } catch (IOException e) {
                throw new IngestException("could not read " + source + " after line " + lineNumber + ": " + e.getMessage(), e);
            }
            return run.finish();
        }
    }

    /**
     * Ingests {@code n} examples drawn from the planted model with {@code new Random(seed ^ mix)};
     * example i (1-based) has id {@code synthetic-<seed>:<i>} and event time {@code baseTimeMillis + i}.
     */
    public static IngestStats ingestSynthetic(IngestSettings settings, PlantedFm model, long n, long seed, long baseTimeMillis) {
        Random random = new Random(seed ^ DATA_SEED_MIX);
        String prefix = "synthetic-" + seed + ":";
        try (Run run = new Run(settings)) {
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
        return ingestLines(settings, new BufferedReader(lines.lines(n, seed ^ DATA_SEED_MIX), 1 << 16), source,
                new CriteoParser(ParseOptions.defaults(source)));
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
        try (Run run = new Run(settings, topics)) {
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

    /** The producer configuration ingest uses (before overrides). */
    public static Properties producerProperties(String bootstrapServers) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        p.put(ProducerConfig.CLIENT_ID_CONFIG, "streamtrain-ingest");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        // Throughput: large, briefly lingering, compressed batches (lz4: cheap on CPU).
        p.put(ProducerConfig.LINGER_MS_CONFIG, "20");
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, String.valueOf(256 * 1024));
        p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
        p.put(ProducerConfig.BUFFER_MEMORY_CONFIG, String.valueOf(64L << 20));
        // Fail a run against an unreachable cluster in 30 s rather than hanging.
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "30000");
        return p;
    }

    /** One run: the producer, the counters, the first send failure and the progress clock. */
    private static final class Run implements AutoCloseable {
        private final IngestSettings settings;
        private final KafkaProducer<byte[], byte[]> producer;
        private final DeadLetterWriter deadLetters;
        private final AvroCodec<Example> codec = AvroCodec.of(Example.class);
        private final AtomicReference<Exception> failure = new AtomicReference<>();
        private final Callback onAck = (metadata, e) -> {
            if (e != null) {
                failure.compareAndSet(null, e);
            }
        };
        private final long startNanos = System.nanoTime();
        private final long progressNanos;
        private long nextProgress;
        private long records;
        private long bad;
        private long bytes;

        /** Writes examples to the topic and dead letters beside it. */
        Run(IngestSettings settings) {
            this(settings, Map.of(settings.topic(), settings.partitions(), settings.deadLetterTopic(), settings.partitions()));
        }

        /** Creates {@code topics} (name to partitions) first unless the settings say not to. */
        Run(IngestSettings settings, Map<String, Integer> topics) {
            this.settings = settings;
            if (settings.partitions() > 0) {
                try {
                    Topics.ensure(settings.bootstrapServers(), topics);
                } catch (KafkaException e) {
                    throw new IngestException("could not create topics " + topics.keySet() + " on "
                            + settings.bootstrapServers() + ": " + e.getMessage(), e);
                }
            }
            Properties p = producerProperties(settings.bootstrapServers());
            p.putAll(settings.producerOverrides());
            this.producer = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
            this.deadLetters = new DeadLetterWriter(producer, settings.deadLetterTopic());
            this.progressNanos = settings.progressInterval().toNanos();
            this.nextProgress = startNanos + progressNanos;
        }

        void example(Example example) {
            byte[] value = codec.encode(example);
            send(() -> producer.send(new ProducerRecord<>(settings.topic(), null, value), onAck));
            records++;
            bytes += value.length;
            tick();
        }

        /** A record keyed by {@code key} (UTF-8), for topics read by key such as the joiner's. */
        void keyed(String topic, String key, byte[] value) {
            byte[] k = key.getBytes(StandardCharsets.UTF_8);
            send(() -> producer.send(new ProducerRecord<>(topic, k, value), onAck));
            records++;
            bytes += value.length;
            tick();
        }

        void deadLetter(DeadLetter deadLetter) {
            int[] size = new int[1];
            send(() -> size[0] = deadLetters.write(deadLetter, onAck));
            bad++;
            bytes += size[0];
            tick();
        }

        private void send(Runnable send) {
            checkFailure();
            try {
                send.run();
            } catch (KafkaException e) {
                throw new IngestException("send to " + settings.bootstrapServers() + " failed: " + e.getMessage(), e);
            }
        }

        private void checkFailure() {
            Exception e = failure.get();
            if (e != null) {
                throw new IngestException("a record was not acknowledged by Kafka (" + settings.bootstrapServers()
                        + "): " + e.getMessage(), e);
            }
        }

        private void tick() {
            if (settings.progress() == null) {
                return;
            }
            long now = System.nanoTime();
            if (now >= nextProgress) {
                nextProgress = now + progressNanos;
                double seconds = (now - startNanos) / 1e9;
                settings.progress().accept(String.format(Locale.ROOT,
                        "ingest: %,d records, %,d bad, %.1f MB, %,.0f records/s", records, bad, bytes / 1e6, records / seconds));
            }
        }

        IngestStats finish() {
            try {
                producer.flush(); // every send is acknowledged (or failed) once this returns
            } catch (KafkaException e) {
                throw new IngestException("flush to " + settings.bootstrapServers() + " failed: " + e.getMessage(), e);
            }
            checkFailure();
            double seconds = (System.nanoTime() - startNanos) / 1e9;
            IngestStats stats = new IngestStats(records, bad, bytes, seconds, settings.topic(), settings.deadLetterTopic());
            LOG.debug("{}", stats.summaryLine()); // the command prints it; avoid a second copy on stdout
            return stats;
        }

        @Override
        public void close() {
            // After a failure there may be records that can never be sent: do not wait long for them.
            producer.close(failure.get() == null ? Duration.ofSeconds(30) : Duration.ZERO);
        }
    }
}
