package io.streamtrain.sql;

import io.streamtrain.ingest.mapping.FeatureMapping;
import io.streamtrain.model.ModelKind;
import io.streamtrain.ps.optimizer.OptimizerConfig;
import io.streamtrain.train.TrainingOptions;
import java.util.Set;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.factories.DynamicTableSinkFactory;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.types.logical.RowType;

/**
 * {@code 'connector' = 'streamtrain'}: a table whose INSERTs train a model exactly once. Options
 * are the training options under short names ({@link TrainingTableOptions}); every one is checked
 * when the statement is planned, so a typo or a bad value fails there with a clear message.
 */
public final class TrainingTableFactory implements DynamicTableSinkFactory {
    public static final String IDENTIFIER = "streamtrain";

    @Override
    public String factoryIdentifier() {
        return IDENTIFIER;
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Set.of();
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        return TrainingTableOptions.tableOptions();
    }

    @Override
    public DynamicTableSink createDynamicTableSink(Context context) {
        FactoryUtil.TableFactoryHelper helper = FactoryUtil.createTableFactoryHelper(this, context);
        helper.validateExcept(TrainingTableOptions.KAFKA_PROPERTIES_PREFIX); // unknown keys, with the list of supported ones
        String table = context.getObjectIdentifier().getObjectName();
        Configuration training = TrainingTableOptions.trainingConfiguration(context.getCatalogTable().getOptions(), table);
        checkModel(training, table);
        RowType columns = (RowType) context.getPhysicalRowDataType().getLogicalType();
        FeatureMapping mapping = ColumnMapping.forSink(helper.getOptions().get(TrainingTableOptions.MAPPING), columns, table);
        int stagingPartitions = helper.getOptions().get(TrainingTableOptions.STAGING_PARTITIONS);
        if (stagingPartitions < 1) {
            throw new ValidationException("streamtrain table " + table + ": 'staging-partitions' must be at least 1, got " + stagingPartitions);
        }
        return new TrainingTableSink(table, training, columns, mapping, stagingPartitions);
    }

    /** The model and optimizer names and their settings, checked the way the job will read them. */
    private static void checkModel(Configuration training, String table) {
        try {
            ModelKind.parse(training.get(TrainingOptions.MODEL));
            OptimizerConfig.from(training).create();
        } catch (IllegalArgumentException e) {
            throw new ValidationException("streamtrain table " + table + ": " + e.getMessage(), e);
        }
    }
}
