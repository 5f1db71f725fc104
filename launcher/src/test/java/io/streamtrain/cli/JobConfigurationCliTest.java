package io.streamtrain.cli;

import io.streamtrain.train.TrainingOptions;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The job commands' settings through the real command line, in-process: one precedence (flag, then
 * {@code -D}, then the Flink configuration file, then the option's default), printed by
 * {@code --print-config}, and every mistake stopped before anything starts, naming key, value and
 * what is allowed. The bootstrap servers point nowhere: a command that got past its checks would hang.
 */
class JobConfigurationCliTest {
    private static final String NOWHERE = "127.0.0.1:1";

    @TempDir
    Path dir;

    @Test
    void aDynamicPropertyIsNotOverwrittenByADefault() {
        Run r = train(Map.of(), "--topic", "t", "-D", "streamtrain.train.batch-size=64", "-D", "streamtrain.ps.dim=12",
                "-D", "streamtrain.ps.optimizer=ftrl", "-D", "streamtrain.train.max-wait=300 ms", "-D", "streamtrain.train.model=lr",
                "-D", "streamtrain.train.name=ctr", "--print-config");
        assertEquals(0, r.code, r.err);
        assertTrue(r.lines().containsAll(List.of("streamtrain.train.batch-size: 64", "streamtrain.ps.dim: 12",
                "streamtrain.ps.optimizer: ftrl", "streamtrain.train.max-wait: 300 ms", "streamtrain.train.model: lr",
                "streamtrain.train.name: ctr")), r.out);
    }

    @Test
    void aFlagWinsOverDynamicPropertiesWhichWinOverTheConfigurationFile() throws IOException {
        Path conf = Files.writeString(dir.resolve("config.yaml"), """
                streamtrain:
                  train:
                    batch-size: 16
                    max-wait: 1 s
                  ps:
                    dim: 12
                execution.checkpointing.interval: 7 s
                """);
        Run r = train(Map.of(), "--topic", "t", "--flink-conf", conf.toString(), "-D", "streamtrain.train.batch-size=64",
                "-D", "streamtrain.ps.dim=24", "--dim", "32", "--print-config");
        assertEquals(0, r.code, r.err);
        assertTrue(r.lines().containsAll(List.of("streamtrain.train.batch-size: 64", "streamtrain.ps.dim: 32",
                "streamtrain.train.max-wait: 1 s", "execution.checkpointing.interval: 7 s")), r.out);
    }

    @Test
    void s3SettingsArePassedOnWithTheSecretKeyHidden() {
        Run r = train(Map.of(), "--topic", "t", "--checkpoint-dir", "s3://models/clicks/checkpoints", "-D", "s3.endpoint=http://127.0.0.1:9000",
                "-D", "s3.access-key=AKIDEXAMPLE", "-D", "s3.secret-key=wJalrXUtnFEMI", "--print-config");
        assertEquals(0, r.code, r.err);
        assertTrue(r.lines().containsAll(List.of("execution.checkpointing.dir: s3://models/clicks/checkpoints",
                "s3.endpoint: http://127.0.0.1:9000", "s3.secret-key: ******")), r.out);
        assertFalse(r.out.contains("wJalrXUtnFEMI") || r.err.contains("wJalrXUtnFEMI"), r.out + r.err);
    }

    @Test
    void theConfigurationFileComesFromFlinkConfDirUnlessNamed() throws IOException {
        Files.writeString(dir.resolve("config.yaml"), "streamtrain.train.batch-size: 16\nstreamtrain.train.topic: from-file\n");
        Run r = train(Map.of("FLINK_CONF_DIR", dir.toString()), "--print-config");
        assertEquals(0, r.code, r.err);
        assertTrue(r.lines().containsAll(List.of("streamtrain.train.batch-size: 16", "streamtrain.train.topic: from-file")), r.out);

        Path other = Files.writeString(dir.resolve("other.yaml"), "streamtrain.train.batch-size: 8\n");
        Run named = train(Map.of("FLINK_CONF_DIR", dir.toString()), "--topic", "t", "--flink-conf", other.toString(), "--print-config");
        assertTrue(named.lines().contains("streamtrain.train.batch-size: 8"), named.out);
    }

