package io.streamtrain.k8s;

import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.DeserializationConfig;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.deser.BeanDeserializerBuilder;
import com.fasterxml.jackson.databind.deser.BeanDeserializerModifier;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.module.SimpleModule;

/**
 * Binds a manifest to its API class so that a misspelt field fails. FAIL_ON_UNKNOWN_PROPERTIES
 * alone is not enough: fabric8 and Strimzi models keep unknown fields in an "additionalProperties"
 * any-setter, and the operator's spec classes say {@code @JsonIgnoreProperties(ignoreUnknown = true)}.
 * The modifier takes both away from every bean, so any field the class does not declare fails.
 */
final class StrictBinder {
    private static final ObjectMapper MAPPER = JsonMapper.builder()
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
            .enable(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY)
            .addModule(new SimpleModule("reject-unknown-fields").setDeserializerModifier(new RejectUnknownFields()))
            .build();

    private StrictBinder() {}

    static <T> T bind(JsonNode node, Class<T> type) {
        try {
            return MAPPER.treeToValue(node, type);
        } catch (Exception e) {
            throw new IllegalArgumentException("does not bind to " + type.getSimpleName() + ": " + e.getMessage(), e);
        }
    }

    private static final class RejectUnknownFields extends BeanDeserializerModifier {
        @Override
        public BeanDeserializerBuilder updateBuilder(
                DeserializationConfig config, BeanDescription description, BeanDeserializerBuilder builder) {
            builder.setAnySetter(null);
            builder.setIgnoreUnknownProperties(false);
            return builder;
        }
    }
}
