package io.streamtrain.cli;

import io.streamtrain.join.JoinOptions;
import io.streamtrain.join.JoinRun;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.flink.configuration.Configuration;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code streamtrain join}: the online impression/click joiner on a Flink inside this process. */
@Command(name = "join", mixinStandardHelpOptions = true,
        description = "Joins Avro impressions with later clicks in event time and writes one labelled Example per impression "
                + "(1 if a click arrives within the attribution window, 0 when the window closes without one) to --out, "
                + "exactly once across failures; duplicates are dropped, clicks without impression or outside the window go to "
                + "the dead-letter topic with the reason. Resumes from the newest retained checkpoint in --checkpoint-dir. "
                + "The last line is `join: impressions=... clicks=... examples=... dead_letters=... ...`.")
public final class JoinCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--bootstrap", defaultValue = "127.0.0.1:9092", description = "Kafka bootstrap servers (default: ${DEFAULT-VALUE}).")
    String bootstrap;

    @Option(names = "--impressions", required = true, paramLabel = "TOPIC", description = "Topic of Avro Impression records.")
    String impressions;

    @Option(names = "--clicks", required = true, paramLabel = "TOPIC", description = "Topic of Avro Click records (keyed by impression id).")
    String clicks;

    @Option(names = "--out", required = true, paramLabel = "TOPIC", description = "Topic for the labelled Examples (the training topic).")
    String out;

    @Option(names = "--dead-letter-topic", paramLabel = "TOPIC", description = "Default: <out>.dlq.")
    String deadLetterTopic;

    @Option(names = "--window", defaultValue = "15m", converter = DurationConverter.class,
            description = "Attribution window (default: ${DEFAULT-VALUE}).")
    Duration window;

    @Option(names = "--out-of-orderness", defaultValue = "30s", converter = DurationConverter.class,
            description = "Watermark delay: allowed event-time disorder within a partition (default: ${DEFAULT-VALUE}).")
    Duration outOfOrderness;

    @Option(names = "--idle-timeout", defaultValue = "1m", converter = DurationConverter.class,
            description = "An input partition silent this long stops holding back the watermark; 0s = never (default: ${DEFAULT-VALUE}).")
    Duration idleTimeout;

    @Option(names = "--negative-sampling", defaultValue = "1.0", paramLabel = "RATE",
            description = "Keep this fraction of negatives, chosen by a hash of the impression id, in (0, 1] (default: ${DEFAULT-VALUE}).")
    double negativeSampling;

    @Option(names = "--mapping", defaultValue = "builtin:impressions", paramLabel = "FILE",
            description = "Feature mapping of impression fields and context keys: a JSON file or builtin:NAME (default: ${DEFAULT-VALUE}).")
    String mapping;

    @Option(names = "--name", defaultValue = "streamtrain-join", description = "Consumer groups and transactional ids prefix (default: ${DEFAULT-VALUE}).")
    String name;

    @Option(names = "--checkpoint-dir", defaultValue = ".streamtrain/join-checkpoints", description = "Retained checkpoints (default: ${DEFAULT-VALUE}).")
    Path checkpointDir;

    @Option(names = "--checkpoint-interval", defaultValue = "2s", converter = DurationConverter.class,
            description = "Checkpoint interval; examples become visible to read_committed readers when one completes (default: ${DEFAULT-VALUE}).")
    Duration checkpointInterval;

    @Option(names = "--parallelism", defaultValue = "1", description = "Job parallelism (default: ${DEFAULT-VALUE}).")
    int parallelism;

    @Option(names = "--until-end", description = "Join what the topics hold now, close every open window at the end of input, and exit.")
    boolean untilEnd;

    @Option(names = "--until-idle", converter = DurationConverter.class,
            description = "Stop once no new input has arrived for this long (open windows stay in the checkpoint); default: run until interrupted.")
    Duration untilIdle;

    @Option(names = "--start-from", defaultValue = "earliest", description = "Fresh start position: earliest, latest, committed (default: ${DEFAULT-VALUE}).")
    String startFrom;

    @Option(names = "--no-resume", description = "Ignore retained checkpoints and start fresh.")
    boolean noResume;

    @Option(names = "--inject-failure-after", defaultValue = "0", description = "Diagnostic: fail the joiner task once after N events.")
    long injectFailureAfter;

    @Option(names = "-D", paramLabel = "KEY=VALUE", description = "Any Flink or streamtrain configuration key.")
    Map<String, String> extra = new LinkedHashMap<>();

    @Override
    public Integer call() throws Exception {
        JoinRun.Summary summary = JoinRun.run(settings());
        System.out.println(summary.line());
        return 0;
    }

    JoinRun.Settings settings() {
        if (!(negativeSampling > 0 && negativeSampling <= 1)) {
            throw new ParameterException(spec.commandLine(), "--negative-sampling must be in (0, 1]");
        }
        if (window.isZero() || window.isNegative()) {
            throw new ParameterException(spec.commandLine(), "--window must be positive");
        }
        if (impressions.equals(clicks) || out.equals(impressions) || out.equals(clicks)) {
            throw new ParameterException(spec.commandLine(), "--impressions, --clicks and --out must be three different topics");
        }
        Configuration conf = Configuration.fromMap(extra);
        conf.set(JoinOptions.BOOTSTRAP, bootstrap);
        conf.set(JoinOptions.IMPRESSIONS_TOPIC, impressions);
        conf.set(JoinOptions.CLICKS_TOPIC, clicks);
        conf.set(JoinOptions.OUT_TOPIC, out);
        if (deadLetterTopic != null) {
            conf.set(JoinOptions.DEAD_LETTER_TOPIC, deadLetterTopic);
        }
        conf.set(JoinOptions.NAME, name);
        conf.set(JoinOptions.WINDOW, window);
        conf.set(JoinOptions.OUT_OF_ORDERNESS, outOfOrderness);
        conf.set(JoinOptions.IDLE_TIMEOUT, idleTimeout);
        conf.set(JoinOptions.NEGATIVE_SAMPLING, negativeSampling);
        conf.set(JoinOptions.MAPPING, mapping);
        conf.set(JoinOptions.UNTIL_END, untilEnd);
        conf.set(JoinOptions.START_FROM, startFrom);
        conf.set(JoinOptions.INJECT_FAILURE_AFTER, injectFailureAfter);
        return new JoinRun.Settings(conf, checkpointDir, parallelism, checkpointInterval, untilIdle, !noResume, System.err);
    }
}
