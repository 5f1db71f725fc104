package io.streamtrain.schema;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import org.apache.avro.Schema;
import org.apache.avro.SchemaCompatibility;
import org.apache.avro.SchemaCompatibility.SchemaCompatibilityType;
import org.apache.avro.specific.SpecificData;
import org.junit.jupiter.api.Test;

/**
 * The evolution rules of schemas/README.md, checked with Avro's own {@link SchemaCompatibility}
 * against the schemas as released (snapshots under {@code src/test/resources/released/}):
 * current code reads every released writer's bytes (backward), and released code reads current
 * bytes (forward), so producers and consumers can be upgraded in any order.
 */
class SchemaEvolutionTest {
    /** Every release whose schemas are snapshotted; add the new one to the list when releasing. */
    private static final List<String> RELEASES = List.of("0.1.0");
    private static final List<String> RELEASED_SCHEMAS = List.of("Example", "DeadLetter", "GradientPush", "TrainingMetrics");

    @Test
    void currentSchemasReadEveryReleasedSchemasBytes() throws IOException {
        for (String release : RELEASES) {
            for (String name : RELEASED_SCHEMAS) {
                Schema released = released(release, name);
                SchemaCompatibility.SchemaPairCompatibility result =
                        SchemaCompatibility.checkReaderWriterCompatibility(current(name), released);
                assertEquals(SchemaCompatibilityType.COMPATIBLE, result.getType(),
                        name + " of " + release + " → current: " + result.getDescription());
            }
        }
    }

    @Test
    void releasedSchemasReadCurrentBytes() throws IOException {
        for (String release : RELEASES) {
            for (String name : RELEASED_SCHEMAS) {
                SchemaCompatibility.SchemaPairCompatibility result =
                        SchemaCompatibility.checkReaderWriterCompatibility(released(release, name), current(name));
                assertEquals(SchemaCompatibilityType.COMPATIBLE, result.getType(),
                        "current " + name + " → " + release + " reader: " + result.getDescription());
            }
        }
    }

    /** The check is not vacuous: a field added without a default is caught. */
    @Test
    void aFieldWithoutDefaultIsReportedIncompatible() throws IOException {
        Schema released = released("0.1.0", "Example");
        String json = released.toString().replace("{\"name\":\"id\"",
                "{\"name\":\"weight\",\"type\":\"float\"},{\"name\":\"id\"");
        Schema broken = new Schema.Parser().parse(json);
        assertNotNull(broken.getField("weight"));
        assertFalse(SchemaCompatibility.checkReaderWriterCompatibility(broken, released).getType()
                == SchemaCompatibilityType.COMPATIBLE);
    }

    /** The joiner's inputs, new in this release, also follow the rules: optional parts have defaults. */
    @Test
    void joinerInputsHaveDefaultsOnOptionalFields() {
        assertEquals("{}", String.valueOf(Impression.getClassSchema().getField("context").defaultVal()));
        assertNotNull(Click.getClassSchema().getField("impression_id"));
    }

    private static Schema current(String name) {
        try {
            return SpecificData.get().getSchema(Class.forName("io.streamtrain.schema." + name));
        } catch (ClassNotFoundException e) {
            throw new AssertionError("released schema " + name + " was removed (rule 2)", e);
        }
    }

    private static Schema released(String release, String name) throws IOException {
        String path = "/released/" + release + "/" + name + ".avsc";
        try (InputStream in = SchemaEvolutionTest.class.getResourceAsStream(path)) {
            assertNotNull(in, path);
            return new Schema.Parser().parse(in);
        }
    }
}
