package io.streamtrain.cli;

import java.io.PrintWriter;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import org.apache.flink.util.SerializedThrowable;

/**
 * What the launcher prints for a command that failed: one line, the command's own message (what
 * failed, where, what to do) and then the root cause unless the message already says it; the
 * stack trace only with {@code --verbose}. A cause without a message is named by its type, never
 * "null"; a file-system error says what is wrong with the file, not only its path.
 */
final class FailureReport {
    private FailureReport() {}

    static void print(Throwable e, String command, boolean verbose, PrintWriter err) {
        err.println("streamtrain " + command + ": error: " + describe(e));
        if (verbose) {
            e.printStackTrace(err);
        } else if (e.getCause() != null) {
            err.println("streamtrain " + command + ": (--verbose prints the stack trace)");
        }
        err.flush();
    }

    /** The failure in one line: its message and, where that does not already say it, its root cause. */
    static String describe(Throwable e) {
        String text = message(e);
        Throwable root = rootCause(e);
        if (root != e) {
            String cause = message(root);
            if (!text.contains(cause)) {
                text = text + ": " + cause + " (" + typeName(root) + ")";
            }
        }
        return text;
    }

    static Throwable rootCause(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t;
    }

    private static String message(Throwable t) {
        if (t instanceof FileSystemException f && f.getFile() != null) {
            return fileProblem(f);
        }
        String m = t.getMessage();
        if (m != null && t instanceof SerializedThrowable s && m.startsWith(s.getOriginalErrorClassName() + ": ")) {
            m = m.substring(s.getOriginalErrorClassName().length() + 2); // it carries the original's toString()
        }
        return m == null || m.isBlank() ? typeName(t) : m.strip();
    }

    private static String fileProblem(FileSystemException f) {
        String file = f.getFile() + (f.getOtherFile() != null ? " -> " + f.getOtherFile() : "");
        String reason = f.getReason() != null ? ": " + f.getReason() : "";
        if (f instanceof NoSuchFileException) {
            return "no such file or directory: " + file + reason;
        }
        if (f instanceof FileAlreadyExistsException) {
            return file + " already exists (as a file where a directory is needed, or the other way round)" + reason;
        }
        if (f instanceof AccessDeniedException) {
            return "permission denied: " + file + reason;
        }
        if (f instanceof NotDirectoryException) {
            return "not a directory: " + file + reason;
        }
        if (f instanceof DirectoryNotEmptyException) {
            return "directory not empty: " + file + reason;
        }
        return "cannot use " + file + reason;
    }

    private static String typeName(Throwable t) {
        String name = t instanceof SerializedThrowable s ? s.getOriginalErrorClassName() : t.getClass().getName();
        return name.substring(name.lastIndexOf('.') + 1);
    }
}
