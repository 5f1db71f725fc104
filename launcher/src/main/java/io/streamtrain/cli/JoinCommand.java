package io.streamtrain.cli;

import io.streamtrain.join.JoinOptions;
import io.streamtrain.join.JoinRun;
import io.streamtrain.train.StartFrom;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code streamtrain join}: the online impression/click joiner on a Flink inside this process or on a session cluster. */
@Command(name = "join", mixinStandardHelpOptions = true,
        description = "Joins Avro impressions with later clicks in event time and writes one labelled Example per impression "
                + "(1 if a click arrives within the attribution window, 0 when the window closes without one) to --out, "
                + "exactly once across failures; duplicates are dropped, clicks without impression or outside the window go to "
                + "the dead-letter topic with the reason. Resumes from the newest retained checkpoint in --checkpoint-dir. "
                + "The last line is `join: impressions=... clicks=... examples=... dead_letters=... ...`.")
public final class JoinCommand implements Callable<Integer> {
    private static final String CHECKPOINTS = ".streamtrain/join-checkpoints";

    @Spec
    CommandSpec spec;

    @Mixin
    ConfigurationSources sources;

    @Option(names = "--bootstrap", description = "Kafka bootstrap servers (streamtrain.kafka.bootstrap-servers).")
    String bootstrap;

    @Option(names = "--impressions", paramLabel = "TOPIC", description = "Topic of impressions: Avro Impression records unless --input-format says otherwise (streamtrain.join.impressions-topic); required.")
    String impressions;

    @Option(names = "--clicks", paramLabel = "TOPIC", description = "Topic of clicks, keyed by impression id: Avro Click records unless --input-format says otherwise (streamtrain.join.clicks-topic); required.")
    String clicks;

    @Option(names = "--out", paramLabel = "TOPIC", description = "Topic for the labelled Examples, the training topic (streamtrain.join.out-topic); required.")
    String out;

    @Option(names = "--dead-letter-topic", paramLabel = "TOPIC", description = "Default: <out>.dlq (streamtrain.join.dead-letter-topic).")
    String deadLetterTopic;

    @Option(names = "--window", converter = DurationConverter.class, description = "Attribution window (streamtrain.join.window).")
    Duration window;

    @Option(names = "--out-of-orderness", converter = DurationConverter.class,
            description = "Watermark delay: allowed event-time disorder within a partition (streamtrain.join.out-of-orderness).")
    Duration outOfOrderness;

    @Option(names = "--idle-timeout", converter = DurationConverter.class,
            description = "An input partition silent this long stops holding back the watermark; 0s = never (streamtrain.join.idle-timeout).")
    Duration idleTimeout;

    @Option(names = "--negative-sampling", paramLabel = "RATE",
            description = "Keep this fraction of negatives, chosen by a hash of the impression id, in (0, 1] (streamtrain.join.negative-sampling).")
    Double negativeSampling;

    @Option(names = "--mapping", paramLabel = "FILE",
            description = "Feature mapping of impression fields and context keys: a JSON file or builtin:NAME (streamtrain.join.mapping).")
    String mapping;

    @Option(names = "--input-format", converter = FlinkEnumConverter.InputFormats.class, completionCandidates = FlinkEnumConverter.InputFormats.class,
            description = "How both topics are written: ${COMPLETION-CANDIDATES} (streamtrain.join.input-format; default: example,"
                    + " Avro Impression and Click records). json, avro and avro-registry are read through --mapping, whose"
                    + " \"id\" column is the impression id in both and whose \"time\" column is the event time.")
    io.streamtrain.train.InputFormat inputFormat;

    @Option(names = "--impressions-schema", paramLabel = "FILE.avsc",
            description = "avro: the impressions' schema; avro-registry: the schema to read them as (streamtrain.join.impressions-schema).")
    String impressionsSchema;

    @Option(names = "--clicks-schema", paramLabel = "FILE.avsc",
            description = "avro: the clicks' schema; avro-registry: the schema to read them as (streamtrain.join.clicks-schema).")
    String clicksSchema;

    @Option(names = "--schema-registry", paramLabel = "URL",
            description = "avro-registry: the registry's Confluent-compatible REST API (streamtrain.join.schema-registry-url).")
    String schemaRegistry;

    @Option(names = "--name", description = "Consumer groups and transactional ids prefix (streamtrain.join.name).")
    String name;

    @Option(names = "--checkpoint-dir", paramLabel = "DIR", description = "Retained checkpoints (execution.checkpointing.dir; default: " + CHECKPOINTS + ").")
    Path checkpointDir;