    @Test
    void printConfigShowsDefaultsSortedOneKeyValueALine() {
        Run r = train(Map.of(), "--topic", "t", "--print-config");
        assertEquals(0, r.code, r.err);
        List<String> lines = r.lines();
        assertTrue(lines.containsAll(List.of("streamtrain.train.batch-size: 1024", "streamtrain.ps.optimizer: adagrad",
                "streamtrain.train.model: fm", "execution.checkpointing.interval: 2 s", "state.backend.type: rocksdb")), r.out);
        assertEquals(lines.stream().sorted().toList(), lines);
        assertTrue(lines.stream().allMatch(l -> l.matches("[^:]+: .*")), r.out);
    }

    @Test
    void choicesAreEnumsThatFlagsAndSettingsSpellAlike() {
        Run r = train(Map.of(), "--topic", "t", "--optimizer", "Rowwise-Adagrad", "--model", "LR", "--start-from", "latest", "--print-config");
        assertEquals(0, r.code, r.err);
        assertTrue(r.lines().containsAll(List.of("streamtrain.ps.optimizer: rowwise-adagrad", "streamtrain.train.model: lr",
                "streamtrain.train.start-from: latest")), r.out);
    }

    @Test
    void theUsersFormatFlagsReachTheirSettingsAndTheirChoicesAreChecked() {
        Run t = train(Map.of(), "--topic", "t", "--input-format", "Avro-Registry", "--mapping", "m.json",
                "--reader-schema", "s.avsc", "--schema-registry", "http://registry:8081", "--print-config");
        assertEquals(0, t.code, t.err);
        assertTrue(t.lines().containsAll(List.of("streamtrain.train.input-format: avro-registry", "streamtrain.train.mapping: m.json",
                "streamtrain.train.reader-schema: s.avsc", "streamtrain.train.schema-registry-url: http://registry:8081")), t.out);

        Run j = run(Map.of(), "join", "--bootstrap", NOWHERE, "--impressions", "i", "--clicks", "c", "--out", "o", "--input-format", "xml");
        assertEquals(2, j.code);
        assertTrue(j.err.contains("'xml' is not one of example, json, avro, avro-registry"), j.err);
    }

    @Test
    void anUnknownChoiceIsRefusedWithWhatIsAllowed() {
        Run flag = train(Map.of(), "--topic", "t", "--optimizer", "adamw");
        assertEquals(2, flag.code);
        assertTrue(flag.err.contains("'--optimizer'") && flag.err.contains("'adamw' is not one of sgd, adagrad, rowwise-adagrad, ftrl, count"),
                flag.err);

        Run setting = train(Map.of(), "--topic", "t", "-D", "streamtrain.ps.optimizer=adamw");
        assertEquals(1, setting.code);
        assertTrue(setting.err.contains("streamtrain.ps.optimizer = 'adamw': must be one of sgd, adagrad, rowwise-adagrad, ftrl, count"),
                setting.err);
    }

    @Test
    void aBatchSizeBelowOneIsRefusedNamingFlagKeyValueAndRange() {
        for (String size : List.of("-5", "0")) {
            Run r = train(Map.of(), "--topic", "t", "--batch-size", size);
            assertEquals(1, r.code, r.err);
            assertTrue(r.err.contains("streamtrain.train.batch-size (--batch-size) = '" + size + "': must be >= 1"), r.err);
        }
    }

    @Test
    void aBadValueInTheConfigurationFileIsRefused() throws IOException {
        Files.writeString(dir.resolve("config.yaml"), "streamtrain.train.max-wait: soon\n");
        Run r = train(Map.of("FLINK_CONF_DIR", dir.toString()), "--topic", "t");
        assertEquals(1, r.code, r.err);
        assertTrue(r.err.contains("streamtrain.train.max-wait = 'soon': must be a duration"), r.err);
    }

    @Test
    void anUnknownStreamtrainKeyIsRefusedAndAnUnknownFlinkKeyWarned() {
        Run unknown = train(Map.of(), "--topic", "t", "-D", "streamtrain.train.batchsize=64");
        assertEquals(1, unknown.code);
        assertTrue(unknown.err.contains("streamtrain.train.batchsize = '64': unknown streamtrain key; did you mean streamtrain.train.batch-size?"),
                unknown.err);

        Run banana = train(Map.of(), "--topic", "t", "-D", "execution.checkpointing.interval=banana");
        assertEquals(1, banana.code);
        assertTrue(banana.err.contains("execution.checkpointing.interval = 'banana': must be a duration"), banana.err);

        Run typo = train(Map.of(), "--topic", "t", "-D", "execution.checkpointing.intervall=10 s", "--print-config");
        assertEquals(0, typo.code, typo.err);
        assertTrue(typo.err.contains("warning: execution.checkpointing.intervall: not a configuration key of Flink or streamtrain"), typo.err);
    }

