package io.directlog.storage.internal;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import io.directlog.storage.DeviceInfo;
import io.directlog.storage.StoreConfig;
import io.directlog.storage.writer.LogWriterAgent;

/**
 * The store's writer threads: started when the store opens, placed on CPUs by {@link WriterPlacement}, each log
 * pinned to one of them in turn, stopped when the store closes.
 * <p>
 * Thread-safe: the agents are fixed at start; the turn is an atomic counter.
 */
final class LogWriters
{
    private final LogWriterAgent[] agents;
    private final WriterPlacement placement;
    /** The turn of the next log to open. */
    private final AtomicInteger next = new AtomicInteger();

    private LogWriters(final LogWriterAgent[] agents, final WriterPlacement placement)
    {
        this.agents = agents;
        this.placement = placement;
    }

    /**
     * @param config     how many writers, their queue size and CPU setting.
     * @param deviceInfo the device, whose NUMA node a CPU setting of "auto" follows.
     * @return the started writers.
     */
    static LogWriters start(final StoreConfig config, final DeviceInfo deviceInfo)
    {
        final WriterPlacement placement = WriterPlacement.choose(config.writerCpus(), deviceInfo.device());
        final LogWriterAgent[] agents = new LogWriterAgent[config.writerThreads()];
        for (int i = 0; i < agents.length; i++)
        {
            agents[i] = new LogWriterAgent("directlog-writer-" + i, config.writerQueueBytes(), placement.cpus());
            agents[i].start();
        }
        return new LogWriters(agents, placement);
    }

    /**
     * @return the writer the next log is pinned to: each in turn, skipping one whose thread ended (its logs failed,
     * see {@link LogWriterAgent#death()}); when every one ended, the next in turn (the log then opens failed).
     */
    LogWriterAgent next()
    {
        final int first = next.getAndIncrement();
        for (int i = 0; i < agents.length; i++)
        {
            final LogWriterAgent writer = agents[Math.floorMod(first + i, agents.length)];
            if (writer.death() == null)
            {
                return writer;
            }
        }
        return agents[Math.floorMod(first, agents.length)];
    }

    /** @return the writer agents. */
    LogWriterAgent[] agents()
    {
        return agents;
    }

    /** @return where the writer threads run, and why. */
    WriterPlacement placement()
    {
        return placement;
    }

    /** @return the writer running on {@code thread}, or null when it is none of them. */
    LogWriterAgent runningOn(final Thread thread)
    {
        for (final LogWriterAgent writer : agents)
        {
            if (thread == writer.thread())
            {
                return writer;
            }
        }
        return null;
    }

    /** Stops each writer, waiting up to {@code timeout} for each; an interrupt is kept and the others are still asked. */
    void stop(final Duration timeout)
    {
        for (final LogWriterAgent writer : agents)
        {
            try
            {
                writer.stop(timeout);
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
            }
        }
    }
}