    @Option(names = "--checkpoint-interval", converter = DurationConverter.class,
            description = "Checkpoint interval; examples become visible to read_committed readers when one completes "
                    + "(execution.checkpointing.interval; a local run's default: 2 s).")
    Duration checkpointInterval;

    @Option(names = "--parallelism", description = "Job parallelism (parallelism.default; default: 1).")
    Integer parallelism;

    @Mixin
    SessionClusterOptions session;

    @Option(names = "--until-end", description = "Join what the topics hold now, close every open window at the end of input, and exit (streamtrain.join.until-end).")
    Boolean untilEnd;

    @Option(names = "--until-idle", converter = DurationConverter.class,
            description = "Stop once no new input has arrived for this long (open windows stay in the checkpoint); default: run until interrupted.")
    Duration untilIdle;

    @Option(names = "--start-from", converter = FlinkEnumConverter.StartPositions.class,
            completionCandidates = FlinkEnumConverter.StartPositions.class,
            description = "Fresh start position: ${COMPLETION-CANDIDATES} (streamtrain.join.start-from).")
    StartFrom startFrom;

    @Option(names = "--no-resume", description = "Ignore retained checkpoints and start fresh.")
    boolean noResume;

    @Option(names = "--inject-failure-after", description = "Diagnostic: fail the joiner task once after N events (streamtrain.join.inject-failure-after).")
    Long injectFailureAfter;

    @Override
    public Integer call() throws Exception {
        JoinRun.Summary summary = JoinRun.run(settings());
        System.out.println(summary.line());
        return 0;
    }

    JoinRun.Settings settings() {
        Configuration conf = sources.resolve(new Flags()
                .with("--bootstrap", JoinOptions.BOOTSTRAP, bootstrap)
                .with("--impressions", JoinOptions.IMPRESSIONS_TOPIC, impressions)
                .with("--clicks", JoinOptions.CLICKS_TOPIC, clicks)
                .with("--out", JoinOptions.OUT_TOPIC, out)
                .with("--dead-letter-topic", JoinOptions.DEAD_LETTER_TOPIC, deadLetterTopic)
                .with("--name", JoinOptions.NAME, name)
                .with("--window", JoinOptions.WINDOW, window)
                .with("--out-of-orderness", JoinOptions.OUT_OF_ORDERNESS, outOfOrderness)
                .with("--idle-timeout", JoinOptions.IDLE_TIMEOUT, idleTimeout)
                .with("--negative-sampling", JoinOptions.NEGATIVE_SAMPLING, negativeSampling)
                .with("--mapping", JoinOptions.MAPPING, mapping)
                .with("--input-format", JoinOptions.INPUT_FORMAT, inputFormat)
                .with("--impressions-schema", JoinOptions.IMPRESSIONS_SCHEMA, impressionsSchema)
                .with("--clicks-schema", JoinOptions.CLICKS_SCHEMA, clicksSchema)
                .with("--schema-registry", JoinOptions.SCHEMA_REGISTRY_URL, schemaRegistry)
                .with("--until-end", JoinOptions.UNTIL_END, untilEnd)
                .with("--start-from", JoinOptions.START_FROM, startFrom)
                .with("--inject-failure-after", JoinOptions.INJECT_FAILURE_AFTER, injectFailureAfter)
                .with("--parallelism", CoreOptions.DEFAULT_PARALLELISM, parallelism)
                .with("--checkpoint-interval", CheckpointingOptions.CHECKPOINTING_INTERVAL, checkpointInterval)
                .with("--checkpoint-dir", CheckpointingOptions.CHECKPOINTS_DIRECTORY, ConfigurationSources.uri(checkpointDir)), spec.commandLine().getErr()::println);
        String in = JoinOptions.require(conf, JoinOptions.IMPRESSIONS_TOPIC);
        String clickTopic = JoinOptions.require(conf, JoinOptions.CLICKS_TOPIC);
        String outTopic = JoinOptions.require(conf, JoinOptions.OUT_TOPIC);
        if (in.equals(clickTopic) || outTopic.equals(in) || outTopic.equals(clickTopic)) {
            throw new ParameterException(spec.commandLine(), "--impressions, --clicks and --out must be three different topics");
        }
        return new JoinRun.Settings(conf, ConfigurationSources.checkpointDir(conf, CHECKPOINTS), conf.get(CoreOptions.DEFAULT_PARALLELISM),
                ConfigurationSources.checkpointInterval(conf), untilIdle, !noResume, System.err, session.target());
    }
}
