package io.streamtrain.join;

import io.streamtrain.ingest.format.FeatureHashing;
import java.io.Serializable;

/**
 * Deterministic negative down-sampling: keeps an impression iff a stable hash of its id, read as
 * a uniform number in [0, 1), is below the rate. A replay (or another joiner) keeps exactly the
 * same negatives, so a restart cannot change which examples exist.
 */
public final class NegativeSampler implements Serializable {
    private static final long serialVersionUID = 1L;
    /** The hash's field argument: a constant so sampling is independent of the feature hashing of ids. */
    private static final int SALT = 0x5A3D;
    private final double rate;

    public NegativeSampler(double rate) {
        if (!(rate > 0 && rate <= 1)) {
            throw new IllegalArgumentException("negative sampling rate must be in (0, 1], was " + rate);
        }
        this.rate = rate;
    }

    public boolean keep(String impressionId) {
        return rate >= 1 || uniform(impressionId) < rate;
    }

    public double rate() {
        return rate;
    }

    /** The id's hash as a double in [0, 1) (53 bits). */
    static double uniform(String impressionId) {
        return (FeatureHashing.hash64(SALT, impressionId) >>> 11) * 0x1.0p-53;
    }
}
