package io.streamtrain.serve;

import io.streamtrain.schema.FeatureKey;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code streamtrain bench serve}: {@code serve} in-process on 127.0.0.1, driven by {@code wrk} (an
 * external load tool, Debian package {@code wrk}) with single-example {@code POST /score} requests
 * paced to a target rate by a Lua script. wrk's latency counts from a request's write to its
 * response; with many connections at a paced rate, a slow server shows up in it rather than in
 * a lower rate.
 */
@Command(name = "serve", mixinStandardHelpOptions = true,
        description = "Starts serve on 127.0.0.1 from --bundle, runs wrk (apt-get install wrk) with single-example"
                + " POST /score requests paced to --rate for --seconds (after --warmup-seconds) and prints the achieved rate"
                + " and latency p50/p99/p99.9 as a markdown table. Exit 1 when a request failed.")
public final class ServeBenchCommand implements Callable<Integer> {
    private static final Pattern RESULT = Pattern.compile(
            "BENCH requests=(\\d+) duration_us=(\\d+) errors=(\\d+) p50_us=([\\d.]+) p99_us=([\\d.]+) p999_us=([\\d.]+) max_us=([\\d.]+)");

    @Option(names = "--bundle", required = true, paramLabel = "DIR", description = "A bundle written by export --bundle.")
    Path bundleDir;

    @Option(names = "--rate", defaultValue = "5000", description = "Requests per second, all connections together (default: ${DEFAULT-VALUE}).")
    int rate;

    @Option(names = "--seconds", defaultValue = "30", description = "Measured seconds (default: ${DEFAULT-VALUE}).")
    int seconds;

    @Option(names = "--warmup-seconds", defaultValue = "10", description = "Unmeasured seconds first (default: ${DEFAULT-VALUE}).")
    int warmupSeconds;

    @Option(names = "--connections", defaultValue = "64", description = "wrk connections (default: ${DEFAULT-VALUE}).")
    int connections;

    @Option(names = "--wrk-threads", defaultValue = "1", description = "wrk threads (default: ${DEFAULT-VALUE}).")
    int wrkThreads;

    @Option(names = "--threads", defaultValue = "8", description = "Server request threads (default: ${DEFAULT-VALUE}).")
    int threads;

    @Option(names = "--features", defaultValue = "10", description = "Features per example, drawn from the bundle's rows (default: ${DEFAULT-VALUE}).")
    int features;

    @Option(names = "--wrk", defaultValue = "wrk", description = "The wrk executable (default: ${DEFAULT-VALUE}).")
    String wrk;

    /** One wrk run's summary. */
    record Run(long requests, double seconds, long errors, double p50Ms, double p99Ms, double p999Ms, double maxMs) {}

    @Override
    public Integer call() throws Exception {
        try (ScoringServer server = new ScoringServer(ScoringServer.Settings.of("127.0.0.1", 0, threads, 1 << 20, 1000, 1000),
                ServedModel.open(bundleDir), dir -> {
                    throw new IOException("bench serve does not reload");
                })) {
            Path script = Files.createTempFile("streamtrain-serve-bench", ".lua");
            try {
                Files.writeString(script, luaScript(server.model().sampleKeys(100_000)), StandardCharsets.UTF_8);
                String url = "http://127.0.0.1:" + server.port() + "/score";
                System.err.printf("bench serve: %s bundle, %d rows; wrk at %d req/s over %d connections for %d s after %d s warm-up%n",
                        server.model().card().modelType(), server.model().card().contents().rows(), rate, connections, seconds, warmupSeconds);
                if (warmupSeconds > 0) {
                    runWrk(script, url, warmupSeconds);
                }
                Run r = runWrk(script, url, seconds);
                System.out.println("| target req/s | achieved req/s | requests | errors | p50 ms | p99 ms | p99.9 ms | max ms | server p99 ms |");
                System.out.println("|---|---|---|---|---|---|---|---|---|");
                System.out.printf(Locale.ROOT, "| %d | %.0f | %d | %d | %.3f | %.3f | %.3f | %.3f | %.3f |%n", rate, r.requests() / r.seconds(),
                        r.requests(), r.errors(), r.p50Ms(), r.p99Ms(), r.p999Ms(), r.maxMs(), server.metrics().latencyMs(0.99));
                return r.errors() == 0 ? 0 : 1;
            } finally {
                Files.deleteIfExists(script);
            }
        }
    }

