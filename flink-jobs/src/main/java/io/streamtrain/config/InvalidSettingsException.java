package io.streamtrain.config;

import java.util.List;
import java.util.stream.Collectors;

/** Settings a job cannot start with, each with its key, its value and what is allowed. */
public final class InvalidSettingsException extends IllegalArgumentException {
    private final List<SettingsCheck.Problem> problems;

    public InvalidSettingsException(List<SettingsCheck.Problem> problems) {
        super(problems.size() == 1
                ? "invalid setting " + problems.get(0)
                : "invalid settings:" + problems.stream().map(p -> "\n  " + p).collect(Collectors.joining()));
        this.problems = List.copyOf(problems);
    }

    public List<SettingsCheck.Problem> problems() {
        return problems;
    }
}
