package io.streamtrain.ingest;

import io.streamtrain.files.ScratchDirectory;
import io.streamtrain.ingest.format.CriteoParser;
import io.streamtrain.ingest.format.InputLines;
import io.streamtrain.ingest.format.LineFormat;
import io.streamtrain.ingest.format.LineParser;
import io.streamtrain.ingest.format.ParseOptions;
import io.streamtrain.kafka.LocalKafka;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code streamtrain bench ingest}: Criteo TSV ingest throughput. Writes a Criteo-shaped file
 * (label, 13 count columns, 26 hashed categoricals; missing values as in the real data), then times
 * parsing alone and the whole {@code ingest} (parse, Avro, idempotent producer, acks=all) into a
 * local broker.
 */
@Command(name = "ingest", mixinStandardHelpOptions = true,
        description = "Measures ingest throughput for Criteo TSV: parsing alone and the whole `ingest` into a local "
                + "KRaft broker, on a generated Criteo-shaped file. Prints a markdown table.")
public final class IngestBenchCommand implements Callable<Integer> {
    @Option(names = "--lines", defaultValue = "1000000", description = "Lines in the generated file (default: ${DEFAULT-VALUE}).")
    int lines;

    @Option(names = "--seed", defaultValue = "1", description = "Seed of the generated file (default: ${DEFAULT-VALUE}).")
    long seed;

    @Override
    public Integer call() throws Exception {
        try (ScratchDirectory scratch = ScratchDirectory.create("streamtrain-bench-ingest")) {
            return run(scratch.path());
        }
    }

    private Integer run(Path dir) throws Exception {
        Path file = dir.resolve("criteo.tsv");
        writeCriteoFile(file, lines, seed);
        double mb = Files.size(file) / 1e6;
        System.err.printf(Locale.ROOT, "bench ingest: %,d lines, %.1f MB in %s%n", lines, mb, file);
        List<String> table = new ArrayList<>();
        table.add("| stage | lines | MB | seconds | lines/s | MB/s |");
        table.add("|---|---|---|---|---|---|");
        parse(file, Math.min(lines, 200_000)); // JIT warm-up
        long start = System.nanoTime();
        long ok = parse(file, lines);
        double seconds = (System.nanoTime() - start) / 1e9;
        table.add(row("parse only (CriteoParser, one thread)", ok, mb, seconds));
        try (LocalKafka kafka = LocalKafka.start(0, dir.resolve("kafka"))) {
            IngestSettings settings = IngestSettings.of(kafka.connection(), "bench-criteo")
                    .withProgress(System.err::println, IngestSettings.DEFAULT_PROGRESS_INTERVAL);
            IngestStats stats = Ingestor.ingestFile(settings, file.toString(),
                    LineFormat.CRITEO.parser(ParseOptions.defaults(file.getFileName().toString())));
            table.add(row("ingest into Kafka (parse + Avro + producer, acks=all)", stats.records() + stats.bad(), mb, stats.seconds()));
        }
        table.forEach(System.out::println);
        return 0;
    }

    private static String row(String stage, long n, double mb, double seconds) {
        return String.format(Locale.ROOT, "| %s | %,d | %.1f | %.2f | %,.0f | %.1f |", stage, n, mb, seconds, n / seconds, mb / seconds);
    }

    private static long parse(Path file, int limit) throws IOException {
        LineParser parser = LineFormat.CRITEO.parser(ParseOptions.defaults("bench"));
        long ok = 0;
        try (InputLines in = new InputLines(Files.newInputStream(file))) {
            String line;
            for (long n = 1; n <= limit && (line = in.next()) != null; n++) {
                if (parser.parse(line, n).isOk()) {
                    ok++;
                }
            }
        }
        return ok;
    }

    /**
     * Criteo-shaped lines: label 1 with p 0.25; each count column missing with p 0.2, else
     * floor(e^(2·N(0,1))); each categorical missing with p 0.1, else one of a column's vocabulary
     * (100 to 1M values by column, skewed towards low ranks) as 8 hex digits.
     */
    static void writeCriteoFile(Path file, int lines, long seed) throws IOException {
        Random r = new Random(seed);
        int[] vocabulary = new int[CriteoParser.CATEGORICAL_COLUMNS];
        for (int j = 0; j < vocabulary.length; j++) {
            vocabulary[j] = (int) Math.pow(10, 2 + 4.0 * j / (vocabulary.length - 1));
        }
        StringBuilder line = new StringBuilder(256);
        try (BufferedWriter out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            for (int n = 0; n < lines; n++) {
                line.setLength(0);
                line.append(r.nextDouble() < 0.25 ? '1' : '0');
                for (int i = 0; i < CriteoParser.INTEGER_COLUMNS; i++) {
                    line.append('\t');
                    if (r.nextDouble() >= 0.2) {
                        line.append((long) Math.floor(Math.exp(2 * r.nextGaussian())));
                    }
                }
                for (int j = 0; j < CriteoParser.CATEGORICAL_COLUMNS; j++) {
                    line.append('\t');
                    if (r.nextDouble() >= 0.1) {
                        int rank = (int) (vocabulary[j] * Math.pow(r.nextDouble(), 3)); // skewed towards popular values
                        line.append(String.format(Locale.ROOT, "%08x", (rank * 0x9E3779B1) & 0xffffffffL));
                    }
                }
                out.append(line).append('\n');
            }
        }
    }
}
