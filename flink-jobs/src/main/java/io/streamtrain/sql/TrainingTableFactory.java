package io.streamtrain.sql;

import io.streamtrain.ingest.mapping.FeatureMapping;
import io.streamtrain.options.OptionRule;
import io.streamtrain.train.TrainingOptions;
import java.util.Map;
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
        Configuration training = TrainingTableOptions.trainingConfiguration(context.getCatalogTable().getOptions(),
                context.getConfiguration().getOptional(TrainingOptions.KAFKA_PROPERTIES).orElse(Map.of()), table);
        RowType columns = (RowType) context.getPhysicalRowDataType().getLogicalType();
        FeatureMapping mapping = ColumnMapping.forSink(helper.getOptions().get(TrainingTableOptions.MAPPING), columns, table);
        for (OptionRule<?> rule : TrainingTableOptions.RULES) {
            rule.problem(helper.getOptions()).ifPresent(problem -> {
                throw new ValidationException("streamtrain table " + table + ": option '" + rule.option().key() + "' = '"
                        + helper.getOptions().get(rule.option()) + "': " + problem);
            });
        }
        int stagingPartitions = helper.getOptions().get(TrainingTableOptions.STAGING_PARTITIONS);
        return new TrainingTableSink(table, training, columns, mapping, stagingPartitions);
    }
}
