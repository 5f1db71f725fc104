package io.streamtrain.cli;

import io.streamtrain.bundle.Bundle;
import io.streamtrain.bundle.BundleWriter;
import io.streamtrain.bundle.ModelCard;
import io.streamtrain.config.SettingsCheck;
import io.streamtrain.contract.LatestCheckpoint;
import io.streamtrain.contract.ModelInfo;
import io.streamtrain.files.ScratchDirectory;
import io.streamtrain.ingest.Ingestor;
import io.streamtrain.ingest.synthetic.PlantedFm;
import io.streamtrain.kafka.KafkaConnection;
import io.streamtrain.kafka.LocalKafka;
import io.streamtrain.kafka.Topics;
import io.streamtrain.model.ModelKind;
import io.streamtrain.ps.PsOptions;
import io.streamtrain.report.MetricsTopic;
import io.streamtrain.report.RunTimeline;
import io.streamtrain.schema.AvroCodec;
import io.streamtrain.schema.Example;
import io.streamtrain.schema.Feature;
import io.streamtrain.schema.FeatureKey;
import io.streamtrain.serve.ModelFollower;
import io.streamtrain.train.TrainingOptions;
import io.streamtrain.train.run.TrainingRun;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.locks.LockSupport;
import java.util.function.ToDoubleFunction;
import org.apache.flink.configuration.Configuration;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code streamtrain bench freshness}: how long a training record takes to reach serving. A first
 * run on the empty topic gives the bundle a serving store starts from; then, while the job trains a
 * steady stream with model updates on and a {@link ModelFollower} (what {@code serve --follow}
 * runs) applies them to that store, probe examples carry a feature of their own; a probe's
 * freshness is from its send to Kafka until its row is in the serving store, split into stages by
 * {@link ProbeStages}.
 */
@Command(name = "freshness", mixinStandardHelpOptions = true,
        description = "Measures model freshness: from a training record sent to Kafka until its row update is in the serving store "
                + "that `serve --follow` scores from, while training a steady stream. "
                + "Also the PS's gradient staleness (a row's pull to its gradient applied) at this rate, below capacity, "
                + "as online training runs. One run per checkpoint interval; prints a markdown table, then per interval each probe's "
                + "time by stage (produce, batch, credit, pull, train, feedback, serve) from the stamps its push and update carry.")
public final class FreshnessBenchCommand implements Callable<Integer> {
    private static final int PROBE_FIELD = 4000;
    private static final int PARTITIONS = 4;
    private static final PrintStream QUIET = new PrintStream(OutputStream.nullOutputStream());

    @Option(names = "--rate", defaultValue = "2000", description = "Background examples/s (default: ${DEFAULT-VALUE}).")
    int rate;

    @Option(names = "--seconds", defaultValue = "40", description = "Measured seconds per run, after a warm-up (default: ${DEFAULT-VALUE}).")
    int seconds;

    @Option(names = "--warmup", defaultValue = "15", description = "Seconds from the first update served until probes count (default: ${DEFAULT-VALUE}).")
    int warmup;

    @Option(names = "--checkpoint-intervals", defaultValue = "1s,2s", split = ",", converter = DurationConverter.class,
            description = "Checkpoint intervals to run (default: ${DEFAULT-VALUE}).")
    List<Duration> intervals;

    @Option(names = "--sticky", description = "Send the records unkeyed with the producer's default partitioning, which fills one partition's"
            + " batch (256 KB, ~0.6 s of this stream) before it moves on: each partition then idles most of the time, and an idle partition's"
            + " last batch waits for a checkpoint (streamtrain.train.max-wait). Default: the records go to the partitions in turn, as a"
            + " keyed stream's or many producers' do.")
    boolean sticky;

    @Option(names = "--model", converter = FlinkEnumConverter.Models.class, completionCandidates = FlinkEnumConverter.Models.class,
            description = "${COMPLETION-CANDIDATES} (streamtrain.train.model).")
    ModelKind model;

    @Option(names = "--parallelism", defaultValue = "1", description = "Job parallelism (default: ${DEFAULT-VALUE}).")
    int parallelism;

    @Option(names = "-D", paramLabel = "KEY=VALUE", description = "Any Flink or streamtrain configuration key for the training runs.")
    Map<String, String> extra = new LinkedHashMap<>();

    @Override
    public Integer call() throws Exception {
        try (ScratchDirectory scratch = ScratchDirectory.create("streamtrain-freshness")) {
            return run(scratch.path());
        }
    }

