package io.directlog.storage;

import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/** Captures the warnings the engine logs while a test's action runs. */
public final class TestWarnings
{
    private TestWarnings()
    {
    }

    /**
     * Runs {@code action} and returns the messages of every record at WARNING or above logged meanwhile, in order.
     * Records may come from any thread (a writer, the syncer), so the list is filled under its own lock.
     *
     * @param action what to run.
     * @return the warnings' messages.
     */
    public static List<String> during(final Runnable action)
    {
        final List<String> seen = new ArrayList<>();
        final Logger jul = Logger.getLogger(""); // the root: System.Logger hands records to JUL loggers it makes itself
        final Handler h = new Handler()
        {
            @Override
            public void publish(final LogRecord r)
            {
                if (r.getLevel().intValue() >= Level.WARNING.intValue())
                {
                    synchronized (seen)
                    {
                        seen.add(r.getMessage());
                    }
                }
            }

            @Override
            public void flush()
            {
            }

            @Override
            public void close()
            {
            }
        };
        // Another suite in the same JVM may have quieted the engine's loggers: let WARNING through while this runs.
        final Logger engine = Logger.getLogger("io.directlog");
        final Level engineLevel = engine.getLevel();
        engine.setLevel(Level.WARNING);
        jul.addHandler(h);
        try
        {
            action.run();
        }
        finally
        {
            jul.removeHandler(h);
            engine.setLevel(engineLevel);
        }
        synchronized (seen)
        {
            return new ArrayList<>(seen);
        }
    }
}
