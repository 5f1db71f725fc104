package io.streamtrain.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The layers of docs/ARCHITECTURE.md ("Layers"), checked on each module's compiled classes: Maven
 * keeps a module from using one it does not depend on, and these rules pin what Maven cannot: which
 * classes of an allowed module a job may use, and that no one adds the forbidden dependency.
 * Packages are split across modules (e.g. {@code io.streamtrain.join}), so a module is the set of
 * classes in its {@code target/classes}, not a package.
 */
class LayersTest {
    private static final Path ROOT = Path.of("").toAbsolutePath().getParent();

    private static final JavaClasses SCHEMAS = module("schemas");
    private static final JavaClasses FEATURE_INGEST = module("feature-ingest");
    private static final JavaClasses DEV_TOOLS = module("dev-tools");
    private static final JavaClasses PS = module("ps-statefun");
    private static final JavaClasses MODEL_EXPORT = module("model-export");
    private static final JavaClasses JOBS = module("flink-jobs");
    private static final JavaClasses LAUNCHER = module("launcher");

    /** The SQL scoring function: the one job class that may use the scoring library. */
    private static final String SCORING_FUNCTION = "io.streamtrain.sql.PredictFunction";

    private static JavaClasses module(String name) {
        Path classes = ROOT.resolve(name).resolve("target/classes");
        assertTrue(Files.isDirectory(classes), "no compiled classes in " + classes + ": build through the reactor");
        return new ClassFileImporter().importPath(classes);
    }

    private static DescribedPredicate<JavaClass> in(String description, JavaClasses... modules) {
        Set<String> names = Arrays.stream(modules)
                .flatMap(m -> m.stream().map(JavaClass::getName))
                .collect(Collectors.toSet());
        return DescribedPredicate.describe(description, c -> names.contains(c.getName()));
    }

    /** Development tools and the launcher: the local broker, synthetic data, CLI, benches, run watchers. */
    private static final DescribedPredicate<JavaClass> TOOLS = in("dev-tools or launcher classes", DEV_TOOLS, LAUNCHER);

    /** CLI, DJL, the Kafka broker: what neither a job nor the shared contracts may touch. */
    private static final String[] TOOLING_PACKAGES = {
        "picocli..", "ai.djl..", "kafka..", "org.apache.kafka.server..", "org.apache.kafka.metadata..", "org.apache.kafka.raft..",
        "scala.."
    };

    /** The same without DJL. */
    private static final String[] TOOLING_PACKAGES_BUT_DJL = Arrays.stream(TOOLING_PACKAGES)
            .filter(p -> !p.equals("ai.djl.."))
            .toArray(String[]::new);

    /** The deep models' dense tower on PyTorch: the one place a job may use DJL (docs/ARCHITECTURE.md, "Layers"). */
    private static final String DENSE_TOWER_PACKAGE = "io.streamtrain.train.dense..";

    @Test
    void jobsUseNeitherExportNorServingNorTools() {
        noClasses().that(in("job classes", JOBS)
                        .and(DescribedPredicate.not(scoringFunction())))
                .should().dependOnClassesThat(in("model-export classes", MODEL_EXPORT).or(TOOLS))
                .orShould().dependOnClassesThat().resideInAnyPackage(TOOLING_PACKAGES_BUT_DJL)
                .check(JOBS);
    }

    @Test
    void onlyTheDenseTowerOfAJobUsesDjl() {
        noClasses().that(in("job classes", JOBS))
                .and().resideOutsideOfPackage(DENSE_TOWER_PACKAGE)
                .should().dependOnClassesThat().resideInAPackage("ai.djl..")
                .check(JOBS);
    }

    @Test
    void theSqlScoringFunctionUsesOnlyTheScoringLibrary() {
        noClasses().that(scoringFunction())
                .should().dependOnClassesThat(TOOLS)
                .orShould().dependOnClassesThat().resideInAnyPackage("io.streamtrain.djl..", "io.streamtrain.serve..")
                .orShould().dependOnClassesThat().resideInAnyPackage(TOOLING_PACKAGES)
                .check(JOBS);
    }

    @Test
    void exportAndServingNeverUseTheJobsOrTools() {
        noClasses().should().dependOnClassesThat(in("flink-jobs classes", JOBS).or(TOOLS))
                .orShould().dependOnClassesThat().resideInAnyPackage("kafka..", "org.apache.kafka.server..", "scala..")
                .check(MODEL_EXPORT);
    }

    @Test
    void theSharedContractsAndLibrariesUseNothingAboveThem() {
        DescribedPredicate<JavaClass> above = in("model-export, flink-jobs, dev-tools or launcher classes", MODEL_EXPORT, JOBS, DEV_TOOLS, LAUNCHER);
        for (JavaClasses lower : new JavaClasses[] {SCHEMAS, FEATURE_INGEST, PS}) {
            noClasses().should().dependOnClassesThat(above)
                    .orShould().dependOnClassesThat().resideInAnyPackage(TOOLING_PACKAGES)
                    .check(lower);
        }
    }

    private static DescribedPredicate<JavaClass> scoringFunction() {
        return DescribedPredicate.describe("the SQL scoring function",
                c -> c.getName().equals(SCORING_FUNCTION) || c.getName().startsWith(SCORING_FUNCTION + "$"));
    }
}