    private Integer run(Path dir) throws Exception {
        List<String> table = new ArrayList<>();
        table.add("| checkpoint interval | probes seen | probes missing | freshness p50 ms | p90 ms | p99 ms | max ms "
                + "| slowest 10 %: main stage | gradient staleness p50 ms | staleness p99 ms | applied to served p50 ms | applied to served p99 ms |");
        table.add("|---|---|---|---|---|---|---|---|---|---|---|---|");
        List<String> stages = new ArrayList<>();
        try (LocalKafka kafka = LocalKafka.start(0, dir.resolve("kafka"))) {
            for (Duration interval : intervals) {
                Probes probes = run(kafka.bootstrapServers(), dir, interval);
                long[] ms = probes.trails().stream().mapToLong(t -> t.served - t.sent).sorted().toArray();
                table.add(String.format(Locale.ROOT, "| %d ms | %d | %d | %d | %d | %d | %d | %s | %.0f | %.0f | %.0f | %.0f |", interval.toMillis(), ms.length,
                        probes.missing(), ProbeStages.quantile(ms, 0.5), ProbeStages.quantile(ms, 0.9), ProbeStages.quantile(ms, 0.99), ms.length == 0 ? -1 : ms[ms.length - 1],
                        ProbeStages.tailStage(probes.trails()), probes.stalenessP50Ms(), probes.stalenessP99Ms(), probes.servedP50Ms(), probes.servedP99Ms()));
                stages.add("");
                stages.add("Checkpoint interval " + interval.toMillis() + " ms, each probe's freshness by stage:");
                stages.add("");
                stages.addAll(ProbeStages.table(probes.trails()));
            }
        }
        System.out.printf(Locale.ROOT, "bench freshness: %s, parallelism %d, %d examples/s over %d partitions (%s), probes every 250 ms for %d s"
                + " after %d s warm-up, from their send to their row in the serving store%n", model == null ? "default model" : model, parallelism,
                rate, PARTITIONS, sticky ? "sticky: a partition at a time" : "in turn", seconds, warmup);
        table.forEach(System.out::println);
        stages.forEach(System.out::println);
        return 0;
    }

    /**
     * The trails of the probes seen (freshness: send to served); the PS's gradient staleness, the median of its per-second p50
     * and p99 over the measured seconds; and the follower's own part, from the PS applying an update to the store holding it
     * (its last 4096 updates).
     */
    private record Probes(List<ProbeStages.Trail> trails, int missing, double stalenessP50Ms, double stalenessP99Ms,
                          double servedP50Ms, double servedP99Ms) {}

