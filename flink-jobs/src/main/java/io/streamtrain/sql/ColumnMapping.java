package io.streamtrain.sql;

import io.streamtrain.ingest.format.ParseOptions;
import io.streamtrain.ingest.mapping.FeatureMapping;
import io.streamtrain.ingest.mapping.FieldMapping;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeFamily;
import org.apache.flink.table.types.logical.LogicalTypeRoot;
import org.apache.flink.table.types.logical.RowType;

/**
 * The feature mapping of a table's columns: the one named by the {@code mapping} option, or the
 * default one derived from the columns (see {@link TrainingTableOptions#MAPPING}). The same
 * derivation serves training (the sink's columns) and scoring (STREAMTRAIN_PREDICT's arguments),
 * so both featurise the same values identically.
 */
public final class ColumnMapping {
    public static final String LABEL = "label";

    private ColumnMapping() {}

    /** The mapping of a sink with these columns; every column the mapping reads must exist. */
    public static FeatureMapping forSink(String mappingSpec, RowType columns, String tableName) {
        if (mappingSpec != null) {
            try {
                return FeatureMapping.load(mappingSpec);
            } catch (IOException | IllegalArgumentException e) {
                throw new ValidationException("streamtrain table " + tableName + ": mapping '" + mappingSpec + "': " + e.getMessage(), e);
            }
        }
        if (!columns.getFieldNames().contains(LABEL)) {
            throw new ValidationException("streamtrain table " + tableName + " needs a column named '" + LABEL
                    + "' (0/1, -1/+1 or BOOLEAN), or a 'mapping' option naming its label column; columns: " + columns.getFieldNames());
        }
        List<String> names = new ArrayList<>(columns.getFieldNames());
        List<LogicalType> types = new ArrayList<>(columns.getChildren());
        int label = names.indexOf(LABEL);
        names.remove(label);
        types.remove(label);
        return byPosition(tableName, LABEL, names, types);
    }

    /** Field i for feature column i, its kind by type; {@code label} may be null (scoring). */
    public static FeatureMapping byPosition(String name, String label, List<String> columns, List<LogicalType> types) {
        if (columns.isEmpty()) {
            throw new ValidationException(name + ": no feature columns");
        }
        List<FieldMapping> fields = new ArrayList<>();
        for (int i = 0; i < columns.size(); i++) {
            fields.add(new FieldMapping(columns.get(i), i, kindOf(types.get(i), columns.get(i)), null, null, ParseOptions.DEFAULT_HASH_BITS));
        }
        return new FeatureMapping(name, label, null, null, fields);
    }

    private static FieldMapping.Kind kindOf(LogicalType type, String column) {
        LogicalTypeRoot root = type.getTypeRoot();
        if (root == LogicalTypeRoot.ARRAY) {
            return FieldMapping.Kind.MULTI;
        }
        if (root == LogicalTypeRoot.FLOAT || root == LogicalTypeRoot.DOUBLE || root == LogicalTypeRoot.DECIMAL) {
            return FieldMapping.Kind.NUMERIC;
        }
        if (type.is(LogicalTypeFamily.CHARACTER_STRING) || type.is(LogicalTypeFamily.INTEGER_NUMERIC) || root == LogicalTypeRoot.BOOLEAN) {
            return FieldMapping.Kind.CATEGORICAL;
        }
        throw new ValidationException("column " + column + " of type " + type + " cannot be a feature"
                + " (strings, integers, booleans, floating-point, decimals and arrays of those can); cast it, or use a 'mapping'");
    }
}
