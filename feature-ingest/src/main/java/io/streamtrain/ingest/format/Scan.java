package io.streamtrain.ingest.format;

/**
 * Allocation-free scanning of number tokens inside a line (no {@code split}, no substring on the
 * common path), shared by the parsers.
 */
final class Scan {
    /** {@link #index} result: the token is not an integer. */
    static final long NOT_A_NUMBER = Long.MIN_VALUE;
    /** {@link #index} result: an integer, but negative or above the limit. */
    static final long OUT_OF_RANGE = -1;
    /** {@link #label} result for a numeric label that is not 0/1/-1/+1. */
    static final float BAD_LABEL = -1f;

    private static final int MAX_DETAIL_TOKEN = 40;

    private Scan() {}

    static boolean isSpace(char c) {
        return c == ' ' || c == '\t';
    }

    /** End of the content: before a trailing CR/LF and, when {@code comments}, before the first '#'. */
    static int contentEnd(String s, boolean comments) {
        int end = s.length();
        if (comments) {
            int hash = s.indexOf('#');
            if (hash >= 0) {
                end = hash;
            }
        }
        while (end > 0 && (s.charAt(end - 1) == '\r' || s.charAt(end - 1) == '\n')) {
            end--;
        }
        return end;
    }

    static int skipSpace(String s, int i, int end) {
        while (i < end && isSpace(s.charAt(i))) {
            i++;
        }
        return i;
    }

    static int tokenEnd(String s, int i, int end) {
        while (i < end && !isSpace(s.charAt(i))) {
            i++;
        }
        return i;
    }

    static int indexOf(String s, char c, int from, int to) {
        for (int i = from; i < to; i++) {
            if (s.charAt(i) == c) {
                return i;
            }
        }
        return -1;
    }

    /** True for an optionally signed run of decimal digits. */
    static boolean isInteger(String s, int from, int to) {
        int i = from;
        if (i < to && (s.charAt(i) == '+' || s.charAt(i) == '-')) {
            i++;
        }
        if (i == to) {
            return false;
        }
        for (; i < to; i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return true;
    }

    /** The integer in [from, to) (must satisfy {@link #isInteger}), clamped to the long range. */
    static long saturatingLong(String s, int from, int to) {
        int i = from;
        boolean negative = false;
        if (s.charAt(i) == '+' || s.charAt(i) == '-') {
            negative = s.charAt(i) == '-';
            i++;
        }
        long v = 0;
        for (; i < to; i++) {
            int d = s.charAt(i) - '0';
            if (v > (Long.MAX_VALUE - d) / 10) {
                return negative ? Long.MIN_VALUE : Long.MAX_VALUE;
            }
            v = v * 10 + d;
        }
        return negative ? -v : v;
    }

    /**
     * A feature index or field number in [0, max]; {@link #OUT_OF_RANGE} for a negative or larger
     * integer, {@link #NOT_A_NUMBER} for anything else.
     */
    static long index(String s, int from, int to, long max) {
        if (!isInteger(s, from, to)) {
            return NOT_A_NUMBER;
        }
        long v = saturatingLong(s, from, to);
        return v < 0 || v > max ? OUT_OF_RANGE : v;
    }

    /**
     * A float value: NaN when the token is not a decimal number, an infinity when it is a
     * non-finite one ({@code nan}, {@code inf}, {@code infinity}, or beyond the float range).
     */
    static float value(String s, int from, int to) {
        // Fast path, exact: short integers such as the ubiquitous "1".
        int len = to - from;
        if (len > 0 && len <= 7) {
            int i = from;
            boolean negative = s.charAt(i) == '-';
            if (negative || s.charAt(i) == '+') {
                i++;
            }
            if (i < to) {
                int v = 0;
                for (; i < to; i++) {
                    int d = s.charAt(i) - '0';
                    if (d < 0 || d > 9) {
                        break;
                    }
                    v = v * 10 + d;
                }
                if (i == to) {
                    return negative ? -v : v;
                }
            }
        }
        if (isNonFiniteWord(s, from, to)) {
            return Float.POSITIVE_INFINITY;
        }
        if (!isDecimal(s, from, to)) {
            return Float.NaN;
        }
        return Float.parseFloat(s.substring(from, to));
    }

    /** 0 or 1 (-1 and +1 map to 0 and 1); {@link #BAD_LABEL} for other numbers; NaN when not a number. */
    static float label(String s, int from, int to) {
        float v = value(s, from, to);
        if (Float.isNaN(v)) {
            return Float.NaN;
        }
        if (v == 1f) {
            return 1f;
        }
        if (v == 0f || v == -1f) {
            return 0f;
        }
        return BAD_LABEL;
    }

    /** Strict decimal syntax: {@code [+-]? (d+ (.d*)? | .d+) ([eE] [+-]? d+)?} (no hex, no 'f'/'d' suffix). */
    static boolean isDecimal(String s, int from, int to) {
        int i = from;
        if (i < to && (s.charAt(i) == '+' || s.charAt(i) == '-')) {
            i++;
        }
        int digits = 0;
        while (i < to && isDigit(s.charAt(i))) {
            i++;
            digits++;
        }
        if (i < to && s.charAt(i) == '.') {
            i++;
            while (i < to && isDigit(s.charAt(i))) {
                i++;
                digits++;
            }
        }
        if (digits == 0) {
            return false;
        }
        if (i < to && (s.charAt(i) == 'e' || s.charAt(i) == 'E')) {
            i++;
            if (i < to && (s.charAt(i) == '+' || s.charAt(i) == '-')) {
                i++;
            }
            int expDigits = 0;
            while (i < to && isDigit(s.charAt(i))) {
                i++;
                expDigits++;
            }
            if (expDigits == 0) {
                return false;
            }
        }
        return i == to;
    }

    private static boolean isNonFiniteWord(String s, int from, int to) {
        int i = from;
        if (i < to && (s.charAt(i) == '+' || s.charAt(i) == '-')) {
            i++;
        }
        int len = to - i;
        return (len == 3 && (s.regionMatches(true, i, "nan", 0, 3) || s.regionMatches(true, i, "inf", 0, 3)))
                || (len == 8 && s.regionMatches(true, i, "infinity", 0, 8));
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    /** The token for a rejection detail, shortened so a huge garbage token cannot bloat the dead letter. */
    static String excerpt(String s, int from, int to) {
        return to - from <= MAX_DETAIL_TOKEN
                ? s.substring(from, to)
                : s.substring(from, from + MAX_DETAIL_TOKEN) + "...";
    }
}
