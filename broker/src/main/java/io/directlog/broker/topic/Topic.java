package io.directlog.broker.topic;

import java.util.List;

import org.apache.kafka.common.Uuid;

/**
 * A topic: its name, its id (KIP-516; kept across restarts, new on re-creation), its partitions and configs.
 *
 * @param name       the topic's name.
 * @param id         the topic id.
 * @param partitions the partitions, by number.
 * @param config     the topic's configs.
 */
public record Topic(String name, Uuid id, List<Partition> partitions, TopicConfig config)
{
    /**
     * @param index a partition number.
     * @return the partition, or null when the topic has no such partition.
     */
    public Partition partition(final int index)
    {
        return index >= 0 && index < partitions.size() ? partitions.get(index) : null;
    }
}
