package io.streamtrain.ingest;

import io.streamtrain.ingest.format.InputLines;
import io.streamtrain.ingest.format.LineParser;
import io.streamtrain.ingest.format.ParseResult;
import io.streamtrain.kafka.KafkaClientConfig;
import io.streamtrain.kafka.KafkaConnection;
import io.streamtrain.kafka.KafkaPreflight;
import io.streamtrain.kafka.Topics;
import io.streamtrain.schema.AvroCodec;
import io.streamtrain.schema.DeadLetter;
import io.streamtrain.schema.Example;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The core of {@code streamtrain ingest}, callable in-process: parses lines (or takes examples
 * from a {@link Run}), writes good examples as Avro to the topic and rejected lines as {@code DeadLetter}s
 * to the dead-letter topic, and returns only after Kafka acknowledged every record.
 *
 * <p>Records carry no key: the sticky partitioner then fills large batches, and the example id
 * travels in the value. The producer is idempotent with {@code acks=all}, so broker retries
 * cannot duplicate or reorder records within a partition.
 */
public final class Ingestor {
    private static final Logger LOG = LoggerFactory.getLogger(Ingestor.class);

    private Ingestor() {}

    /** Ingests a file, or stdin for {@code "-"}; dead letters name the path as given. */
    public static IngestStats ingestFile(IngestSettings settings, String file, LineParser parser) {
        if ("-".equals(file)) {
            return ingestLines(settings, new InputLines(System.in), "stdin", parser);
        }
        try (InputLines in = new InputLines(Files.newInputStream(Path.of(file)))) {
            return ingestLines(settings, in, file, parser);
        } catch (NoSuchFileException e) {
            throw new IngestException("no such file: " + file, e);
        } catch (IOException e) {
            throw new IngestException("could not read " + file + ": " + e.getMessage(), e);
        }
    }

    /**
     * Ingests lines; line numbers are 1-based and count a header line (which a CSV parser reads
     * first); a CSV record whose quoted field holds line breaks is one example, numbered by its
     * first line ({@link InputLines#next(LineParser)}). A rejected line's dead letter carries the bytes it was read from, even where they
     * are not UTF-8 (see {@link InputLines}).
     */
    public static IngestStats ingestLines(IngestSettings settings, InputLines lines, String source, LineParser parser) {
        try (Run run = new Run(settings)) {
            long lineNumber = 0;
            String line;
            try {
                if (parser.expectsHeader()) {
                    String header = lines.next();
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
                while ((line = lines.next(parser)) != null) {
                    long first = lineNumber + 1; // a CSV record may take several lines: it is known by its first
                    lineNumber += lines.lines();
                    ParseResult result = parser.parse(line, first);
                    if (result instanceof ParseResult.Ok ok) {
                        run.example(ok.example());
                    } else {
                        run.deadLetter(DeadLetters.forLine(source, first, (ParseResult.Rejected) result, lines.bytes(), Instant.now()));
                    }
                }
            } catch (IOException e) {
                throw new IngestException("could not read " + source + " after line " + lineNumber + ": " + e.getMessage(), e);
            }
            return run.finish();
        }
    }

    /** Ingest's producer: idempotent, throughput-tuned defaults that the user's client properties may replace. */
    public static KafkaClientConfig producer(KafkaConnection kafka) {
        return kafka.client()
                .idempotent()
                .withDefault(ProducerConfig.CLIENT_ID_CONFIG, "streamtrain-ingest")
                // Throughput: large, briefly lingering, compressed batches (lz4: cheap on CPU).
                .withDefault(ProducerConfig.LINGER_MS_CONFIG, 20)
                .withDefault(ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024)
                .withDefault(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4")
                .withDefault(ProducerConfig.BUFFER_MEMORY_CONFIG, 64L << 20)
                // Fail a run against an unreachable cluster in 30 s rather than hanging.
                .withDefault(ProducerConfig.MAX_BLOCK_MS_CONFIG, 30000);
    }

    /** One run: the producer, the counters, the first send failure and the progress clock. */
    public static final class Run implements AutoCloseable {
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
        public Run(IngestSettings settings) {
            this(settings, Map.of(settings.topic(), settings.partitions(), settings.deadLetterTopic(), settings.partitions()));
        }

        /** Creates {@code topics} (name to partitions) first unless the settings say not to. */
        public Run(IngestSettings settings, Map<String, Integer> topics) {
            this.settings = settings;
            KafkaPreflight.check(settings.kafka());
            if (settings.partitions() > 0) {
                try {
                    Topics.ensure(settings.kafka(), topics);
                } catch (KafkaException e) {
                    throw new IngestException("could not create topics " + topics.keySet() + " on "
                            + settings.kafka() + ": " + e.getMessage(), e);
                }
            }
            KafkaClientConfig config = producer(settings.kafka());
            settings.producerOverrides().forEach(config::require);
            this.producer = config.producer();
            this.deadLetters = new DeadLetterWriter(producer, settings.deadLetterTopic());
            this.progressNanos = settings.progressInterval().toNanos();
            this.nextProgress = startNanos + progressNanos;
        }

        public void example(Example example) {
            byte[] value = codec.encode(example);
            send(() -> producer.send(new ProducerRecord<>(settings.topic(), null, value), onAck));
            records++;
            bytes += value.length;
            tick();
        }

        /** A record keyed by {@code key} (UTF-8), for topics read by key such as the joiner's. */
        public void keyed(String topic, String key, byte[] value) {
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
                throw new IngestException("send to " + settings.kafka() + " failed: " + e.getMessage(), e);
            }
        }

        private void checkFailure() {
            Exception e = failure.get();
            if (e != null) {
                throw new IngestException("a record was not acknowledged by Kafka (" + settings.kafka()
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

        public IngestStats finish() {
            try {
                producer.flush(); // every send is acknowledged (or failed) once this returns
            } catch (KafkaException e) {
                throw new IngestException("flush to " + settings.kafka() + " failed: " + e.getMessage(), e);
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
