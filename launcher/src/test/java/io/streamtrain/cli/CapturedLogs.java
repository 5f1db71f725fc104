package io.streamtrain.cli;

import java.io.StringWriter;
import java.util.HashMap;
import java.util.Map;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.WriterAppender;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.layout.PatternLayout;

/**
 * Every log line of this JVM at INFO and above while open, whatever the configured levels: for
 * asserting what is never logged. Closing restores the levels.
 */
final class CapturedLogs implements AutoCloseable {
    private static final String NAME = "captured-logs";
    private final StringWriter lines = new StringWriter();
    private final LoggerContext context = (LoggerContext) LogManager.getContext(false);
    private final Map<LoggerConfig, Level> levels = new HashMap<>();
    private final WriterAppender appender;

    CapturedLogs() {
        Configuration config = context.getConfiguration();
        appender = WriterAppender.createAppender(PatternLayout.newBuilder().withPattern("%p %c - %m%n").build(), null, lines, NAME, false, true);
        appender.start();
        config.addAppender(appender);
        for (LoggerConfig logger : config.getLoggers().values()) {
            levels.put(logger, logger.getLevel());
            logger.addAppender(appender, Level.INFO, null);
            if (logger.getLevel().isMoreSpecificThan(Level.WARN)) {
                logger.setLevel(Level.INFO);
            }
        }
        LoggerConfig root = config.getRootLogger();
        if (!levels.containsKey(root)) {
            levels.put(root, root.getLevel());
            root.addAppender(appender, Level.INFO, null);
            root.setLevel(Level.INFO);
        }
        context.updateLoggers();
    }

    String text() {
        return lines.toString();
    }

    @Override
    public void close() {
        levels.forEach((logger, level) -> {
            logger.removeAppender(NAME);
            logger.setLevel(level);
        });
        context.getConfiguration().getAppenders().remove(NAME);
        appender.stop();
        context.updateLoggers();
    }
}