    private Run runWrk(Path script, String url, int durationSeconds) throws IOException, InterruptedException {
        List<String> command = List.of(wrk, "-t", Integer.toString(wrkThreads), "-c", Integer.toString(connections),
                "-d", durationSeconds + "s", "--timeout", "10s", "-s", script.toString(), url);
        Process p;
        try {
            p = new ProcessBuilder(command).redirectErrorStream(true).start();
        } catch (IOException e) {
            throw new IOException("cannot run " + wrk + " (" + e.getMessage() + "): install it with 'apt-get install wrk' or pass --wrk PATH", e);
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(Duration.ofSeconds(durationSeconds + 60).toSeconds(), java.util.concurrent.TimeUnit.SECONDS) || p.exitValue() != 0) {
            p.destroyForcibly();
            throw new IOException("wrk failed: " + String.join(" ", command) + "\n" + out);
        }
        Matcher m = RESULT.matcher(out);
        if (!m.find()) {
            throw new IOException("no BENCH line in wrk's output:\n" + out);
        }
        return new Run(Long.parseLong(m.group(1)), Long.parseLong(m.group(2)) / 1e6, Long.parseLong(m.group(3)),
                Double.parseDouble(m.group(4)) / 1e3, Double.parseDouble(m.group(5)) / 1e3, Double.parseDouble(m.group(6)) / 1e3,
                Double.parseDouble(m.group(7)) / 1e3);
    }

    /**
     * The wrk script: 1,000 distinct bodies (9 in 10 features from the bundle's rows, 1 in 10 never
     * seen), sent in turn; {@code delay()} paces each wrk thread to its share of the rate on a
     * schedule (a late request goes at once, it does not push the schedule back).
     */
    String luaScript(long[] keys) {
        SplittableRandom random = new SplittableRandom(1);
        List<String> bodies = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            bodies.add(body(keys, random));
        }
        StringBuilder lua = new StringBuilder();
        lua.append("local ffi = require(\"ffi\")\n")
                .append("ffi.cdef[[ typedef struct { long tv_sec; long tv_nsec; } st_timespec; int clock_gettime(int, st_timespec *); ]]\n")
                .append("local ts = ffi.new(\"st_timespec\")\n")
                .append("local function now_ms() ffi.C.clock_gettime(1, ts); return tonumber(ts.tv_sec) * 1000 + tonumber(ts.tv_nsec) / 1e6 end\n")
                .append("local bodies = {\n");
        for (String b : bodies) {
            lua.append("  [[").append(b).append("]],\n");
        }
        lua.append("}\n")
                .append("local interval_ms = ").append(String.format(Locale.ROOT, "%.6f", 1000.0 * wrkThreads / rate)).append("\n")
                .append("local requests, i, due = {}, 0, nil\n")
                .append("function init(args)\n")
                .append("  for k, b in ipairs(bodies) do\n")
                .append("    requests[k] = wrk.format(\"POST\", \"/score\", {[\"Content-Type\"] = \"application/json\"}, b)\n")
                .append("  end\n")
                .append("end\n")
                .append("function delay()\n")
                .append("  local t = now_ms()\n")
                .append("  if due == nil or due < t - 1000 then due = t end\n")
                .append("  due = due + interval_ms\n")
                .append("  if due <= t then return 0 end\n")
                .append("  return due - t\n")
                .append("end\n")
                .append("function request()\n")
                .append("  i = i % #requests + 1\n")
                .append("  return requests[i]\n")
                .append("end\n")
                .append("function done(summary, latency, requests)\n")
                .append("  local e = summary.errors\n")
                .append("  io.write(string.format(\"BENCH requests=%d duration_us=%d errors=%d p50_us=%.1f p99_us=%.1f p999_us=%.1f max_us=%.1f\\n\",\n")
                .append("    summary.requests, summary.duration, e.connect + e.read + e.write + e.status + e.timeout,\n")
                .append("    latency:percentile(50), latency:percentile(99), latency:percentile(99.9), latency.max))\n")
                .append("end\n");
        return lua.toString();
    }

    private String body(long[] keys, SplittableRandom random) {
        StringBuilder b = new StringBuilder("{\"features\": [");
        for (int i = 0; i < features; i++) {
            long k = keys.length > 0 && random.nextInt(10) > 0 ? keys[random.nextInt(keys.length)] : FeatureKey.of(7, random.nextInt(1 << 30));
            b.append(i > 0 ? "," : "").append("{\"field\": ").append(FeatureKey.field(k)).append(", \"id\": ").append(FeatureKey.id(k)).append('}');
        }
        return b.append("]}").toString();
    }
}
