package io.streamtrain.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.CreateTopicsResult;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Idempotent topic creation, shared by {@link LocalKafka}, {@code ingest} and the test fixture. */
public final class Topics {
    private static final Logger LOG = LoggerFactory.getLogger(Topics.class);
    private static final Duration TIMEOUT = Duration.ofSeconds(20);

    /**
     * Why a broker that is up may never answer: a client whose security protocol does not match the
     * listener (plaintext against TLS) is only ever disconnected, and its calls time out.
     */
    static final String NO_ANSWER = " (no broker answered: check the bootstrap servers, and that the Kafka client properties"
            + " (--kafka-properties: security.protocol, sasl.*, ssl.*) match the listener)";

    private Topics() {}

    /** A client call's failure as a user can act on it: authentication problems and unanswered calls named as such. */
    public static String why(Throwable failure) {
        if (failure instanceof AuthenticationException) {
            Throwable root = failure;
            while (root.getCause() != null) {
                root = root.getCause();
            }
            return "authentication failed (" + failure.getClass().getSimpleName() + "): " + failure.getMessage()
                    + (root != failure ? " (" + root.getMessage() + ")" : "");
        }
        if (failure instanceof org.apache.kafka.common.errors.TimeoutException) {
            return failure.getMessage() + NO_ANSWER;
        }
        return failure.getMessage();
    }

    public static Admin admin(KafkaConnection kafka) {
        return kafka.client()
                .withDefault(AdminClientConfig.CLIENT_ID_CONFIG, "streamtrain-admin")
                // Give up on an unreachable cluster within TIMEOUT instead of the default 60 s.
                .withDefault(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, TIMEOUT.toMillis())
                .withDefault(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, TIMEOUT.toMillis() / 2)
                .admin();
    }

    /** Creates each topic (name → partitions) that does not exist yet; existing ones are left as they are. */
    public static void ensure(KafkaConnection kafka, Map<String, Integer> topics) {
        Admin admin = admin(kafka);
        try {
            ensure(admin, topics);
        } finally {
            admin.close(Duration.ofSeconds(5)); // do not wait out operations that already failed
        }
    }

    public static void ensure(Admin admin, Map<String, Integer> topics) {
        ensure(admin, topics, Map.of());
    }

    /** As {@link #ensure(Admin, Map)}, creating missing topics with the given topic configs (e.g. compaction). */
    public static void ensure(Admin admin, Map<String, Integer> topics, Map<String, String> configs) {
        List<NewTopic> wanted = new ArrayList<>();
        topics.forEach((name, partitions) -> wanted.add(new NewTopic(name, partitions, (short) -1).configs(configs)));
        ensure(admin, wanted);
    }

    /**
     * Creates each of {@code wanted} that does not exist yet, as it says (partitions, replication
     * factor, topic configs); existing topics are left as they are, so operators may pre-create
     * them and the principal need not be allowed to create topics. Returns once every partition
     * has a leader.
     */
    public static void ensure(Admin admin, Collection<NewTopic> wanted) {
        if (wanted.isEmpty()) {
            return;
        }
        Set<String> names = new LinkedHashSet<>();
        wanted.forEach(t -> names.add(t.name()));
        Set<String> existing = existing(admin);
        List<NewTopic> missing = wanted.stream().filter(t -> !existing.contains(t.name())).toList();
        if (!missing.isEmpty()) {
            create(admin, missing);
        }
        awaitLeaders(admin, names);
    }

    /** The topics the principal may see (those it may describe). */
    private static Set<String> existing(Admin admin) {
        try {
            return admin.listTopics().names().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw new KafkaException("could not list topics: " + why(e.getCause()), e.getCause());
        } catch (TimeoutException e) {
            throw new KafkaException("timed out listing topics" + NO_ANSWER, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KafkaException("interrupted while listing topics", e);
        }
    }

    private static void create(Admin admin, List<NewTopic> missing) {
        CreateTopicsResult result = admin.createTopics(missing);
        result.values().forEach((name, future) -> {
            try {
                future.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
                LOG.info("created topic {}", missing.stream().filter(t -> t.name().equals(name)).findFirst().orElseThrow());
            } catch (ExecutionException e) {
                if (e.getCause() instanceof TopicAuthorizationException || e.getCause() instanceof ClusterAuthorizationException) {
                    throw new KafkaException("topic " + name + " does not exist, and this principal may not create it: create it"
                            + " beforehand (docs/security.md, \"Pre-creating the topics\"), or grant CREATE", e.getCause());
                }
                if (!(e.getCause() instanceof TopicExistsException)) {
                    throw new KafkaException("could not create topic " + name + ": " + why(e.getCause()), e.getCause());
                }
            } catch (TimeoutException e) {
                throw new KafkaException("timed out creating topic " + name + NO_ANSWER, e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new KafkaException("interrupted while creating topic " + name, e);
            }
        });
    }

    /**
     * The metadata names a leader before that broker has opened its replica (KRaft applies the
     * change asynchronously), and a produce in that gap fails with NOT_LEADER_OR_FOLLOWER. A
     * list-offsets answered by every leader shows each replica is open.
     */
    private static void awaitReplicasOpen(Admin admin, Map<String, TopicDescription> described)
            throws ExecutionException, InterruptedException, TimeoutException {
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        described.forEach((name, d) -> d.partitions().forEach(p -> latest.put(new TopicPartition(name, p.partition()), OffsetSpec.latest())));
        admin.listOffsets(latest).all().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * Creation returns once the controller committed it; wait until every partition has a leader
     * so that the first produce or a consumer's partition lookup does not race the metadata.
     */
    private static void awaitLeaders(Admin admin, Set<String> names) {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (true) {
            try {
                Map<String, TopicDescription> described = admin.describeTopics(names).allTopicNames()
                        .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
                boolean ready = described.values().stream()
                        .allMatch(d -> d.partitions().stream().allMatch(p -> p.leader() != null && !p.leader().isEmpty()));
                if (ready) {
                    awaitReplicasOpen(admin, described);
                    return;
                }
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof RetriableException)) { // unknown topic, not leader yet
                    throw new KafkaException("could not describe topics " + names + ": " + why(e.getCause()), e.getCause());
                }
            } catch (TimeoutException e) {
                // fall through to the deadline check
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new KafkaException("interrupted while waiting for topics " + names, e);
            }
            if (System.nanoTime() > deadline) {
                throw new KafkaException("topics " + names + " have no leader after " + TIMEOUT);
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new KafkaException("interrupted while waiting for topics " + names, e);
            }
        }
    }
}
