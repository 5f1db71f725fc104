package io.streamtrain.cli;

import io.streamtrain.files.ScratchDirectory;
import io.streamtrain.ingest.IngestSettings;
import io.streamtrain.ingest.synthetic.SyntheticEvents;
import io.streamtrain.ingest.synthetic.SyntheticIngest;
import io.streamtrain.join.JoinOptions;
import io.streamtrain.join.JoinRun;
import io.streamtrain.kafka.LocalKafka;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.util.TimeUtils;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code streamtrain bench join}: joiner throughput. Writes one synthetic impression/click stream
 * ({@code ingest --synthetic-events} defaults) into a local broker, then joins all of it with
 * {@code join --until-end} at each parallelism, each run from scratch, and prints impressions/s.
 */
@Command(name = "join", mixinStandardHelpOptions = true,
        description = "Measures joiner throughput (impressions/s) on a synthetic impression/click stream in a local "
                + "KRaft broker: each run joins the whole stream with --until-end (RocksDB state, exactly-once sinks), "
                + "from job submission to its end. Prints a markdown table.")
public final class JoinBenchCommand implements Callable<Integer> {
    @Option(names = "--impressions", defaultValue = "500000", description = "Impressions in the stream (default: ${DEFAULT-VALUE}).")
    long impressions;

    @Option(names = "--window", defaultValue = "15min", converter = DurationConverter.class,
            description = "Attribution window (default: ${DEFAULT-VALUE}).")
    Duration window;

    @Option(names = "--interval", defaultValue = "10ms", converter = DurationConverter.class,
            description = "Mean event-time gap between impressions; window / interval impressions are open at once (default: ${DEFAULT-VALUE}).")
    Duration interval;

    @Option(names = "--parallelisms", defaultValue = "1,2", split = ",", description = "Parallelisms to run (default: ${DEFAULT-VALUE}).")
    List<Integer> parallelisms;

    @Option(names = "--checkpoint-interval", defaultValue = "2s", converter = DurationConverter.class,
            description = "Checkpoint interval of the join runs (default: ${DEFAULT-VALUE}).")
    Duration checkpointInterval;

    @Option(names = "-D", paramLabel = "KEY=VALUE", description = "Any Flink or streamtrain configuration key for the join runs.")
    Map<String, String> extra = new LinkedHashMap<>();

    @Override
    public Integer call() throws Exception {
        try (ScratchDirectory scratch = ScratchDirectory.create("streamtrain-bench-join")) {
            return run(scratch.path());
        }
    }

    private Integer run(Path dir) throws Exception {
        SyntheticEvents.Settings s = SyntheticEvents.Settings.defaults(impressions, 1_700_000_000_000L);
        s = s.withTiming(interval, window, s.meanClickDelay(), s.disorder());
        List<String> table = new ArrayList<>();
        table.add("| parallelism | window | impressions read | clicks read | examples | dead letters | checkpoints | seconds | impressions/s |");
        table.add("|---|---|---|---|---|---|---|---|---|");
        String head;
        try (LocalKafka kafka = LocalKafka.start(0, dir.resolve("kafka"))) {
            IngestSettings settings = IngestSettings.of(kafka.connection(), "bench-join.impressions")
                    .withProgress(System.err::println, IngestSettings.DEFAULT_PROGRESS_INTERVAL);
            SyntheticIngest.SyntheticEventsRun events = SyntheticIngest.ingestSyntheticEvents(settings, "bench-join.clicks", new SyntheticEvents(s, 1));
            System.err.println(events.summaryLine());
            head = String.format(Locale.ROOT, "bench join: %,d impressions (%,d records), window %s, an impression every %s on average"
                            + " (%,d open windows), checkpoints every %s",
                    impressions, events.io().records(), TimeUtils.formatWithHighestUnit(window), TimeUtils.formatWithHighestUnit(interval),
                    window.toMillis() * 1_000_000L / Math.max(1, interval.toNanos()), TimeUtils.formatWithHighestUnit(checkpointInterval));
            for (int p : parallelisms) {
                String name = "bench-join-p" + p;
                Configuration conf = Configuration.fromMap(extra);
                conf.set(JoinOptions.BOOTSTRAP, kafka.bootstrapServers());
                conf.set(JoinOptions.IMPRESSIONS_TOPIC, "bench-join.impressions");
                conf.set(JoinOptions.CLICKS_TOPIC, "bench-join.clicks");
                conf.set(JoinOptions.OUT_TOPIC, name + ".out");
                conf.set(JoinOptions.NAME, name);
                conf.set(JoinOptions.WINDOW, window);
                conf.set(JoinOptions.UNTIL_END, true);
                JoinRun.Summary r = JoinRun.run(new JoinRun.Settings(conf, dir.resolve(name), p, checkpointInterval, null, true,
                        System.err));
                System.err.println(r.line());
                table.add(String.format(Locale.ROOT, "| %d | %s | %,d | %,d | %,d | %,d | %d | %.1f | %,.0f |", p,
                        TimeUtils.formatWithHighestUnit(window),
                        r.impressions(), r.clicks(), r.examples(), r.deadLetters(), r.checkpoints(), r.seconds(),
                        r.impressionsPerSecond()));
            }
        }
        System.out.println(head);
        table.forEach(System.out::println);
        return 0;
    }
}
