package io.streamtrain.kafka;

import java.time.Duration;
import java.util.concurrent.Callable;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rides out a Kafka outage (a broker restart, a network partition) for one long-running reader of
 * Kafka — a run's progress watch, a model follower — instead of letting the first timed-out call
 * end it: a failure that Kafka calls retriable (a timeout, a lost connection, a partition without
 * a leader) is logged, waited out with a growing but bounded backoff, and the call is repeated,
 * until Kafka answers again or the outage lasted longer than the patience. Anything else, and
 * above all a misconfiguration (authentication or authorization failed, an unresolvable bootstrap
 * address, a bad client property), is not an outage and fails at once.
 *
 * <p>One instance per reader and thread: it remembers since when Kafka has been unreachable across
 * calls, so a reader that makes several calls per round waits out one outage, not one per call.
 */
public final class KafkaOutage {
    private static final Logger LOG = LoggerFactory.getLogger(KafkaOutage.class);
    private static final Duration FIRST_BACKOFF = Duration.ofMillis(250);
    private static final Duration MAX_BACKOFF = Duration.ofSeconds(5);
    /** While an outage lasts, one log line this often, not one per retry. */
    private static final Duration LOG_EVERY = Duration.ofSeconds(15);

    private final String reader;
    private final Duration patience;
    private long since = -1;
    private long lastLogged;
    private long backoffMs = FIRST_BACKOFF.toMillis();

    /**
     * @param reader who waits, for the log lines (e.g. "train progress")
     * @param patience how long one outage may last before the reader gives up
     */
    public KafkaOutage(String reader, Duration patience) {
        this.reader = reader;
        this.patience = patience;
    }

    /** For a reader that has nothing better to do than wait (a server following a topic): no outage is too long. */
    public static KafkaOutage endless(String reader) {
        return new KafkaOutage(reader, Duration.ofNanos(Long.MAX_VALUE));
    }

    /** Whether {@code t} (or a cause of it) is Kafka being unreachable or unready, not a misconfiguration. */
    public static boolean isOutage(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof AuthenticationException || c instanceof AuthorizationException
                    || c instanceof ConfigException || c instanceof UnsupportedVersionException) {
                return false;
            }
            if (c instanceof RetriableException || c instanceof java.util.concurrent.TimeoutException) {
                return true;
            }
        }
        return false;
    }

    /**
     * Runs {@code call}, repeating it through an outage as long as the patience allows.
     *
     * @throws KafkaException when the outage outlasts the patience (the last failure as its cause)
     * @throws Exception what {@code call} throws when it is not an outage
     */
    public <T> T retry(String action, Callable<T> call) throws Exception {
        while (true) {
            try {
                T result = call.call();
                reachable();
                return result;
            } catch (Exception e) {
                failed(action, e);
                Thread.sleep(backoffMillis());
            }
        }
    }

    /**
     * Records a failed call of a reader that retries by itself (on its next round): returns if it
     * is an outage within the patience (logged), throws otherwise.
     *
     * @throws KafkaException when the outage outlasts the patience
     * @throws Exception {@code e} itself when it is not an outage
     */
    public <E extends Exception> void failed(String action, E e) throws E {
        if (!isOutage(e)) {
            throw e;
        }
        long now = System.nanoTime();
        if (since < 0) {
            since = now;
            lastLogged = now;
            backoffMs = FIRST_BACKOFF.toMillis();
            LOG.warn("{}: Kafka unreachable while {} ({}); waiting for it{}", reader, action, rootMessage(e), upTo());
        } else {
            backoffMs = Math.min(backoffMs * 2, MAX_BACKOFF.toMillis());
        }
        if (now - lastLogged >= LOG_EVERY.toNanos()) {
            lastLogged = now;
            LOG.warn("{}: Kafka still unreachable after {} s ({}); waiting for it{}", reader,
                    unreachableFor().toSeconds(), rootMessage(e), upTo());
        }
        if (now - since > patience.toNanos()) {
            throw new KafkaException(reader + ": Kafka unreachable for " + unreachableFor().toSeconds() + " s while " + action
                    + ", longer than the " + patience.toSeconds() + " s allowed for an outage (streamtrain.kafka.outage-patience):"
                    + " is the broker up and its address right? (" + rootMessage(e) + ")", e);
        }
    }

    /** Records a call that succeeded: an outage, if one was going on, is over. */
    public void reachable() {
        if (since >= 0) {
            LOG.info("{}: Kafka reachable again after {} s", reader, unreachableFor().toSeconds());
            since = -1;
        }
    }

    /** Whether the last call failed with an outage. */
    public boolean ongoing() {
        return since >= 0;
    }

    /** How long the current outage has lasted; zero when there is none. */
    public Duration unreachableFor() {
        return since < 0 ? Duration.ZERO : Duration.ofNanos(System.nanoTime() - since);
    }

    private String upTo() {
        return patience.toNanos() == Long.MAX_VALUE ? "" : ", up to " + patience.toSeconds() + " s";
    }

    /** How long to wait before the next try after a {@link #failed} call: growing with each failure of an outage, up to 5 s. */
    public long backoffMillis() {
        return backoffMs;
    }

    private static String rootMessage(Throwable t) {
        Throwable c = t;
        while (c.getCause() != null && c.getCause() != c) {
            c = c.getCause();
        }
        return c.getClass().getSimpleName() + ": " + c.getMessage();
    }
}
