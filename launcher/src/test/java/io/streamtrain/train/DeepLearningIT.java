package io.streamtrain.train;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.streamtrain.ingest.synthetic.Auc;
import io.streamtrain.model.ModelKind;
import io.streamtrain.ps.PsOptions;
import io.streamtrain.schema.AvroCodec;
import io.streamtrain.schema.Example;
import io.streamtrain.testing.KafkaFixture;
import io.streamtrain.train.reference.SequentialTrainer;
import io.streamtrain.train.run.TrainingRun;
import io.streamtrain.train.run.TrainingSummary;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.function.ToDoubleFunction;
import org.apache.flink.configuration.Configuration;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;

/**
 * Invariant 2 for the deep models, on data from a teacher with a third-order term no FM can
 * express ({@link PlantedThirdOrder}): trained sequentially with the job's defaults, deepfm, wdl
 * and dcn come close to the teacher's held-out AUC and clearly beat fm; the distributed job at
 * parallelism 2 learns the same (its progressive-validation AUC on the last window, examples it had
 * not trained on) to within a bounded gap of the sequential trainer, and its deep models beat its fm.
 */
@Tag("alone") // measures learning or timing that a second test JVM on two cores would disturb
class DeepLearningIT {
    private static final int EXAMPLES = 150_000;
    private static final int HELD_OUT = 20_000;
    private final KafkaFixture kafka = KafkaFixture.shared();

    @Test
    void deepModelsLearnWhatAnFmCannot(@TempDir Path dir) throws Exception {
        PlantedThirdOrder teacher = new PlantedThirdOrder(3, 30, 0.7, 2.0);
        Random random = new Random(1);
        List<Example> data = new ArrayList<>();
        for (int i = 0; i < EXAMPLES; i++) {
            data.add(teacher.next(random));
        }
        List<Example> heldOut = new ArrayList<>();
        for (int i = 0; i < HELD_OUT; i++) {
            heldOut.add(teacher.next(random));
        }
        double teacherAuc = auc(heldOut, teacher::predict);

        Map<ModelKind, Double> sequential = new EnumMap<>(ModelKind.class);
        for (ModelKind kind : List.of(ModelKind.FM, ModelKind.DEEPFM, ModelKind.WDL, ModelKind.DCN)) {
            Configuration conf = job(kind, "unused");
            SequentialTrainer trainer = SequentialTrainer.of(conf);
            trainer.train(data, conf.get(TrainingOptions.BATCH_SIZE));
            sequential.put(kind, auc(heldOut, trainer::predict));
        }
        System.err.printf(Locale.ROOT, "held-out AUC: teacher %.4f, sequential %s%n", teacherAuc, sequential);
        for (ModelKind deep : List.of(ModelKind.DEEPFM, ModelKind.WDL, ModelKind.DCN)) {
            assertTrue(teacherAuc - sequential.get(deep) < 0.03, deep + " reaches the teacher: " + sequential + " vs " + teacherAuc);
            assertTrue(sequential.get(deep) - sequential.get(ModelKind.FM) > 0.06, deep + " clearly beats fm: " + sequential);
        }

        String topic = "deep-learning-" + System.nanoTime();
        kafka.createTopic(topic, 4);
        AvroCodec<Example> codec = AvroCodec.of(Example.class);
        try (KafkaProducer<byte[], byte[]> producer = kafka.producer()) {
            for (Example e : data) {
                producer.send(new ProducerRecord<>(topic, codec.encode(e)));
            }
            producer.flush();
        }
        Map<ModelKind, TrainingSummary> jobs = new EnumMap<>(ModelKind.class);
        for (ModelKind kind : List.of(ModelKind.FM, ModelKind.DEEPFM, ModelKind.WDL, ModelKind.DCN)) {
            Configuration conf = job(kind, topic);
            TrainingSummary summary = TrainingRun.run(new TrainingRun.Settings(conf, dir.resolve(kind.toString()), 2,
                    Duration.ofSeconds(1), Duration.ofSeconds(3), false, System.err));
            System.err.println(kind + ": " + summary.line());
            jobs.put(kind, summary);
        }
        for (ModelKind deep : List.of(ModelKind.DEEPFM, ModelKind.WDL, ModelKind.DCN)) {
            double job = jobs.get(deep).windowAuc();
            assertTrue(sequential.get(deep) - job < 0.03, "the job's " + deep + " learns what the sequential trainer does: "
                    + job + " vs " + sequential.get(deep));
            assertTrue(job - jobs.get(ModelKind.FM).windowAuc() > 0.05, "the job's " + deep + " clearly beats its fm: "
                    + job + " vs " + jobs.get(ModelKind.FM).windowAuc());
        }
    }

    /** The job's configuration: defaults but for a small tower over the teacher's fields. */
    private Configuration job(ModelKind kind, String topic) {
        Configuration conf = new Configuration();
        conf.set(TrainingOptions.BOOTSTRAP, kafka.bootstrapServers());
        conf.set(TrainingOptions.TOPIC, topic);
        conf.set(TrainingOptions.NAME, topic + "-" + kind);
        conf.set(TrainingOptions.MODEL, kind);
        conf.set(PsOptions.DIM, 4);
        conf.set(TrainingOptions.FIELDS, PlantedThirdOrder.FIELDS);
        conf.set(TrainingOptions.HIDDEN, List.of(32, 16));
        conf.set(PsOptions.DENSE_LEARNING_RATE, 0.003);
        return conf;
    }

    private static double auc(List<Example> examples, ToDoubleFunction<Example> model) {
        double[] scores = new double[examples.size()];
        float[] labels = new float[examples.size()];
        for (int i = 0; i < scores.length; i++) {
            scores[i] = model.applyAsDouble(examples.get(i));
            labels[i] = examples.get(i).getLabel();
        }
        return Auc.of(scores, labels);
    }
}
