package io.streamtrain.serve;

import io.streamtrain.bundle.Bundle;
import io.streamtrain.export.LoadedModel;
import io.streamtrain.schema.FeatureKey;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.locks.LockSupport;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code streamtrain bench serve}: a bounded open-loop load generator against {@code serve} on
 * loopback. Each client sends single-example requests on a fixed schedule; latency counts from the
 * scheduled send time, so a stalled server is not hidden by clients that wait (coordinated omission).
 */
@Command(name = "serve", mixinStandardHelpOptions = true,
        description = "Starts serve on 127.0.0.1 from --bundle, sends single-example POST /score requests at --rate for"
                + " --seconds (after --warmup-seconds) and prints latency p50/p99 and throughput as a markdown table.")
public final class ServeBenchCommand implements Callable<Integer> {
    @Option(names = "--bundle", required = true, paramLabel = "DIR", description = "A bundle written by export --bundle.")
    Path bundleDir;

    @Option(names = "--rate", defaultValue = "1000", description = "Requests per second, all clients together (default: ${DEFAULT-VALUE}).")
    int rate;

    @Option(names = "--seconds", defaultValue = "20", description = "Measured seconds (default: ${DEFAULT-VALUE}).")
    int seconds;

    @Option(names = "--warmup-seconds", defaultValue = "5", description = "Unmeasured seconds first (default: ${DEFAULT-VALUE}).")
    int warmupSeconds;

    @Option(names = "--clients", defaultValue = "4", description = "Client threads, one connection each (default: ${DEFAULT-VALUE}).")
    int clients;

    @Option(names = "--threads", defaultValue = "4", description = "Server request threads (default: ${DEFAULT-VALUE}).")
    int threads;

    @Option(names = "--features", defaultValue = "10", description = "Features per example, drawn from the bundle's rows (default: ${DEFAULT-VALUE}).")
    int features;

    @Override
    public Integer call() throws Exception {
        try (Bundle bundle = Bundle.open(bundleDir);
                ScoringServer server = new ScoringServer(new ScoringServer.Settings("127.0.0.1", 0, threads, 1 << 20, 1000, 1000),
                        LoadedModel.of(bundle), bundle.card(), Map::of)) {
            long[] keys = bundle.firstKeys(100_000);
            URI uri = URI.create("http://127.0.0.1:" + server.port() + "/score");
            System.err.printf("bench serve: %s bundle, %d rows; %d req/s from %d clients for %d s after %d s warm-up%n",
                    bundle.card().modelType(), bundle.card().contents().rows(), rate, clients, seconds, warmupSeconds);
            run(uri, keys, warmupSeconds);
            long t0 = System.nanoTime();
            Result r = run(uri, keys, seconds);
            double wall = (System.nanoTime() - t0) / 1e9;
            System.out.println("| target req/s | achieved req/s | requests | errors | client p50 ms | client p99 ms | client max ms | server p50 ms | server p99 ms |");
            System.out.println("|---|---|---|---|---|---|---|---|---|");
            System.out.printf(Locale.ROOT, "| %d | %.0f | %d | %d | %.3f | %.3f | %.3f | %.3f | %.3f |%n", rate, r.latencies.length / wall,
                    r.latencies.length, r.errors, pct(r.latencies, 0.50), pct(r.latencies, 0.99), pct(r.latencies, 1.0),
                    server.metrics().latencyMs(0.50), server.metrics().latencyMs(0.99));
            return r.errors == 0 ? 0 : 1;
        }
    }

    private record Result(long[] latencies, long errors) {}

    private Result run(URI uri, long[] keys, int durationSeconds) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        long intervalNanos = 1_000_000_000L * clients / rate;
        long start = System.nanoTime();
        long end = start + durationSeconds * 1_000_000_000L;
        List<Future<Result>> parts = new ArrayList<>();
        for (int c = 0; c < clients; c++) {
            long offset = intervalNanos * c / clients;
            long seed = c;
            parts.add(pool.submit(() -> client(uri, keys, start + offset, end, intervalNanos, new SplittableRandom(seed))));
        }
        List<long[]> all = new ArrayList<>();
        long errors = 0;
        for (Future<Result> f : parts) {
            Result r = f.get();
            all.add(r.latencies);
            errors += r.errors;
        }
        pool.shutdown();
        long[] merged = all.stream().flatMapToLong(Arrays::stream).sorted().toArray();
        return new Result(merged, errors);
    }

    private Result client(URI uri, long[] keys, long first, long end, long intervalNanos, SplittableRandom random) throws Exception {
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(10)).build();
        long[] latencies = new long[(int) ((end - first) / intervalNanos) + 1];
        int n = 0;
        long errors = 0;
        for (long due = first; due < end && n < latencies.length; due += intervalNanos) {
            long wait = due - System.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(wait);
            }
            HttpRequest request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30))
                    .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body(keys, random))).build();
            HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200) {
                errors++;
            }
            latencies[n++] = System.nanoTime() - due;
        }
        return new Result(Arrays.copyOf(latencies, n), errors);
    }

    private String body(long[] keys, SplittableRandom random) {
        StringBuilder b = new StringBuilder("{\"features\": [");
        for (int i = 0; i < features; i++) {
            long k = keys.length > 0 && random.nextInt(10) > 0 ? keys[random.nextInt(keys.length)] : FeatureKey.of(7, random.nextInt(1 << 30));
            b.append(i > 0 ? "," : "").append("{\"field\": ").append(FeatureKey.field(k)).append(", \"id\": ").append(FeatureKey.id(k)).append('}');
        }
        return b.append("]}").toString();
    }

    private static double pct(long[] sorted, double q) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        return sorted[(int) Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] / 1e6;
    }
}
