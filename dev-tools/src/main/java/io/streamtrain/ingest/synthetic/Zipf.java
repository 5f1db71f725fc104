package io.streamtrain.ingest.synthetic;

import java.util.Arrays;
import java.util.Random;

/**
 * Zipf-distributed ranks 0..n-1 (rank 0 the most popular): P(r) ∝ (r + 1)^-s, drawn by inverse CDF.
 * By hand rather than commons-math's {@code ZipfDistribution}, which is not on this module's class
 * path and either draws with its own generator by rejection (a varying number of uniforms per draw)
 * or inverts its CDF by bisection over harmonic sums (O(n log n) per draw): this table takes one
 * uniform of the caller's {@link Random} per draw in O(log n), so a seed fixes the generated stream.
 */
final class Zipf {
    private final double[] cdf; // cdf[r] = P(rank <= r)

    Zipf(int n, double s) {
        cdf = new double[n];
        double total = 0;
        for (int r = 0; r < n; r++) {
            total += Math.pow(r + 1, -s);
            cdf[r] = total;
        }
        for (int r = 0; r < n; r++) {
            cdf[r] /= total;
        }
        cdf[n - 1] = 1.0;
    }

    /** Consumes one double of {@code r}: the first rank whose cdf exceeds it. */
    int sample(Random r) {
        int k = Arrays.binarySearch(cdf, r.nextDouble());
        return Math.min(k >= 0 ? k + 1 : -k - 1, cdf.length - 1);
    }
}
