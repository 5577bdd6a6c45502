package io.directlog.broker.topic;

import org.apache.kafka.common.TopicPartition;

/**
 * What every partition is named by, whatever stores it: its topic and its number, as Kafka writes them
 * ({@code topic-index}).
 */
abstract class NamedPartition implements Partition
{
    private final TopicPartition name;

    /**
     * @param topic the topic's name.
     * @param index the partition number.
     */
    NamedPartition(final String topic, final int index)
    {
        this.name = new TopicPartition(topic, index);
    }

    @Override
    public final String topic()
    {
        return name.topic();
    }

    @Override
    public final int index()
    {
        return name.partition();
    }

    /** @return {@code topic-index}. */
    @Override
    public final String toString()
    {
        return name.toString();
    }
}
