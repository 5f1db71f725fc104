package io.streamtrain.bundle;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.streamtrain.ingest.format.FeatureHashing;
import io.streamtrain.ingest.format.LineFormat;
import io.streamtrain.ingest.format.ParseOptions;
import io.streamtrain.ingest.format.ParseResult;
import io.streamtrain.ingest.mapping.FeatureMapping;
import io.streamtrain.schema.Example;
import io.streamtrain.schema.ExampleRows;
import io.streamtrain.schema.Feature;
import io.streamtrain.serve.ScoreRequests;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The model card carries the ingest feature mapping of csv, jsonl and avazu, so a served raw row
 * becomes the features ingest made of the same row.
 */
class ModelCardMappingTest {
    private static final String MAPPING = "{\"label\": \"y\", \"columns\": [\"y\", \"city\", \"n\"], \"header\": false,"
            + " \"hash_bits\": 16, \"features\": [{\"column\": \"city\", \"field\": 0},"
            + " {\"column\": \"n\", \"field\": 1, \"type\": \"bucketized\", \"boundaries\": [10, 100]}]}";

    private static ModelCard.FeatureMapping roundTrip(ModelCard.FeatureMapping m) throws Exception {
        return ModelCard.JSON.readValue(ModelCard.JSON.writeValueAsBytes(m), ModelCard.FeatureMapping.class);
    }

    @Test
    void aServedCsvRowGetsTheFeaturesIngestGaveIt() throws Exception {
        FeatureMapping mapping = FeatureMapping.fromJson(MAPPING, "cities");
        ModelCard.FeatureMapping card = roundTrip(ModelCard.FeatureMapping.of("csv", mapping));

        String row = "1,paris,42";
        Example ingested = ((ParseResult.Ok) LineFormat.CSV.parser(ParseOptions.defaults("f"), mapping).parse(row, 1)).example();
        long paris = FeatureHashing.hash64(0, "paris") & 0xffff;
        assertEquals(List.of(new Feature(0, paris, 1f), new Feature(1, 1L, 1f)), ingested.getFeatures()); // 10 <= 42 < 100

        List<ExampleRows> served = new ScoreRequests(card, 10, 100).parse(
                ("{\"line\": \"" + row + "\"}").getBytes(StandardCharsets.UTF_8));
        ExampleRows expected = ExampleRows.of(ingested.getFeatures());
        assertArrayEquals(expected.keys(), served.get(0).keys());
        assertArrayEquals(expected.values(), served.get(0).values());
    }

    @Test
    void cardsOfUnmappedFormatsAndOlderCardsHaveNoDefinition() throws Exception {
        ModelCard.FeatureMapping libffm = roundTrip(ModelCard.FeatureMapping.of("libffm", 24));
        assertNull(libffm.definition());
        String older = "{\"inputFormat\": \"libffm\", \"hashBits\": 24, \"rowKey\": \"k\", \"hash\": \"h\"}";
        ModelCard.FeatureMapping read = ModelCard.JSON.readValue(older, ModelCard.FeatureMapping.class);
        assertNull(read.definition());
        assertEquals(LineFormat.LIBFFM, read.parser(ParseOptions.defaults("r")).format());
        ModelCard.FeatureMapping avazu = roundTrip(ModelCard.FeatureMapping.of("avazu", FeatureMapping.builtIn("avazu")));
        assertEquals(FeatureMapping.builtIn("avazu").definition(), avazu.definition().toString());
    }
}
