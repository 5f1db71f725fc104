package io.streamtrain.train;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtrain.export.LoadedModel;
import io.streamtrain.ingest.IngestSettings;
import io.streamtrain.ingest.IngestStats;
import io.streamtrain.ingest.Ingestor;
import io.streamtrain.ingest.format.CriteoParser;
import io.streamtrain.ingest.format.ParseOptions;
import io.streamtrain.ingest.format.ParseResult;
import io.streamtrain.ingest.synthetic.Auc;
import io.streamtrain.model.Model;
import io.streamtrain.model.ModelKind;
import io.streamtrain.schema.Example;
import io.streamtrain.schema.ExampleRows;
import io.streamtrain.testing.KafkaFixture;
import io.streamtrain.train.run.TrainingRun;
import io.streamtrain.train.run.TrainingSummary;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import io.streamtrain.testdata.SharedData;
import org.apache.flink.configuration.Configuration;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;

/**
 * Default settings on a real click log: the first 1,600 rows of the Criteo sample in the shared
 * {@code shared/data} directory beside the project go through {@code ingest --format criteo}'s path into Kafka and are
 * trained by the Flink job with nothing but the model chosen; the last 399 rows are held out. FM
 * and LR must each come within 0.03 AUC and 0.02 logloss of a batch logistic regression fitted to
 * convergence on the same hashed features, with its L2 strength chosen by cross-validation on the
 * training rows. (The Avazu sample's 100 rows are too few to tell models apart: ±0.1 AUC noise.)
 */
@Tag("alone") // measures learning or timing that a second test JVM on two cores would disturb
class RealLogsLearningIT {
    private static final Path CRITEO = SharedData.file(SharedData.CRITEO_SAMPLE);
    private static final int TRAIN_ROWS = 1600;
    private final KafkaFixture kafka = KafkaFixture.shared();

    @Test
    void defaultFmAndLrMatchBatchLogisticRegressionOnCriteo(@TempDir Path dir) throws Exception {
        Assumptions.assumeTrue(Files.isRegularFile(CRITEO), "the Criteo sample is not at " + CRITEO.toAbsolutePath());
        List<String> lines = Files.readAllLines(CRITEO);
        Path trainFile = dir.resolve("criteo-train.tsv");
        Files.write(trainFile, lines.subList(0, TRAIN_ROWS));
        List<Example> train = parse(lines.subList(0, TRAIN_ROWS));
        List<Example> heldOut = parse(lines.subList(TRAIN_ROWS, lines.size()));

        String topic = "criteo-" + System.nanoTime();
        IngestStats ingested = Ingestor.ingestFile(IngestSettings.of(kafka.connection(), topic), trainFile.toString(),
                new CriteoParser(ParseOptions.defaults(trainFile.getFileName().toString())));
        assertEquals(TRAIN_ROWS, ingested.records(), "every training row ingested");

        Scores peer = Scores.of(BatchLogisticRegression.crossValidated(train).predictAll(heldOut), heldOut);
        Scores fm = Scores.of(trainWithDefaults(topic, ModelKind.FM, dir.resolve("fm")), heldOut);
        Scores lr = Scores.of(trainWithDefaults(topic, ModelKind.LR, dir.resolve("lr")), heldOut);
        double base = heldOut.stream().mapToDouble(Example::getLabel).average().orElseThrow();
        System.err.printf(Locale.ROOT, "held-out %d rows, positive rate %.3f, constant-predictor logloss %.4f%n"
                + "batch LR %s%njob fm   %s%njob lr   %s%n", heldOut.size(), base, constantLogloss(base, heldOut), peer, fm, lr);
        for (var job : List.of(Map.entry("fm", fm), Map.entry("lr", lr))) {
            assertTrue(job.getValue().auc() > peer.auc() - 0.03, job.getKey() + " AUC within 0.03 of batch LR: " + job.getValue() + " vs " + peer);
            assertTrue(job.getValue().logloss() < peer.logloss() + 0.02, job.getKey() + " logloss within 0.02 of batch LR: " + job.getValue() + " vs " + peer);
        }
    }

    /** Trains {@code model} on the topic with every other setting at its default, and scores {@code heldOut}. */
    private LoadedModel trainWithDefaults(String topic, ModelKind model, Path checkpoints) throws Exception {
        Configuration conf = new Configuration();
        conf.set(TrainingOptions.BOOTSTRAP, kafka.bootstrapServers());
        conf.set(TrainingOptions.TOPIC, topic);
        conf.set(TrainingOptions.NAME, topic + "-" + model.name().toLowerCase(Locale.ROOT));
        conf.set(TrainingOptions.MODEL, model);
        // parallelism 1 and 2 s checkpoints: `streamtrain train`'s defaults
        TrainingSummary summary = TrainingRun.run(new TrainingRun.Settings(conf, checkpoints, 1, Duration.ofSeconds(2),
                Duration.ofSeconds(3), false, System.err));
        System.err.println(model + ": " + summary.line());
        assertEquals(TRAIN_ROWS, summary.records(), "trained every row");
        return LoadedModel.load(checkpoints);
    }

