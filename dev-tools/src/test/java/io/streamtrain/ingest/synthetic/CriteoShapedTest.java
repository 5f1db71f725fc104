package io.streamtrain.ingest.synthetic;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtrain.ingest.format.CriteoParser;
import io.streamtrain.ingest.format.ParseOptions;
import io.streamtrain.ingest.format.ParseResult;
import io.streamtrain.schema.Example;
import java.io.BufferedReader;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class CriteoShapedTest {
    @Test
    void linesParseAsCriteoWithItsShape() throws Exception {
        CriteoShaped generator = new CriteoShaped(3);
        CriteoParser parser = new CriteoParser(ParseOptions.defaults("t"));
        int n = 20_000;
        double[] planted = new double[n];
        float[] labels = new float[n];
        long features = 0;
        Map<String, Integer> c3 = new HashMap<>();
        try (BufferedReader in = new BufferedReader(generator.lines(n, 7))) {
            for (int i = 0; i < n; i++) {
                String line = in.readLine();
                String[] columns = line.split("\t", -1);
                assertEquals(CriteoParser.COLUMNS, columns.length, line);
                c3.merge(columns[1 + CriteoParser.INTEGER_COLUMNS + 2], 1, Integer::sum);
                ParseResult r = parser.parse(line, i + 1);
                assertTrue(r.isOk(), line);
                Example e = ((ParseResult.Ok) r).example();
                features += e.getFeatures().size();
                planted[i] = generator.predict(e);
                labels[i] = e.getLabel();
            }
            assertEquals(null, in.readLine(), "exactly n lines");
        }
        double rate = 0;
        for (float l : labels) {
            rate += l;
        }
        rate /= n;
        assertTrue(Math.abs(rate - CriteoShaped.CLICK_RATE) < 0.02, "click rate near 0.2: " + rate);
        double perExample = (double) features / n;
        assertTrue(perExample > 30 && perExample < 38, "missing values: fewer than 39 features per line: " + perExample);
        long singletons = c3.values().stream().filter(c -> c == 1).count();
        int top = c3.values().stream().mapToInt(Integer::intValue).max().orElse(0);
        assertTrue(singletons > 1000 && top > n / 20, "heavy tail: a few values are common, thousands seen once: top " + top + ", singletons " + singletons);
        double auc = Auc.of(planted, labels);
        assertTrue(auc > 0.72 && auc < 0.85, "the planted model ranks like a good CTR model: " + auc);
    }

    @Test
    void sameSeedsSameLines() throws Exception {
        try (BufferedReader a = new BufferedReader(new CriteoShaped(5).lines(50, 1));
                BufferedReader b = new BufferedReader(new CriteoShaped(5).lines(50, 1))) {
            for (int i = 0; i < 50; i++) {
                assertEquals(a.readLine(), b.readLine());
            }
        }
        assertTrue(!new CriteoShaped(5).nextLine(new Random(1)).equals(new CriteoShaped(6).nextLine(new Random(1))),
                "another seed plants another model and other values");
    }
}
