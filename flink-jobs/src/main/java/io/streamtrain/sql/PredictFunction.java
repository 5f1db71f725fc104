package io.streamtrain.sql;

import io.streamtrain.bundle.Bundle;
import io.streamtrain.export.LoadedModel;
import io.streamtrain.ingest.mapping.FeatureMapping;
import io.streamtrain.ingest.mapping.MappingException;
import io.streamtrain.schema.ExampleRows;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.table.annotation.DataTypeHint;
import org.apache.flink.table.annotation.InputGroup;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.functions.FunctionContext;
import org.apache.flink.table.functions.ScalarFunction;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.BigIntType;
import org.apache.flink.table.types.logical.BooleanType;
import org.apache.flink.table.types.logical.DoubleType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.VarCharType;

/**
 * {@code STREAMTRAIN_PREDICT(bundle, feature, …)}: P(label = 1) of a row, scored with an exported
 * bundle and the trainer's own math ({@link LoadedModel}). The features are featurised the way a
 * streamtrain table's default mapping featurises its columns: argument i is field i, strings,
 * integers and booleans categorical, floating-point and decimals numeric, arrays multi-valued. So
 * a model trained by {@code INSERT INTO m SELECT label, a, b, c FROM t} scores
 * {@code STREAMTRAIN_PREDICT('/bundles/m', a, b, c)}. Unknown features score as zero vectors; a
 * non-finite number gives NULL.
 */
public final class PredictFunction extends ScalarFunction {
    public static final String NAME = "STREAMTRAIN_PREDICT";
    private static final long serialVersionUID = 1L;

    private transient Map<String, LoadedModel> models;
    private transient List<Bundle> open;
    private transient Map<String, FeatureMapping> mappings;

    /** Makes the function available to every statement of the environment. */
    public static void register(TableEnvironment tables) {
        tables.createTemporarySystemFunction(NAME, PredictFunction.class);
    }

    @Override
    public void open(FunctionContext context) {
        models = new HashMap<>();
        open = new ArrayList<>();
        mappings = new HashMap<>();
    }

    public Double eval(String bundle, @DataTypeHint(inputGroup = InputGroup.ANY) Object... features) {
        if (bundle == null) {
            return null;
        }
        Object[] values = Arrays.stream(features).map(PredictFunction::plain).toArray();
        FeatureMapping mapping = mappingFor(values);
        try {
            ExampleRows rows = ExampleRows.of(mapping.features(column -> values[Integer.parseInt(column)]));
            return model(bundle).predict(rows.keys(), rows.values());
        } catch (MappingException e) {
            return null;
        }
    }

    private LoadedModel model(String path) {
        if (models == null) {
            open(null);
        }
        return models.computeIfAbsent(path, p -> {
            try {
                Bundle b = Bundle.open(Path.of(p));
                open.add(b);
                return LoadedModel.of(b);
            } catch (IOException e) {
                throw new UncheckedIOException(NAME + ": cannot open bundle " + p + ": " + e.getMessage(), e);
            }
        });
    }

    /** The default column mapping for arguments of these types (a NULL argument yields no feature, whatever its kind). */
    private FeatureMapping mappingFor(Object[] values) {
        List<LogicalType> types = new ArrayList<>(values.length);
        StringBuilder signature = new StringBuilder();
        for (Object v : values) {
            LogicalType t = v instanceof List<?> ? new ArrayType(new VarCharType(VarCharType.MAX_LENGTH))
                    : v instanceof Double || v instanceof Float || v instanceof BigDecimal ? new DoubleType()
                    : v instanceof Boolean ? new BooleanType()
                    : v instanceof Number ? new BigIntType()
                    : new VarCharType(VarCharType.MAX_LENGTH);
            types.add(t);
            signature.append(t.getTypeRoot().ordinal()).append(',');
        }
        return mappings.computeIfAbsent(signature.toString(), s -> {
            List<String> columns = new ArrayList<>();
            for (int i = 0; i < values.length; i++) {
                columns.add(Integer.toString(i));
            }
            return ColumnMapping.byPosition(NAME, null, columns, types);
        });
    }

    private static Object plain(Object v) {
        return v instanceof Object[] array ? Arrays.asList(array) : v;
    }

    @Override
    public void close() {
        if (open != null) {
            open.forEach(Bundle::close);
        }
    }
}