    private static List<Example> parse(List<String> lines) {
        CriteoParser parser = new CriteoParser(ParseOptions.defaults("criteo"));
        List<Example> examples = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            ParseResult r = parser.parse(lines.get(i), i + 1);
            assertTrue(r.isOk(), "line " + (i + 1) + " parses: " + r);
            examples.add(((ParseResult.Ok) r).example());
        }
        return examples;
    }

    private static double constantLogloss(double p, List<Example> examples) {
        double[] constant = new double[examples.size()];
        Arrays.fill(constant, p);
        return Scores.logloss(constant, examples);
    }

    record Scores(double auc, double logloss, double meanPrediction) {
        static Scores of(LoadedModel model, List<Example> examples) {
            return of(examples.stream().mapToDouble(model::predict).toArray(), examples);
        }

        static Scores of(double[] p, List<Example> examples) {
            float[] labels = new float[examples.size()];
            for (int i = 0; i < labels.length; i++) {
                labels[i] = examples.get(i).getLabel();
            }
            return new Scores(Auc.of(p, labels), logloss(p, examples), Arrays.stream(p).average().orElse(Double.NaN));
        }

        static double logloss(double[] p, List<Example> examples) {
            double sum = 0;
            for (int i = 0; i < p.length; i++) {
                double q = Math.min(Math.max(p[i], 1e-15), 1 - 1e-15);
                sum += examples.get(i).getLabel() == 1f ? -Math.log(q) : -Math.log(1 - q);
            }
            return sum / p.length;
        }

        @Override
        public String toString() {
            return String.format(Locale.ROOT, "AUC %.4f logloss %.4f mean prediction %.3f", auc, logloss, meanPrediction);
        }
    }

    /**
     * The peer: logistic regression on the same hashed features, mean logloss + λ/2·|w|² (bias not
     * penalised), minimised over all rows at once by Nesterov-accelerated gradient descent until the
     * gradient vanishes; λ is the one of a grid with the best 4-fold cross-validated logloss.
     */
    static final class BatchLogisticRegression {
        private static final double[] LAMBDAS = {1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 3e-2};
        private final Map<Long, Integer> index = new HashMap<>();
        private double[] w;

        static BatchLogisticRegression crossValidated(List<Example> train) {
            double best = Double.POSITIVE_INFINITY;
            double bestLambda = Double.NaN;
            int folds = 4;
            for (double lambda : LAMBDAS) {
                double loss = 0;
                for (int k = 0; k < folds; k++) {
                    List<Example> fit = new ArrayList<>();
                    List<Example> check = new ArrayList<>();
                    for (int i = 0; i < train.size(); i++) {
                        (i % folds == k ? check : fit).add(train.get(i));
                    }
                    loss += Scores.logloss(fit(fit, lambda).predictAll(check), check);
                }
                if (loss < best) {
                    best = loss;
                    bestLambda = lambda;
                }
            }
            System.err.printf(Locale.ROOT, "batch LR: lambda %.0e by 4-fold cross-validation (logloss %.4f)%n", bestLambda, best / folds);
            return fit(train, bestLambda);
        }

        static BatchLogisticRegression fit(List<Example> rows, double lambda) {
            BatchLogisticRegression m = new BatchLogisticRegression();
            int[][] x = new int[rows.size()][];
            for (int i = 0; i < x.length; i++) {
                long[] keys = ExampleRows.of(rows.get(i).getFeatures()).keys();
                x[i] = new int[keys.length];
                for (int j = 0; j < keys.length; j++) {
                    x[i][j] = m.index.computeIfAbsent(keys[j], k -> m.index.size());
                }
            }
            int d = m.index.size(); // w[d] is the bias
            double[] w = new double[d + 1];
            double[] velocity = new double[d + 1];
            double[] ahead = new double[d + 1];
            double[] grad = new double[d + 1];
            int maxFeatures = Arrays.stream(x).mapToInt(r -> r.length).max().orElse(0);
            double step = 1 / (0.25 * (maxFeatures + 1) + lambda); // 1 / the gradient's Lipschitz bound
            for (int it = 0; it < 20_000; it++) {
                for (int j = 0; j <= d; j++) {
                    ahead[j] = w[j] + 0.9 * velocity[j];
                }
                Arrays.fill(grad, 0);
                for (int i = 0; i < x.length; i++) {
                    double z = ahead[d];
                    for (int j : x[i]) {
                        z += ahead[j];
                    }
                    double r = (Model.sigmoid(z) - rows.get(i).getLabel()) / x.length;
                    grad[d] += r;
                    for (int j : x[i]) {
                        grad[j] += r;
                    }
                }
                double norm = 0;
                for (int j = 0; j < d; j++) {
                    grad[j] += lambda * ahead[j];
                }
                for (int j = 0; j <= d; j++) {
                    norm += grad[j] * grad[j];
                    velocity[j] = 0.9 * velocity[j] - step * grad[j];
                    w[j] += velocity[j];
                }
                if (norm < 1e-14) {
                    break;
                }
            }
            m.w = w;
            return m;
        }

        double[] predictAll(List<Example> examples) {
            double[] p = new double[examples.size()];
            for (int i = 0; i < p.length; i++) {
                double z = w[w.length - 1];
                for (long key : ExampleRows.of(examples.get(i).getFeatures()).keys()) {
                    Integer j = index.get(key);
                    if (j != null) {
                        z += w[j];
                    }
                }
                p[i] = Model.sigmoid(z);
            }
            return p;
        }
    }
}
