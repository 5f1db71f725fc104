package io.streamtrain.ps;

import static io.streamtrain.options.OptionRule.above;
import static io.streamtrain.options.OptionRule.atLeast;
import static io.streamtrain.options.OptionRule.atLeastBelow;

import io.streamtrain.options.OptionRule;
import io.streamtrain.ps.optimizer.DenseOptimizerKind;
import io.streamtrain.ps.optimizer.OptimizerKind;
import java.time.Duration;
import java.util.List;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;

/** Every knob of the parameter server: the embedding table, its optimizer, admission and expiry. */
public final class PsOptions {
    private PsOptions() {}

    public static final ConfigOption<OptimizerKind> OPTIMIZER =
            ConfigOptions.key("streamtrain.ps.optimizer")
                    .enumType(OptimizerKind.class)
                    .defaultValue(OptimizerKind.ADAGRAD)
                    .withDescription("Row optimizer.");

    public static final ConfigOption<DenseOptimizerKind> DENSE_OPTIMIZER =
            ConfigOptions.key("streamtrain.ps.dense-optimizer")
                    .enumType(DenseOptimizerKind.class)
                    .defaultValue(DenseOptimizerKind.ADAM)
                    .withDescription("Deep models: the optimizer of the dense tower's parameters (with the row"
                            + " optimizer count, they count examples like the bias row instead).");

    public static final ConfigOption<Double> DENSE_LEARNING_RATE =
            ConfigOptions.key("streamtrain.ps.dense-learning-rate")
                    .doubleType()
                    .defaultValue(0.001)
                    .withDescription("Deep models: the dense optimizer's step size. The gradient is the batch's sum.");

    public static final ConfigOption<Boolean> DENSE_STALENESS_AWARE =
            ConfigOptions.key("streamtrain.ps.dense-staleness-aware")
                    .booleanType()
                    .defaultValue(true)
                    .withDescription("Deep models: a batch whose dense parameters took more other batches' updates"
                            + " between its pull and its push (tau) than their recent batches did on average (tau_usual)"
                            + " takes (1 + tau_usual) / (1 + tau) of its step (staleness-aware steps, with the dense"
                            + " learning rate set for the job's usual staleness), the optimizer's moments still taking the"
                            + " whole gradient: Adam's step does not shrink with its gradient, so without this a batch that"
                            + " waited through a checkpoint or a backlog moves the tower a whole step in a stale direction"
                            + " (docs/ARCHITECTURE.md, \"Deep models\"). false: whole steps.");

    public static final ConfigOption<Integer> DIM =
            ConfigOptions.key("streamtrain.ps.dim")
                    .intType()
                    .defaultValue(8)
                    .withDescription("Embedding dimension k of each row (0 for plain logistic regression).");

    public static final ConfigOption<Double> LEARNING_RATE =
            ConfigOptions.key("streamtrain.ps.learning-rate")
                    .doubleType()
                    .defaultValue(0.05)
                    .withDescription(
                            "Step size (alpha for FTRL). Adagrad moves every touched coordinate by up to about"
                                    + " this much per batch, so a logit moves by the number of fields times it, and an"
                                    + " FM's pairwise term by its square: 0.1 diverged an FM on Criteo's 39 fields;"
                                    + " see docs/benchmarks.md.");

    public static final ConfigOption<Double> L2 =
            ConfigOptions.key("streamtrain.ps.l2")
                    .doubleType()
                    .defaultValue(1e-5)
                    .withDescription("L2 regularisation applied at each row update.");

    public static final ConfigOption<Double> L1 =
            ConfigOptions.key("streamtrain.ps.ftrl.l1")
                    .doubleType()
                    .defaultValue(0.0)
                    .withDescription("FTRL L1 strength on the linear weight.");

    public static final ConfigOption<Double> FTRL_BETA =
            ConfigOptions.key("streamtrain.ps.ftrl.beta")
                    .doubleType()
                    .defaultValue(1.0)
                    .withDescription("FTRL beta (smoothing of the per-coordinate rate).");

    public static final ConfigOption<Double> ADAGRAD_INITIAL_ACCUMULATOR =
            ConfigOptions.key("streamtrain.ps.adagrad.initial-accumulator")
                    .doubleType()
                    .defaultValue(10.0)
                    .withDescription(
                            "Starting value of Adagrad's squared-gradient accumulator. While a coordinate's summed"
                                    + " squared gradients are below it, its step follows the gradient's size (as in SGD)"
                                    + " rather than its sign: a row's first batches, and rare features, do not all jump"
                                    + " by the full step at once.");

