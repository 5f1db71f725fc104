package io.streamtrain.ingest.mapping;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.streamtrain.ingest.format.Buckets;
import io.streamtrain.ingest.format.FeatureHashing;
import io.streamtrain.ingest.format.ParseOptions;
import io.streamtrain.ingest.format.RejectReason;
import io.streamtrain.schema.Feature;
import java.io.IOException;
import java.io.InputStream;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The one definition of how raw named values become features, shared by file ingest (CSV, JSON
 * lines, Avazu), the joiner (impressions) and scoring, so training and serving featurise the same
 * input identically. Declared in a JSON file:
 *
 * <pre>
 * {
 *   "label": "click",           // label column (0/1, -1/+1, true/false); files only
 *   "id": "id",                 // optional example id column (default: source:line)
 *   "time": "ts",               // optional event-time column, epoch millis (default: the ingest clock)
 *   "hash_bits": 24,            // default for every categorical/multi column
 *   "columns": ["click", "user_id", ...], // CSV only: column names in order (default: the file's header line)
 *   "header": true,             // CSV only: files start with a header line (default: true without "columns")
 *   "delimiter": ",",           // CSV only (default ",")
 *   "features": [
 *     {"column": "user_id", "field": 0, "type": "categorical"},
 *     {"column": "price",   "field": 1, "type": "numeric"},
 *     {"column": "visits",  "field": 2, "type": "bucketized"},                       // log2 buckets
 *     {"column": "age",     "field": 3, "type": "bucketized", "boundaries": [18, 25, 35, 50]},
 *     {"column": "tags",    "field": 4, "type": "multi", "separator": "|", "hash_bits": 20}
 *   ]
 * }
 * </pre>
 * A missing or empty value yields no feature; columns not listed are ignored. Built-in mappings:
 * {@code impressions} (the joiner's default) and {@code avazu}.
 */
public final class FeatureMapping implements Serializable {
    private static final long serialVersionUID = 1L;
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Set<String> TOP_KEYS =
            Set.of("label", "id", "time", "hash_bits", "features", "columns", "header", "delimiter", "doc");
    private static final Set<String> FIELD_KEYS = Set.of("column", "field", "type", "boundaries", "separator", "hash_bits", "doc");

    private final String name;
    private final String labelColumn;
    private final String idColumn;
    private final String timeColumn;
    private final List<FieldMapping> fields;
    private final CsvLayout csv;
    private final String definition; // the mapping's JSON, so a model card can carry it

    /**
     * How CSV files lay out their columns.
     *
     * @param columns the column names in order, or null to take them from the header line
     * @param header whether files start with a header line (checked against {@code columns} when both are given)
     */
    public record CsvLayout(List<String> columns, boolean header, String delimiter) implements Serializable {
        public static final CsvLayout FROM_HEADER = new CsvLayout(null, true, ",");

        public CsvLayout {
            columns = columns == null ? null : List.copyOf(columns);
            if (columns == null && !header) {
                throw new IllegalArgumentException("a mapping without \"columns\" needs a header line");
            }
            if (delimiter == null || delimiter.length() != 1 || delimiter.equals("\"")) {
                throw new IllegalArgumentException("\"delimiter\" must be one character other than '\"'");
            }
        }
    }

    /** A mapping built in code (CSV columns from the header); it has no JSON {@link #definition()}. */
    public FeatureMapping(String name, String labelColumn, String idColumn, String timeColumn, List<FieldMapping> fields) {
        this(name, labelColumn, idColumn, timeColumn, fields, CsvLayout.FROM_HEADER, null);
    }

    private FeatureMapping(String name, String labelColumn, String idColumn, String timeColumn, List<FieldMapping> fields,
            CsvLayout csv, String definition) {
        if (fields.isEmpty()) {
            throw new IllegalArgumentException("mapping " + name + ": no features");
        }
        this.name = name;
        this.labelColumn = labelColumn;
        this.idColumn = idColumn;
        this.timeColumn = timeColumn;
        this.fields = List.copyOf(fields);
        this.csv = csv;
        this.definition = definition;
        if (csv.columns() != null) {
            for (String c : columns()) {
                if (!csv.columns().contains(c)) {
                    throw new IllegalArgumentException("mapping " + name + ": column " + c + " is not in \"columns\"");
                }
            }
        }
    }

    /** A mapping file. */
    public static FeatureMapping read(Path file) throws IOException {
        try {
            return parse(JSON.readTree(Files.readAllBytes(file)), file.toString());
        } catch (IllegalArgumentException e) {
            throw new IOException(file + ": " + e.getMessage(), e);
        }
    }

    /** A built-in mapping ({@code impressions}, {@code avazu}). */
    public static FeatureMapping builtIn(String name) {
        try (InputStream in = FeatureMapping.class.getResourceAsStream("/mappings/" + name + ".json")) {
            if (in == null) {
                throw new IllegalArgumentException("no built-in mapping '" + name + "' (impressions, avazu)");
            }
            return parse(JSON.readTree(in), name);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A mapping from its JSON text, e.g. the {@link #definition()} a model card carries. */
    public static FeatureMapping fromJson(String json, String name) {
        try {
            return parse(JSON.readTree(json), name);
        } catch (IOException e) {
            throw new IllegalArgumentException(name + ": not a mapping: " + e.getMessage(), e);
        }
    }

    /** {@code builtin:NAME} or a file path. */
    public static FeatureMapping load(String spec) throws IOException {
        return spec.startsWith("builtin:") ? builtIn(spec.substring("builtin:".length())) : read(Path.of(spec));
    }

    static FeatureMapping parse(JsonNode root, String name) {
        if (!root.isObject()) {
            throw new IllegalArgumentException("a mapping is a JSON object");
        }
        checkKeys(root, TOP_KEYS, "mapping");
        int hashBits = root.path("hash_bits").asInt(ParseOptions.DEFAULT_HASH_BITS);
        JsonNode features = root.path("features");
        if (!features.isArray()) {
            throw new IllegalArgumentException("\"features\" must be an array");
        }
        List<FieldMapping> fields = new ArrayList<>();
        for (JsonNode f : features) {
            checkKeys(f, FIELD_KEYS, "feature");
            String column = text(f, "column");
            if (column == null || !f.path("field").isInt()) {
                throw new IllegalArgumentException("every feature needs \"column\" and an integer \"field\": " + f);
            }
            FieldMapping.Kind kind = FieldMapping.Kind.parse(f.path("type").asText("categorical"));
            Buckets buckets = null;
            if (f.has("boundaries")) {
                double[] b = new double[f.get("boundaries").size()];
                for (int i = 0; i < b.length; i++) {
                    b[i] = f.get("boundaries").get(i).asDouble(Double.NaN);
                }
                buckets = Buckets.of(b);
            }
            fields.add(new FieldMapping(column, f.get("field").asInt(), kind, buckets, text(f, "separator"),
                    f.path("hash_bits").asInt(hashBits)));
        }
        List<String> columns = null;
        if (root.has("columns")) {
            if (!root.get("columns").isArray()) {
                throw new IllegalArgumentException("\"columns\" must be an array of names");
            }
            columns = new ArrayList<>();
            for (JsonNode c : root.get("columns")) {
                columns.add(c.asText());
            }
        }
        CsvLayout csv = new CsvLayout(columns, root.path("header").asBoolean(columns == null),
                root.path("delimiter").asText(","));
        return new FeatureMapping(name, text(root, "label"), text(root, "id"), text(root, "time"), fields, csv, root.toString());
    }

    private static void checkKeys(JsonNode node, Set<String> allowed, String what) {
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
            String key = it.next();
            if (!allowed.contains(key)) {
                throw new IllegalArgumentException("unknown " + what + " key \"" + key + "\" (allowed: " + allowed + ")");
            }
        }
    }

    private static String text(JsonNode n, String key) {
        JsonNode v = n.get(key);
        return v == null || v.isNull() ? null : v.asText();
    }

    /** Appends the record's features, in mapping order. */
    public void features(RawRecord raw, List<Feature> out) throws MappingException {
        for (FieldMapping m : fields) {
            Object value = raw.get(m.column());
            if (isMissing(value)) {
                continue;
            }
            switch (m.kind()) {
                case CATEGORICAL -> out.add(categorical(m, text(value)));
                case NUMERIC -> {
                    double v = number(m, value);
                    if (!Float.isFinite((float) v)) {
                        throw new MappingException(RejectReason.NON_FINITE_VALUE, m.column() + " = " + value + " is not a finite float");
                    }
                    out.add(new Feature(m.field(), 0L, (float) v));
                }
                case BUCKETIZED -> out.add(new Feature(m.field(), m.buckets().bucket(number(m, value)), 1f));
                case MULTI -> {
                    if (value instanceof List<?> list) {
                        for (Object element : list) {
                            if (!isMissing(element)) {
                                out.add(categorical(m, text(element)));
                            }
                        }
                    } else {
                        String s = text(value);
                        int from = 0;
                        while (from <= s.length()) {
                            int to = s.indexOf(m.separator(), from);
                            if (to < 0) {
                                to = s.length();
                            }
                            if (to > from) {
                                out.add(new Feature(m.field(), FeatureHashing.id(m.field(), s, from, to, m.hashBits()), 1f));
                            }
                            from = to + m.separator().length();
                        }
                    }
                }
            }
        }
    }

    public List<Feature> features(RawRecord raw) throws MappingException {
        List<Feature> out = new ArrayList<>(fields.size());
        features(raw, out);
        return out;
    }

    /** The label column's value as 0 or 1 (0/1, -1/+1, true/false). */
    public float label(RawRecord raw) throws MappingException {
        if (labelColumn == null) {
            throw new IllegalStateException("mapping " + name + " has no label column");
        }
        Object v = raw.get(labelColumn);
        if (isMissing(v)) {
            throw new MappingException(RejectReason.BAD_LABEL, "label column " + labelColumn + " is missing");
        }
        if (v instanceof Boolean b) {
            return b ? 1f : 0f;
        }
        double d;
        try {
            d = v instanceof Number n ? n.doubleValue() : Double.parseDouble(text(v).trim());
        } catch (NumberFormatException e) {
            throw new MappingException(RejectReason.BAD_LABEL, "label " + labelColumn + " = '" + v + "' is not a number");
        }
        if (d == 1) {
            return 1f;
        }
        if (d == 0 || d == -1) {
            return 0f;
        }
        throw new MappingException(RejectReason.BAD_LABEL, "label " + labelColumn + " = " + v + " is not 0/1 or -1/+1");
    }

    /** The id column's value, or null when there is none. */
    public String id(RawRecord raw) {
        Object v = idColumn == null ? null : raw.get(idColumn);
        return isMissing(v) ? null : text(v);
    }

    /** The time column's value in epoch millis, or {@code fallback}. */
    public long time(RawRecord raw, long fallback) throws MappingException {
        Object v = timeColumn == null ? null : raw.get(timeColumn);
        if (isMissing(v)) {
            return fallback;
        }
        try {
            return v instanceof Number n ? n.longValue() : Long.parseLong(text(v).trim());
        } catch (NumberFormatException e) {
            throw new MappingException(RejectReason.UNPARSABLE, "time " + timeColumn + " = '" + v + "' is not epoch millis");
        }
    }

    private static Feature categorical(FieldMapping m, String s) {
        return new Feature(m.field(), FeatureHashing.id(m.field(), s, 0, s.length(), m.hashBits()), 1f);
    }

    private static double number(FieldMapping m, Object value) throws MappingException {
        if (value instanceof Number n) {
            return n.doubleValue();
        }
        if (value instanceof Boolean b) {
            return b ? 1 : 0;
        }
        try {
            return Double.parseDouble(text(value).trim());
        } catch (NumberFormatException e) {
            throw new MappingException(RejectReason.UNPARSABLE, m.column() + " = '" + value + "' is not a number");
        }
    }

    private static boolean isMissing(Object v) {
        return v == null || (v instanceof String s && s.isEmpty());
    }

    private static String text(Object v) {
        return v instanceof String s ? s : String.valueOf(v);
    }

    public String name() {
        return name;
    }

    public String labelColumn() {
        return labelColumn;
    }

    /** The id column, or null. */
    public String idColumn() {
        return idColumn;
    }

    public List<FieldMapping> fields() {
        return fields;
    }

    public CsvLayout csv() {
        return csv;
    }

    /** The mapping as JSON (compact), which {@link #fromJson} reads back to the same mapping; null when built in code. */
    public String definition() {
        return definition;
    }

    /** Columns the mapping reads (label, id, time, features). */
    public Set<String> columns() {
        java.util.LinkedHashSet<String> c = new java.util.LinkedHashSet<>();
        for (String s : new String[] {labelColumn, idColumn, timeColumn}) {
            if (s != null) {
                c.add(s);
            }
        }
        fields.forEach(f -> c.add(f.column()));
        return c;
    }

    /** A RawRecord over a map. */
    public static RawRecord of(Map<String, ?> values) {
        return values::get;
    }

    @Override
    public String toString() {
        return "mapping " + name + " (" + fields.size() + " columns)";
    }
}
