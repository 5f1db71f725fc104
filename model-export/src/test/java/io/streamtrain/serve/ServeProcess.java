package io.streamtrain.serve;

import picocli.CommandLine;

/** {@code serve} as a process of its own, for tests that signal it. */
public final class ServeProcess {
    private ServeProcess() {}

    public static void main(String[] args) {
        System.exit(new CommandLine(new ServeCommand()).execute(args));
    }
}
