package io.directlog.broker.topic;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.common.Uuid;

import io.directlog.storage.Log;
import io.directlog.storage.LogConfig;
import io.directlog.storage.LogStore;

/**
 * Opens a single node's partitions over logs of the store. A topic's partitions are opened together with
 * {@link LogStore#logs}, which creates the new logs' files several at a time (a CreateTopics of 1,000 partitions
 * waited for 1,000 log creations in a row before).
 * <p>
 * A new topic's partitions are created on a background thread ({@link #openAllLater}): CreateTopics is answered
 * once the topic's metadata event is durable, not after its logs' files and syncs (seconds for 1,000 partitions on
 * a loaded machine). The topic survives a crash either way: a start replays the metadata log and creates the logs
 * that are missing (or completes those a crash left half made). Creations run one topic after another.
 * <p>
 * Thread-safe.
 */
final class LocalPartitions implements TopicRegistry.PartitionOpener
{
    private static final System.Logger LOG = System.getLogger(LocalPartitions.class.getName());

    /** How long closing waits for logs still being created before the store closes under them. */
    private static final long CLOSE_WAIT_SECONDS = 120;

    private final LogStore store;
    private final ExecutorService creator = Executors.newSingleThreadExecutor(r ->
    {
        final Thread t = new Thread(r, "directlog-partition-create");
        t.setDaemon(true);
        return t;
    });

    LocalPartitions(final LogStore store)
    {
        this.store = store;
    }

    @Override
    public Partition open(final String topic, final Uuid id, final int index, final String logName,
        final LogConfig config)
    {
        return LocalPartition.open(topic, index, store.log(logName, config));
    }

    @Override
    public List<Partition> openAll(final String topic, final Uuid id, final int first, final List<String> logNames,
        final LogConfig config)
    {
        final List<Log> logs = store.logs(logNames, config);
        final List<Partition> partitions = new ArrayList<>(logs.size());
        for (int i = 0; i < logs.size(); i++)
        {
            partitions.add(LocalPartition.open(topic, first + i, logs.get(i)));
        }
        return partitions;
    }

    @Override
    public List<Partition> openAllLater(final String topic, final Uuid id, final int first,
        final List<String> logNames, final LogConfig config)
    {
        final List<OpeningPartition> opening = new ArrayList<>(logNames.size());
        for (int i = 0; i < logNames.size(); i++)
        {
            opening.add(new OpeningPartition(topic, first + i));
        }
        creator.execute(() -> create(topic, first, logNames, config, opening));
        return List.copyOf(opening);
    }

    /** On the creator thread. */
    private void create(final String topic, final int first, final List<String> logNames, final LogConfig config,
        final List<OpeningPartition> opening)
    {
        final long started = System.nanoTime();
        final List<Log> logs;
        try
        {
            logs = store.logs(logNames, config);
        }
        catch (final RuntimeException e)
        {
            LOG.log(System.Logger.Level.ERROR, "could not create the logs of partitions " + first + " to " +
                (first + logNames.size() - 1) + " of topic " + topic + " (created again at the next start)", e);
            opening.forEach(p -> p.failed(e));
            return;
        }
        for (int i = 0; i < logs.size(); i++)
        {
            final OpeningPartition p = opening.get(i);
            try
            {
                p.opened(LocalPartition.open(topic, first + i, logs.get(i)));
            }
            catch (final RuntimeException e)
            {
                LOG.log(System.Logger.Level.ERROR, "could not open partition " + p, e);
                p.failed(e);
            }
        }
        LOG.log(System.Logger.Level.DEBUG, () -> "created " + logNames.size() + " partition logs of " + topic +
            " in " + (System.nanoTime() - started) / 1_000_000 + " ms");
    }

    /** Waits for the creations queued or running, so that the store does not close under them. */
    @Override
    public void close()
    {
        creator.shutdown();
        try
        {
            if (!creator.awaitTermination(CLOSE_WAIT_SECONDS, TimeUnit.SECONDS))
            {
                LOG.log(System.Logger.Level.WARNING, "partition logs still being created after " +
                    CLOSE_WAIT_SECONDS + " s; closing the store under them (the next start completes them)");
            }
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
    }
}
