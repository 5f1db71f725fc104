package io.streamtrain.sql;

import io.streamtrain.ingest.mapping.RawRecord;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;

/**
 * A table row's values by column name, as the plain Java values a {@code FeatureMapping} reads
 * (String, Number, Boolean, List; timestamps as epoch millis).
 */
public final class RowValues implements Serializable {
    private static final long serialVersionUID = 1L;

    private final Map<String, Integer> positions = new HashMap<>();
    private final RowData.FieldGetter[] getters;
    private final ArrayData.ElementGetter[] elementGetters;

    public RowValues(RowType type) {
        List<LogicalType> types = type.getChildren();
        getters = new RowData.FieldGetter[types.size()];
        elementGetters = new ArrayData.ElementGetter[types.size()];
        for (int i = 0; i < types.size(); i++) {
            positions.put(type.getFieldNames().get(i), i);
            getters[i] = RowData.createFieldGetter(types.get(i), i);
            if (types.get(i) instanceof ArrayType array) {
                elementGetters[i] = ArrayData.createElementGetter(array.getElementType());
            }
        }
    }

    public RawRecord of(RowData row) {
        return column -> {
            Integer i = positions.get(column);
            return i == null ? null : plain(getters[i].getFieldOrNull(row), elementGetters[i]);
        };
    }

    /** A SQL value as the Java value the mapping reads. */
    static Object plain(Object value, ArrayData.ElementGetter elements) {
        if (value instanceof StringData s) {
            return s.toString();
        }
        if (value instanceof DecimalData d) {
            return d.toBigDecimal();
        }
        if (value instanceof TimestampData t) {
            return t.getMillisecond();
        }
        if (value instanceof ArrayData array) {
            List<Object> list = new ArrayList<>(array.size());
            for (int i = 0; i < array.size(); i++) {
                list.add(plain(elements.getElementOrNull(array, i), null));
            }
            return list;
        }
        return value;
    }
}