    public static final ConfigOption<Double> INIT_STDDEV =
            ConfigOptions.key("streamtrain.ps.init-stddev")
                    .doubleType()
                    .defaultValue(0.01)
                    .withDescription(
                            "Std-dev of the deterministic Gaussian initialisation of embedding entries. The initial"
                                    + " pairwise term's spread grows with the number of field pairs (741 for 39 fields).");

    public static final ConfigOption<Long> INIT_SEED =
            ConfigOptions.key("streamtrain.ps.init-seed")
                    .longType()
                    .defaultValue(17L)
                    .withDescription("Seed mixed with the row key for the lazy, deterministic row initialisation.");

    public static final ConfigOption<Integer> MIN_FREQUENCY =
            ConfigOptions.key("streamtrain.ps.min-frequency")
                    .intType()
                    .defaultValue(1)
                    .withDescription(
                            "A feature gets a row only once it has been seen this many times; until then"
                                    + " it contributes zero and only a pending counter is kept.");

    public static final ConfigOption<Duration> ROW_TTL =
            ConfigOptions.key("streamtrain.ps.row-ttl")
                    .durationType()
                    .noDefaultValue()
                    .withDescription(
                            "Expire rows not updated for this long (Flink state TTL, cleaned by the"
                                    + " RocksDB compaction filter). Unset: rows never expire.");

    public static final ConfigOption<Double> ROW_CACHE_HEAP_FRACTION =
            ConfigOptions.key("streamtrain.ps.row-cache-heap-fraction")
                    .doubleType()
                    .defaultValue(0.05)
                    .withDescription(
                            "Heap each PS subtask may fill with its row cache, as a fraction of the JVM's"
                                    + " maximum heap: rows kept in front of RocksDB (oldest out first; a row's"
                                    + " changes written back once per checkpoint), so a push finds the row its batch"
                                    + " pulled, and a row pulled again soon is not read from RocksDB again. The rows it holds follow from the row width"
                                    + " (about 232 bytes for dim 16 with Adagrad). Counted per PS subtask: a"
                                    + " TaskManager running n of them gives n times this. Ignored when"
                                    + " streamtrain.ps.row-cache-rows is set.");

    public static final ConfigOption<Integer> ROW_CACHE_ROWS =
            ConfigOptions.key("streamtrain.ps.row-cache-rows")
                    .intType()
                    .noDefaultValue()
                    .withDescription(
                            "Rows in each PS subtask's row cache, instead of sizing it by"
                                    + " streamtrain.ps.row-cache-heap-fraction. It should at least hold the rows of"
                                    + " the batches in flight (batchers x max-batches-in-flight x distinct features"
                                    + " per batch); 0 turns the cache off.");

    public static final ConfigOption<Duration> QUIET_WRITE_BACK =
            ConfigOptions.key("streamtrain.ps.quiet-write-back")
                    .durationType()
                    .defaultValue(Duration.ofMillis(200))
                    .withDescription(
                            "A changed row in the row cache that has not changed again for this long is written to"
                                    + " RocksDB, in sorted batches looked for every half of it; until then every checkpoint"
                                    + " copies it into the parameter server's operator state. Longer: fewer writes of rows"
                                    + " that change again, larger checkpoint copies (each a pause of the PS).");

    public static final ConfigOption<Duration> NOTICE_FLUSH_DELAY =
            ConfigOptions.key("streamtrain.ps.notice-flush-delay")
                    .durationType()
                    .defaultValue(Duration.ofMillis(2))
                    .withDescription(
                            "How long the PS gathers applied notices (flow control's credits) before it sends them in"
                                    + " one go. Longer: fewer, larger sends to the applied topic, but credits come back later"
                                    + " and the batchers wait longer.");

    /** What the options accept beyond their types. */
    public static final List<OptionRule<?>> RULES = List.of(
            atLeast(DIM, 0),
            above(LEARNING_RATE, 0.0),
            above(DENSE_LEARNING_RATE, 0.0),
            atLeast(L2, 0.0),
            atLeast(L1, 0.0),
            atLeast(FTRL_BETA, 0.0),
            above(ADAGRAD_INITIAL_ACCUMULATOR, 0.0),
            atLeast(INIT_STDDEV, 0.0),
            atLeast(MIN_FREQUENCY, 1),
            above(ROW_TTL, Duration.ZERO),
            atLeastBelow(ROW_CACHE_HEAP_FRACTION, 0.0, 1.0),
            atLeast(ROW_CACHE_ROWS, 0),
            above(QUIET_WRITE_BACK, Duration.ZERO),
            above(NOTICE_FLUSH_DELAY, Duration.ZERO));
}
