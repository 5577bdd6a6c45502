package io.directlog.cli.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

import io.directlog.storage.AppendWaiter;
import io.directlog.storage.Durability;
import io.directlog.storage.Log;
import io.directlog.storage.LogConfig;
import io.directlog.storage.LogStore;
import org.agrona.concurrent.UnsafeBuffer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * Writes a store the way {@code ./directlog bench}'s engine append scenarios do: the scenario's directory under
 * the run's ({@code directlog-bench-XXXX/engine-direct}), its memory budget and 64 MiB segments, its log
 * {@value EngineStores#LOG_NAME}, producers appending 100 B records through {@link AppendWaiter}. For the store
 * tools' tests.
 */
public final class BenchStoreFixture
{
    /** The log the bench appends to. */
    public static final String LOG_NAME = EngineStores.LOG_NAME;
    /** The prefix of a bench run's directory. */
    public static final String RUN_PREFIX = BenchDirectory.PREFIX;

    private BenchStoreFixture()
    {
    }

    /**
     * @param runDir      the run's directory.
     * @param durability  the scenario's durability (engine-direct, engine-dsync, ...).
     * @param producers   appending threads.
     * @param perProducer appends each.
     * @return the scenario's store directory, written and closed.
     * @throws Exception when the store cannot be written.
     */
    public static Path write(final Path runDir, final Durability durability, final int producers,
        final int perProducer) throws Exception
    {
        final Path storeDir = runDir.resolve("engine-" + durability.name().toLowerCase(Locale.ROOT));
        Files.createDirectories(storeDir);
        try (LogStore store = EngineStores.open(storeDir, EngineAppendScenario.MEMORY_BUDGET))
        {
            final Log log = store.log(EngineStores.LOG_NAME, LogConfig.builder()
                .segmentSize(EngineAppendScenario.SEGMENT_BYTES).durability(durability).build());
            final List<Thread> threads = new ArrayList<>();
            final List<Throwable> failures = new ArrayList<>();
            for (int t = 0; t < producers; t++)
            {
                final int id = t;
                final Thread producer = new Thread(() ->
                {
                    final UnsafeBuffer payload = new UnsafeBuffer(new byte[EngineAppendScenario.RECORD_BYTES]);
                    payload.setMemory(0, EngineAppendScenario.RECORD_BYTES, (byte)('a' + id));
                    final AppendWaiter waiter = new AppendWaiter();
                    try
                    {
                        for (int i = 0; i < perProducer; i++)
                        {
                            waiter.append(log, payload, 0, EngineAppendScenario.RECORD_BYTES, durability);
                        }
                    }
                    catch (final Throwable e)
                    {
                        synchronized (failures)
                        {
                            failures.add(e);
                        }
                    }
                });
                producer.start();
                threads.add(producer);
            }
            for (final Thread p : threads)
            {
                p.join(TimeUnit.SECONDS.toMillis(60));
                assertFalse(p.isAlive(), "producer stuck");
            }
            assertEquals(List.of(), failures);
        }
        return storeDir;
    }
}