    @Test
    void theHelpNamesEachFlagsOptionAndChoicesButNoDefaultOfItsOwn() {
        Run r = train(Map.of(), "--help");
        assertEquals(0, r.code, r.err);
        assertTrue(r.out.contains("sgd, adagrad, rowwise-adagrad, ftrl, count (streamtrain.ps.optimizer)"), r.out);
        assertTrue(r.out.contains("Examples per mini-batch (streamtrain.train.batch-size)"), r.out);
        assertTrue(r.out.contains("--flink-conf"), r.out);
    }

    @Test
    void aTrainingTopicIsRequiredFromSomeSource() {
        Run r = train(Map.of());
        assertEquals(1, r.code);
        assertTrue(r.err.contains("no training topic: give --topic, or set streamtrain.train.topic"), r.err);
    }

    @Test
    void theKafkaPropertiesFileReachesTheJobOverDynamicPropertiesAndPrintConfigHidesItsSecrets() throws IOException {
        Path file = Files.writeString(dir.resolve("client.properties"), """
                # as Kafka's tools read it (--command-config)
                security.protocol=SASL_SSL
                sasl.mechanism=SCRAM-SHA-512
                sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="u" password="hunter2";
                ssl.truststore.location=/etc/kafka/ca.p12
                ssl.truststore.password=truststore-secret
                ssl.keystore.key=-----BEGIN PRIVATE KEY----- abc -----END PRIVATE KEY-----
                """);
        Run r = train(Map.of(), "--topic", "t", "-D", "streamtrain.kafka.properties.security.protocol=SSL",
                "-D", "streamtrain.kafka.properties.request.timeout.ms=7000", "--kafka-properties", file.toString(), "--print-config");
        assertEquals(0, r.code, r.err);
        String p = TrainingOptions.KAFKA_PROPERTIES.key() + ".";
        assertTrue(r.lines().containsAll(List.of(p + "security.protocol: SASL_SSL", p + "sasl.mechanism: SCRAM-SHA-512",
                p + "request.timeout.ms: 7000", p + "ssl.truststore.location: /etc/kafka/ca.p12",
                p + "sasl.jaas.config: ******", p + "ssl.truststore.password: ******", p + "ssl.keystore.key: ******")), r.out);
        assertFalse(r.out.contains("hunter2") || r.out.contains("truststore-secret") || r.out.contains("PRIVATE KEY"), r.out);
    }

    @Test
    void aMissingKafkaPropertiesFileIsNamed() {
        Run r = train(Map.of(), "--topic", "t", "--kafka-properties", dir.resolve("nope.properties").toString(), "--print-config");
        assertEquals(1, r.code);
        assertTrue(r.err.contains("--kafka-properties: no such file: "), r.err);
    }

    @Test
    void theJoinerChecksItsSettingsTheSameWay() {
        Run r = run(Map.of(), "join", "--bootstrap", NOWHERE, "--impressions", "i", "--clicks", "c", "--out", "o",
                "--negative-sampling", "0");
        assertEquals(1, r.code);
        assertTrue(r.err.contains("streamtrain.join.negative-sampling (--negative-sampling) = '0.0': must be in (0.0, 1.0]"), r.err);
    }

    private Run train(Map<String, String> env, String... args) {
        List<String> all = new ArrayList<>(List.of("train", "--bootstrap", NOWHERE));
        all.addAll(List.of(args));
        return run(env, all.toArray(String[]::new));
    }

    private Run run(Map<String, String> env, String... args) {
        CommandLine cli = StreamtrainCli.commandLine();
        Object command = cli.getSubcommands().get(args[0]).getCommand();
        if (command instanceof TrainCommand train) {
            train.job.sources.env = env;
        } else if (command instanceof JoinCommand join) {
            join.sources.env = env;
        }
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        cli.setUsageHelpWidth(200);
        int code = cli.execute(args);
        return new Run(code, out.toString(), err.toString());
    }

    private record Run(int code, String out, String err) {
        List<String> lines() {
            return out.lines().toList();
        }
    }
}
