package io.streamtrain.train.run;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;

/**
 * An existing Flink session cluster a command submits its job to ({@code --jobmanager HOST:PORT},
 * the JobManager's REST address) and the job jar it uploads there.
 */
public record SessionTarget(URI rest, Path jobJar) {
    /** Where the build writes the job jar, from the launcher's own location (its jar or its classes, both in launcher/target). */
    static final String BUILT_JOB_JAR = "flink-jobs/target/streamtrain-job.jar";

    /** {@code HOST:PORT} (or an http URL) and the job jar, or the one the build made when {@code jobJar} is null. */
    public static SessionTarget of(String jobManager, Path jobJar) {
        String address = jobManager.contains("://") ? jobManager : "http://" + jobManager;
        URI rest;
        try {
            rest = new URI(address);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("--jobmanager " + jobManager + " is not HOST:PORT", e);
        }
        if (rest.getHost() == null || rest.getPort() < 0) {
            throw new IllegalArgumentException("--jobmanager " + jobManager + " is not HOST:PORT (the JobManager's REST address, e.g. localhost:8081)");
        }
        return new SessionTarget(rest, jobJar != null ? jobJar : builtJobJar());
    }

    private static Path builtJobJar() {
        try {
            Path launcherTarget = Path.of(SessionTarget.class.getProtectionDomain().getCodeSource().getLocation().toURI()).getParent();
            return launcherTarget.getParent().getParent().resolve(BUILT_JOB_JAR);
        } catch (URISyntaxException | RuntimeException e) {
            return Path.of(BUILT_JOB_JAR);
        }
    }
}
