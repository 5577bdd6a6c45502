package io.directlog.broker.topic;

import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.common.Uuid;

import io.directlog.storage.Log;
import io.directlog.storage.LogConfig;
import io.directlog.storage.LogStore;

/**
 * Opens a single node's partitions over logs of the store. A topic's partitions are opened together with
 * {@link LogStore#logs}, which creates the new logs' files several at a time (a CreateTopics of 1,000 partitions
 * waited for 1,000 log creations in a row before).
 * <p>
 * Thread-safe (no state of its own).
 */
final class LocalPartitions implements TopicRegistry.PartitionOpener
{
    private final LogStore store;

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
}
