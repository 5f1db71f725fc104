package io.streamtrain.ingest.format;

/**
 * The stable categorical hash: ids must never change between ingest, training and serving, so it
 * is specified here byte for byte and implemented without a library.
 *
 * <pre>
 * bytes  = field as 4 bytes big-endian, then the value's UTF-8 bytes (a lone surrogate as '?')
 * h      = FNV-1a 64 over bytes   (offset basis 0xcbf29ce484222325, prime 0x100000001b3)
 * hash64 = murmur3 fmix64(h)      (FNV-1a's low bits mix poorly and ids keep only the low bits)
 * id     = hash64 &amp; (2^hashBits - 1)
 * </pre>
 */
public final class FeatureHashing {
    public static final long FNV_OFFSET_BASIS = 0xcbf29ce484222325L;
    public static final long FNV_PRIME = 0x100000001b3L;

    private FeatureHashing() {}

    public static long hash64(int field, CharSequence value) {
        return hash64(field, value, 0, value.length());
    }

    /** {@link #hash64(int, CharSequence)} of {@code value[from, to)}, without copying it. */
    public static long hash64(int field, CharSequence value, int from, int to) {
        long h = FNV_OFFSET_BASIS;
        h = (h ^ ((field >>> 24) & 0xff)) * FNV_PRIME;
        h = (h ^ ((field >>> 16) & 0xff)) * FNV_PRIME;
        h = (h ^ ((field >>> 8) & 0xff)) * FNV_PRIME;
        h = (h ^ (field & 0xff)) * FNV_PRIME;
        for (int i = from; i < to; i++) {
            char c = value.charAt(i);
            if (c < 0x80) {
                h = (h ^ c) * FNV_PRIME;
            } else if (c < 0x800) {
                h = (h ^ (0xc0 | (c >> 6))) * FNV_PRIME;
                h = (h ^ (0x80 | (c & 0x3f))) * FNV_PRIME;
            } else if (Character.isHighSurrogate(c) && i + 1 < to && Character.isLowSurrogate(value.charAt(i + 1))) {
                int cp = Character.toCodePoint(c, value.charAt(++i));
                h = (h ^ (0xf0 | (cp >> 18))) * FNV_PRIME;
                h = (h ^ (0x80 | ((cp >> 12) & 0x3f))) * FNV_PRIME;
                h = (h ^ (0x80 | ((cp >> 6) & 0x3f))) * FNV_PRIME;
                h = (h ^ (0x80 | (cp & 0x3f))) * FNV_PRIME;
            } else if (Character.isSurrogate(c)) {
                h = (h ^ '?') * FNV_PRIME; // what String.getBytes(UTF_8) writes for a lone surrogate
            } else {
                h = (h ^ (0xe0 | (c >> 12))) * FNV_PRIME;
                h = (h ^ (0x80 | ((c >> 6) & 0x3f))) * FNV_PRIME;
                h = (h ^ (0x80 | (c & 0x3f))) * FNV_PRIME;
            }
        }
        return fmix64(h);
    }

    /** The feature id of a categorical value: the low {@code hashBits} bits of {@link #hash64}. */
    public static long id(int field, CharSequence value, int from, int to, int hashBits) {
        return hash64(field, value, from, to) & ((1L << hashBits) - 1);
    }

    /** murmur3's 64-bit finalizer. */
    public static long fmix64(long k) {
        k ^= k >>> 33;
        k *= 0xff51afd7ed558ccdL;
        k ^= k >>> 33;
        k *= 0xc4ceb9fe1a85ec53L;
        k ^= k >>> 33;
        return k;
    }

    /**
     * The bucket id of a count-like integer: 0 for v &lt; 0, else floor(log2(v + 1)) + 1, so 0→1,
     * 1..2→2, 3..6→3, 7..14→4, ... (logarithmic buckets keep heavy-tailed counts few and dense).
     */
    public static long logBucket(long v) {
        if (v < 0) {
            return 0;
        }
        if (v == Long.MAX_VALUE) {
            return 64;
        }
        return 64 - Long.numberOfLeadingZeros(v + 1);
    }
}