    private Probes run(String bootstrap, Path dir, Duration interval) throws Exception {
        String topic = "fresh-" + interval.toMillis();
        String updates = topic + ".updates";
        KafkaConnection kafka = KafkaConnection.to(bootstrap);
        Topics.ensure(kafka, Map.of(topic, PARTITIONS));
        SettingsCheck.check(extra).orThrow().warnings().forEach(w -> System.err.println("warning: " + w));
        Configuration conf = Configuration.fromMap(extra);
        conf.set(TrainingOptions.BOOTSTRAP, bootstrap);
        conf.set(TrainingOptions.TOPIC, topic);
        conf.set(TrainingOptions.NAME, topic);
        if (model != null) {
            conf.set(TrainingOptions.MODEL, model);
        }
        conf.set(TrainingOptions.MODEL_UPDATES_TOPIC, updates);
        conf.set(PsOptions.DIM, 8);
        Path checkpoints = dir.resolve(topic);
        Path bundle = seedBundle(conf, checkpoints, interval, dir.resolve(topic + "-bundle"));
        TrainingRun.Settings settings = new TrainingRun.Settings(conf, checkpoints, parallelism, interval, null, true, System.err);

        Thread training = new Thread(() -> {
            try {
                TrainingRun.run(settings);
            } catch (Exception e) {
                System.err.println("freshness: training failed: " + e);
            }
        }, "freshness-training");
        Map<Long, ProbeStages.Trail> sentAt = new HashMap<>();
        List<ProbeStages.Trail> measured = new ArrayList<>();
        int missing;
        Map<String, Object> followed;
        // The warm-up counts from the first update served: until then the job is still starting.
        long measureFrom = Long.MAX_VALUE;
        long end = Long.MAX_VALUE;
        long giveUpAt = System.currentTimeMillis() + 300_000;
        training.start();
        try (KafkaProducer<byte[], byte[]> producer = Ingestor.producer(kafka).producer();
                Bundle store = Bundle.openStore(bundle, dir.resolve(topic + "-store"));
                ModelFollower follower = new ModelFollower(kafka, updates, store);
                ProbeStages stages = new ProbeStages(kafka, TrainingOptions.feedbackTopic(conf), updates, PROBE_FIELD)) {
            PlantedFm truth = new PlantedFm(9);
            AvroCodec<Example> codec = AvroCodec.of(Example.class);
            Random random = new Random(3);
            long probe = 0;
            long nextProbe = 0;
            long startedAt = System.nanoTime();
            long sent = 0;
            while (System.currentTimeMillis() < end) {
                long now = System.currentTimeMillis();
                if (measureFrom == Long.MAX_VALUE && follower.updatesApplied() > 0) {
                    measureFrom = now + warmup * 1000L;
                    end = measureFrom + seconds * 1000L;
                } else if (measureFrom == Long.MAX_VALUE && now > giveUpAt) {
                    throw new IllegalStateException("no model update was served within 5 minutes of the training run's start");
                }
                Example e = truth.next(random, topic + ":" + sent, now);
                ProbeStages.Trail trail = null;
                if (now >= nextProbe) {
                    nextProbe = now + 250;
                    long id = ++probe;
                    e.getFeatures().add(new Feature(PROBE_FIELD, id, 1f));
                    if (now >= measureFrom) {
                        long key = FeatureKey.of(PROBE_FIELD, id);
                        trail = stages.trail(key);
                        trail.sent = now;
                        sentAt.put(key, trail);
                    }
                }
                ProbeStages.Trail acked = trail;
                Integer partition = sticky ? null : (int) (sent % PARTITIONS);
                producer.send(new ProducerRecord<>(topic, partition, null, codec.encode(e)), (metadata, failure) -> {
                    if (acked != null && failure == null) {
                        acked.acked = System.currentTimeMillis();
                    }
                });
                sent++;
                // pace the stream; look for served probes while waiting
                long due = startedAt + sent * 1_000_000_000L / rate;
                while (System.nanoTime() < due) {
                    collect(store, sentAt, measured);
                    LockSupport.parkNanos(Math.min(due - System.nanoTime(), 500_000));
                }
            }
            long drainUntil = System.currentTimeMillis() + 3 * interval.toMillis() + 5_000;
            while (!sentAt.isEmpty() && System.currentTimeMillis() < drainUntil) {
                collect(store, sentAt, measured);
                Thread.sleep(1);
            }
            missing = sentAt.size();
            followed = follower.status();
        } finally {
            training.interrupt();
            training.join(60_000);
        }
        List<RunTimeline.Point> points = RunTimeline.of(MetricsTopic.readToEnd(kafka, TrainingOptions.metricsTopic(conf),
                Duration.ofSeconds(30)).records()).points().stream().filter(p -> p.second() >= warmup).toList();
        return new Probes(measured, missing,
                median(points, RunTimeline.Point::stalenessP50Ms), median(points, RunTimeline.Point::stalenessP99Ms),
                millis(followed.get("freshnessP50Ms")), millis(followed.get("freshnessP99Ms")));
    }

    private static double millis(Object quantile) {
        return quantile instanceof Number n ? n.doubleValue() : Double.NaN;
    }

    private static double median(List<RunTimeline.Point> points, ToDoubleFunction<RunTimeline.Point> series) {
        double[] v = points.stream().mapToDouble(series).filter(x -> !Double.isNaN(x)).sorted().toArray();
        return v.length == 0 ? Double.NaN : v[v.length / 2];
    }

    /** Probes whose rows the serving store now has: served now. */
    private static void collect(Bundle store, Map<Long, ProbeStages.Trail> sentAt, List<ProbeStages.Trail> measured) {
        for (var it = sentAt.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<Long, ProbeStages.Trail> probe = it.next();
            if (store.rowOrNull(probe.getKey()) != null) {
                probe.getValue().served = System.currentTimeMillis();
                measured.add(probe.getValue());
                it.remove();
            }
        }
    }

    /**
     * The bundle serving starts from: the model of a first run on the still empty topic, which
     * leaves its checkpoint for the measured run to resume (and creates the updates topic).
     */
    private Path seedBundle(Configuration conf, Path checkpoints, Duration interval, Path out) throws Exception {
        TrainingRun.run(new TrainingRun.Settings(conf, checkpoints, parallelism, interval, Duration.ofSeconds(1), true, QUIET));
        BundleWriter.write(LatestCheckpoint.in(checkpoints), ModelInfo.read(checkpoints), ModelCard.FeatureMapping.of("libffm", 24),
                out, QUIET, Long.MAX_VALUE);
        return out;
    }
}
