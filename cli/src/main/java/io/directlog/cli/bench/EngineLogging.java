package io.directlog.cli.bench;

import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Keeps the engine's java.util.logging output from drowning the bench's progress: one indented line per message,
 * and INFO (such as "opened store ...", once per scenario) left out; warnings still show. Skipped entirely when the
 * user configured logging ({@code -Djava.util.logging.config.file} or an explicit format).
 * <p>
 * Must run before the first logger is used. Not thread-safe; called once from the main thread.
 */
final class EngineLogging
{
    private static final String FORMAT_PROP_NAME = "java.util.logging.SimpleFormatter.format";
    private static final String CONFIG_FILE_PROP_NAME = "java.util.logging.config.file";
    /** Held strongly: LogManager keeps loggers weakly, and a collected logger would forget its level. */
    private static final Logger ENGINE = Logger.getLogger("io.directlog");

    private EngineLogging()
    {
    }

    static void quiet()
    {
        if (System.getProperty(CONFIG_FILE_PROP_NAME) != null || System.getProperty(FORMAT_PROP_NAME) != null)
        {
            return;
        }
        System.setProperty(FORMAT_PROP_NAME, "      engine %4$s: %5$s%6$s%n");
        ENGINE.setLevel(Level.WARNING);
    }
}
