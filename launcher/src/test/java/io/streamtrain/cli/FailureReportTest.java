package io.streamtrain.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.EOFException;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.NoSuchFileException;
import org.apache.flink.runtime.client.JobExecutionException;
import org.apache.flink.api.common.JobID;
import org.apache.flink.util.SerializedThrowable;
import org.junit.jupiter.api.Test;

class FailureReportTest {
    @Test
    void aWrappedFailureIsItsMessageAndItsRootCause() {
        Exception flink = new JobExecutionException(new JobID(), "Job execution failed.",
                new RuntimeException("Recovery is suppressed", new IllegalArgumentException("unknown optimizer 'adamw'")));
        assertEquals("training failed after 5 restarts: unknown optimizer 'adamw' (IllegalArgumentException)",
                FailureReport.describe(new IllegalStateException("training failed after 5 restarts", flink)));
    }

    @Test
    void aRootCauseTheMessageAlreadySaysIsNotRepeated() {
        IOException cause = new IOException("disk full");
        assertEquals("could not write out.json: disk full", FailureReport.describe(new IOException("could not write out.json: disk full", cause)));
    }

    @Test
    void neverNullAndNeverABarePath() {
        assertEquals("EOFException", FailureReport.describe(new EOFException()));
        assertEquals("reading the checkpoint failed: EOFException (EOFException)",
                FailureReport.describe(new IOException("reading the checkpoint failed", new EOFException())));
        assertTrue(FailureReport.describe(new FileAlreadyExistsException("/x/checkpoints")).startsWith("/x/checkpoints already exists"));
        assertEquals("no such file or directory: /x/model.json", FailureReport.describe(new NoSuchFileException("/x/model.json")));
        // A failure that came from a task arrives serialized; its type is the original's.
        assertEquals("restore failed: state gone (FileNotFoundException)", FailureReport.describe(new RuntimeException("restore failed",
                new SerializedThrowable(new java.io.FileNotFoundException("state gone")))));
    }

    @Test
    void theStackTraceOnlyWhenVerbose() {
        Exception e = new IllegalStateException("training failed", new IllegalArgumentException("bad"));
        StringWriter quiet = new StringWriter();
        FailureReport.print(e, "train", false, new PrintWriter(quiet));
        assertEquals(List.of("streamtrain train: error: training failed: bad (IllegalArgumentException)",
                "streamtrain train: (--verbose prints the stack trace)"), quiet.toString().lines().toList());

        StringWriter verbose = new StringWriter();
        FailureReport.print(e, "train", true, new PrintWriter(verbose));
        assertTrue(verbose.toString().contains("\tat io.streamtrain.cli.FailureReportTest"), verbose.toString());
        assertTrue(verbose.toString().contains("Caused by: java.lang.IllegalArgumentException: bad"), verbose.toString());
        assertFalse(verbose.toString().contains("--verbose prints"));
    }
}
