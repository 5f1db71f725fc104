package io.streamtrain.cli;

import io.streamtrain.export.ExportCommand;
import io.streamtrain.export.ScoreCommand;
import io.streamtrain.ingest.IngestCommand;
import io.streamtrain.kafka.KafkaCommand;
import io.streamtrain.serve.ServeCommand;
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
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /** The launcher's command line, with its error reporting. */
    static CommandLine commandLine() {
        CommandLine cli = new CommandLine(new StreamtrainCli());
        cli.setExecutionExceptionHandler(StreamtrainCli::reportFailure);
        return cli;
    }

    /** A failed command prints what went wrong and why, cause by cause, not a stack trace. */
    private static int reportFailure(Exception e, CommandLine command, CommandLine.ParseResult parsed) {
        StringBuilder message = new StringBuilder("streamtrain " + command.getCommandName() + ": error: " + e.getMessage());
        for (Throwable cause = e.getCause(); cause != null && cause != cause.getCause(); cause = cause.getCause()) {
            message.append("\n  caused by: ").append(cause.getClass().getSimpleName()).append(": ").append(cause.getMessage());
        }
        command.getErr().println(message);
        return 1;
    }
}
