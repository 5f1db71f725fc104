package io.streamtrain.cli;

import io.streamtrain.cluster.FileSystemPlugins;
import io.streamtrain.contract.ModelStorage;
import io.streamtrain.export.ExportCommand;
import io.streamtrain.export.ScoreCommand;
import io.streamtrain.ingest.IngestCommand;
import io.streamtrain.kafka.KafkaCommand;
import io.streamtrain.serve.ServeCommand;
import io.streamtrain.files.ProcessTempDirectory;
import io.streamtrain.files.ScratchDirectory;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code streamtrain} launcher: one jar, one subcommand per task. */
@Command(name = "streamtrain", mixinStandardHelpOptions = true, version = "streamtrain 0.1.0",
        description = "Continuous, elastic, exactly-once training of recommender models on Apache Flink.",
        subcommands = {
            DemoCommand.class,
            KafkaCommand.class,
            IngestCommand.class,
            TrainCommand.class,
            JoinCommand.class,
            BackfillCommand.class,
            ClusterCommand.class,
            ExportCommand.class,
            ScoreCommand.class,
            ServeCommand.class,
            ReportCommand.class,
            DashboardCommand.class,
            SqlCommand.class,
            SqlGatewayCommand.class,
            BenchCommand.class,
            CommandLine.HelpCommand.class
        })
public final class StreamtrainCli implements Runnable {
    static final String VERBOSE = "--verbose";
    private static final List<String> STORAGE_COMMANDS = List.of("export", "score", "serve");
    private static final String FLINK_SETTINGS = "flinkSettings";

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    // Read from the parse result (see isVerbose): inherited, so it may follow any subcommand.
    @CommandLine.Option(names = VERBOSE, scope = CommandLine.ScopeType.INHERIT,
            description = "On failure, print the stack trace too (by default: one line, the error and its root cause).")
    boolean verbose;

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    public static void main(String[] args) throws IOException {
        Path temp = ProcessTempDirectory.install(Path.of(System.getProperty("java.io.tmpdir")));
        int exit = commandLine().execute(args);
        ScratchDirectory.deleteOrWarn(temp);
        System.exit(exit);
    }

    /** The launcher's command line, with its error reporting. */
    static CommandLine commandLine() {
        CommandLine cli = new CommandLine(new StreamtrainCli());
        // Every path a command takes may name remote storage (s3://…): ModelStorage resolves it.
        cli.registerConverter(Path.class, ModelStorage::local);
        // The commands that run no job still read and write through Flink's file systems: they take the
        // Flink configuration (--flink-conf, -D) for its s3.* settings, applied before they run.
        for (String command : STORAGE_COMMANDS) {
            cli.getSubcommands().get(command).addMixin(FLINK_SETTINGS, new FlinkSettings());
        }
        cli.setExecutionStrategy(parsed -> {
            initializeFileSystems(parsed);
            return new CommandLine.RunLast().execute(parsed);
        });
        cli.setExecutionExceptionHandler(StreamtrainCli::reportFailure);
        return cli;
    }

    /**
     * Flink's file systems for the command about to run, from its Flink configuration; a job command
     * does this itself with its resolved settings ({@link ConfigurationSources#resolve}).
     */
    private static void initializeFileSystems(CommandLine.ParseResult parsed) {
        CommandLine.ParseResult last = parsed;
        while (last.subcommand() != null) {
            last = last.subcommand();
        }
        CommandLine.Model.CommandSpec settings = last.commandSpec().mixins().get(FLINK_SETTINGS);
        if (settings != null && !last.isUsageHelpRequested() && !last.isVersionHelpRequested()) {
            try {
                FileSystemPlugins.initialize(((FlinkSettings) settings.userObject()).load(System.getenv()));
            } catch (RuntimeException e) { // a broken configuration file: reported as the command's failure
                throw new CommandLine.ExecutionException(last.commandSpec().commandLine(), e.getMessage(), e);
            }
        }
    }

    /** A failed command prints what went wrong and its root cause in one line; the stack trace only with --verbose. */
    private static int reportFailure(Exception e, CommandLine command, CommandLine.ParseResult parsed) {
        FailureReport.print(e, command.getCommandName(), isVerbose(parsed), command.getErr());
        return 1;
    }

    private static boolean isVerbose(CommandLine.ParseResult parsed) {
        for (CommandLine.ParseResult p = parsed; p != null; p = p.subcommand()) {
            if (p.hasMatchedOption(VERBOSE)) {
                return true;
            }
        }
        return false;
    }
}
