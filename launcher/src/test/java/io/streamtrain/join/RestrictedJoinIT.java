package io.streamtrain.join;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.streamtrain.kafka.KafkaConnection;
import io.streamtrain.kafka.LocalKafka;
import io.streamtrain.schema.AvroCodec;
import io.streamtrain.schema.DeadLetter;
import io.streamtrain.schema.Example;
import io.streamtrain.testing.KafkaFixture;
import io.streamtrain.train.RestrictedPrincipal;
import io.streamtrain.train.TrainingOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.flink.configuration.Configuration;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourceType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The joiner as a principal with exactly the ACLs docs/security.md lists for it ("join named J"),
 * on topics an operator pre-created: it joins every impression once, and dead-letters once.
 */
class RestrictedJoinIT {
    private static final long WINDOW_MS = 60_000;
    private final KafkaFixture kafka = KafkaFixture.secured();
    private final LocalKafka broker = kafka.secureBroker();

    @Test
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void aJoinerWithTheDocumentedAclsJoinsPreCreatedTopicsExactlyOnce(@TempDir Path checkpoints) throws Exception {
        String t = "restricted-join-" + System.nanoTime();
        JoinScenario scenario = JoinScenario.generate(17, 600, WINDOW_MS, 3);
        for (String topic : List.of(t + ".impressions", t + ".clicks", t + ".out")) {
            kafka.createTopic(topic, 2);
        }
        kafka.createTopic(t + ".out.dlq", 1);
        try (KafkaProducer<byte[], byte[]> producer = kafka.producer()) {
            scenario.produce(producer, t + ".impressions", t + ".clicks");
        }

        KafkaConnection joiner = RestrictedPrincipal.create(broker, "joiner", documentedAcls(t), t + ".out");
        Configuration conf = JoinScenario.job(kafka, t, WINDOW_MS);
        conf.set(TrainingOptions.KAFKA_PROPERTIES, joiner.clientProperties());
        conf.set(JoinOptions.UNTIL_END, true);
        JoinRun.Summary summary = JoinRun.run(new JoinRun.Settings(conf, checkpoints, 2, Duration.ofMillis(300), null, true, System.err));
        System.err.println(summary.line());

        JoinScenario.Expected expected = scenario.expected(WINDOW_MS);
        AvroCodec<Example> examples = AvroCodec.of(Example.class);
        Map<String, Float> labels = new HashMap<>();
        for (ConsumerRecord<byte[], byte[]> r : kafka.readAll(t + ".out", true, Duration.ofSeconds(30))) {
            Example e = examples.decode(r.value());
            assertNull(labels.put(e.getId(), e.getLabel()), "duplicate example " + e.getId());
        }
        assertEquals(expected.labels(), labels, "every impression joined once, with its label");
        AvroCodec<DeadLetter> letters = AvroCodec.of(DeadLetter.class);
        Map<String, Long> reasons = new HashMap<>();
        for (ConsumerRecord<byte[], byte[]> r : kafka.readAll(t + ".out.dlq", true, Duration.ofSeconds(30))) {
            reasons.merge(letters.decode(r.value()).getReason(), 1L, Long::sum);
        }
        assertEquals(expected.deadLetters(), reasons);
    }

    /**
     * docs/security.md, "join named J": its inputs, its outputs, groups and transactional ids J-; Read
     * on the outputs too, as {@code streamtrain join} counts what the job wrote for its progress and summary.
     */
    private static List<AclBinding> documentedAcls(String t) {
        List<AclBinding> acls = new ArrayList<>();
        for (String input : List.of(t + ".impressions", t + ".clicks")) {
            acls.addAll(RestrictedPrincipal.allow(ResourceType.TOPIC, input, PatternType.LITERAL, AclOperation.READ, AclOperation.DESCRIBE));
        }
        for (String output : List.of(t + ".out", t + ".out.dlq")) {
            acls.addAll(RestrictedPrincipal.allow(ResourceType.TOPIC, output, PatternType.LITERAL,
                    AclOperation.READ, AclOperation.WRITE, AclOperation.DESCRIBE));
        }
        acls.addAll(RestrictedPrincipal.allow(ResourceType.GROUP, t + "-", PatternType.PREFIXED, AclOperation.READ, AclOperation.DESCRIBE));
        acls.addAll(RestrictedPrincipal.allow(ResourceType.TRANSACTIONAL_ID, t + "-", PatternType.PREFIXED,
                AclOperation.WRITE, AclOperation.DESCRIBE));
        return acls;
    }
}
