package io.streamtrain.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

/**
 * Clients that send one {@code /score} request to a {@code serve} process over and over until
 * closed, each on its own thread: an answer other than 200 with scores {@code valid} takes,
 * or no answer at all, is a failure.
 */
final class ScoringLoad implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final AtomicBoolean running = new AtomicBoolean(true);
    private final AtomicLong answered = new AtomicLong();
    private final ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
    private final ExecutorService clients;
    private final List<Future<?>> done = new ArrayList<>();

    ScoringLoad(HttpClient http, int port, String body, Predicate<List<Double>> valid, int threads) {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/score"))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build();
        clients = Executors.newFixedThreadPool(threads);
        for (int t = 0; t < threads; t++) {
            done.add(clients.submit(() -> {
                while (running.get()) {
                    try {
                        HttpResponse<String> r = http.send(request, HttpResponse.BodyHandlers.ofString());
                        List<Double> scores = new ArrayList<>();
                        if (r.statusCode() == 200) {
                            JSON.readTree(r.body()).get("scores").forEach(s -> scores.add(s.asDouble()));
                        }
                        if (r.statusCode() == 200 && valid.test(scores)) {
                            answered.incrementAndGet();
                        } else {
                            failures.add(r.statusCode() + " " + r.body());
                        }
                    } catch (Exception e) {
                        failures.add(e.toString());
                    }
                }
            }));
        }
    }

    long answered() {
        return answered.get();
    }

    /** Waits (at most a minute) until {@code n} requests were answered in all. */
    void awaitAnswers(long n) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
        while (answered.get() < n && failures.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertTrue(answered.get() >= n || !failures.isEmpty(), "answered " + answered.get() + " of " + n + " within a minute");
    }

    /** Stops the clients and checks that not one request failed. */
    @Override
    public void close() throws Exception {
        running.set(false);
        for (Future<?> f : done) {
            f.get(60, TimeUnit.SECONDS);
        }
        clients.shutdown();
        assertEquals(List.of(), new ArrayList<>(failures), "no request failed (" + answered.get() + " answered)");
    }
}
