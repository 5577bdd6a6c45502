package io.directlog.broker.topic;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.InvalidPartitionsException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.TopicExistsException;

import io.directlog.storage.Durability;
import io.directlog.storage.Log;
import io.directlog.storage.LogConfig;
import io.directlog.storage.LogReader;
import io.directlog.storage.LogStore;
import io.directlog.storage.StoredRecord;

/**
 * Every topic of the broker, and the metadata log that makes them durable: an internal DirectLog log of events
 * (topic created or changed, topic deleted, producer-id block taken), replayed at start. Each event is appended
 * with DSYNC and waited for before the change is answered.
 * <p>
 * Partition logs are named after the topic id, not the topic's name: Kafka names may be longer than a DirectLog
 * log name, and a deleted-then-recreated topic must not meet its predecessor's files.
 * <p>
 * Thread-safe: lookups read concurrent maps; changes are serialized on the registry's monitor (called from the
 * broker's admin thread).
 */
public final class TopicRegistry implements AutoCloseable
{
    /** The metadata log's name. */
    public static final String METADATA_LOG = "directlog.metadata";

    /** Segment size of the metadata log: its events are small. */
    static final int INTERNAL_SEGMENT_SIZE = 4 << 20;

    private static final byte TOPIC = 1;
    private static final byte DELETE = 2;
    private static final byte PRODUCER_ID_BLOCK = 3;
    /** Producer ids taken from the metadata log per event: a restart skips what is left of a block. */
    private static final long PRODUCER_ID_BLOCK_SIZE = 1000;

    /**
     * Opens one partition of a topic.
     */
    @FunctionalInterface
    public interface PartitionOpener
    {
        /**
         * @param topic   the topic's name.
         * @param id      the topic's id.
         * @param index   the partition number.
         * @param logName the DirectLog log a single-node partition keeps its batches in.
         * @param config  the partition's log settings.
         * @return the partition.
         */
        Partition open(String topic, Uuid id, int index, String logName, LogConfig config);

        /**
         * Opens partitions {@code first} to {@code first + logNames.size() - 1} of a topic; one at a time unless
         * the opener can do better (a single node's partitions create their logs in one batch).
         *
         * @param topic    the topic's name.
         * @param id       the topic's id.
         * @param first    the first partition's number.
         * @param logNames the partitions' logs, in partition order.
         * @param config   the partitions' log settings.
         * @return the partitions, in order.
         */
        default List<Partition> openAll(final String topic, final Uuid id, final int first,
            final List<String> logNames, final LogConfig config)
        {
            final List<Partition> partitions = new ArrayList<>(logNames.size());
            for (int i = 0; i < logNames.size(); i++)
            {
                partitions.add(open(topic, id, first + i, logNames.get(i), config));
            }
            return partitions;
        }

        /**
         * Opens partitions of a new topic (or new partitions of a topic) whose metadata event is already durable,
         * as {@link #openAll}, but may return before their logs exist: partitions that are empty until then, that
         * queue appends, and that become the opened partitions (Kafka's controller, too, answers CreateTopics once
         * the topic is committed and leaves log creation to the brokers). Synchronous unless the opener can do
         * better.
         *
         * @param topic    the topic's name.
         * @param id       the topic's id.
         * @param first    the first partition's number.
         * @param logNames the partitions' logs, in partition order.
         * @param config   the partitions' log settings.
         * @return the partitions, in order.
         */
        default List<Partition> openAllLater(final String topic, final Uuid id, final int first,
            final List<String> logNames, final LogConfig config)
        {
            return openAll(topic, id, first, logNames, config);
        }

        /** Waits for the partitions still being opened in the background, if any; the store closes after. */
        default void close()
        {
        }
    }

    private final LogStore store;
    private final PartitionOpener opener;
    /** Whether topic ids derive from topic names (a cluster whose nodes create the same topics on their own). */
    private final boolean nameBasedIds;
    private final Map<String, String> defaults;
    private final Log metadata;
    private final Map<String, Topic> byName = new ConcurrentHashMap<>();
    private final Map<Uuid, Topic> byId = new ConcurrentHashMap<>();
    private long nextProducerId;
    private long producerIdBlockEnd;

    /**
     * Opens the registry, replaying the metadata log and opening every topic's partitions.
     *
     * @param store    the store holding the logs.
     * @param defaults the broker's topic config defaults ({@link TopicConfig#defaults}).
     */
    public TopicRegistry(final LogStore store, final Map<String, String> defaults)
    {
        this(store, defaults, new LocalPartitions(store), false);
    }

    /**
     * Opens the registry with partitions of another kind (a cluster's replicated partitions).
     *
     * @param store        the store holding the metadata log.
     * @param defaults     the broker's topic config defaults.
     * @param opener       opens each partition.
     * @param nameBasedIds true to derive each topic's id from its name, so that nodes creating the same topic on
     *                     their own agree on its id (clients switching leaders send topic ids).
     */
    public TopicRegistry(final LogStore store, final Map<String, String> defaults, final PartitionOpener opener,
        final boolean nameBasedIds)
    {
        this.store = store;
        this.opener = opener;
        this.nameBasedIds = nameBasedIds;
        this.defaults = defaults;
        // small segments: every open log with data holds a write page of its segment size from the memory budget
        this.metadata = store.log(METADATA_LOG, store.config().defaultLogConfig().toBuilder()
            .segmentSize(INTERNAL_SEGMENT_SIZE).durability(Durability.DSYNC).retentionBytes(LogConfig.RETENTION_BYTES_NONE).retentionTime(null).build());
        replay();
    }

    private void replay()
    {
        final Map<String, Object[]> topics = new LinkedHashMap<>();
        final long end = metadata.endOffset();
        try (LogReader reader = metadata.reader(metadata.startOffset()))
        {
            StoredRecord r;
            while (reader.position() < end && (r = reader.next()) != null)
            {
                final DataInputStream in = new DataInputStream(new ByteArrayInputStream(r.payload()));
                switch (in.readByte())
                {
                    case TOPIC ->
                    {
                        final String name = in.readUTF();
                        final Uuid id = new Uuid(in.readLong(), in.readLong());
                        final int partitions = in.readInt();
                        final Map<String, String> configs = new LinkedHashMap<>();
                        for (int n = in.readInt(); n > 0; n--)
                        {
                            configs.put(in.readUTF(), in.readUTF());
                        }
                        topics.put(name, new Object[] {id, partitions, configs});
                    }
                    case DELETE -> topics.remove(in.readUTF());
                    case PRODUCER_ID_BLOCK -> producerIdBlockEnd = in.readLong();
                    default -> throw new IllegalStateException("unknown metadata event at offset " + r.offset());
                }
            }
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException("metadata log " + METADATA_LOG + " is damaged", e);
        }
        nextProducerId = producerIdBlockEnd;
        for (final Map.Entry<String, Object[]> e : topics.entrySet())
        {
            @SuppressWarnings("unchecked")
            final Map<String, String> configs = (Map<String, String>)e.getValue()[2];
            open(e.getKey(), (Uuid)e.getValue()[0], (Integer)e.getValue()[1], TopicConfig.of(configs, defaults), false);
        }
    }

    /**
     * @param later true for a topic just created: its logs may be created after this returns
     *              ({@link PartitionOpener#openAllLater}); false at start, where every partition is opened here.
     */
    private Topic open(final String name, final Uuid id, final int partitionCount, final TopicConfig config,
        final boolean later)
    {
        final LogConfig logConfig = config.logConfig(store.config().defaultLogConfig());
        final List<String> logs = logNames(id, 0, partitionCount);
        final List<Partition> partitions = later ? opener.openAllLater(name, id, 0, logs, logConfig) :
            opener.openAll(name, id, 0, logs, logConfig);
        final Topic topic = new Topic(name, id, Collections.unmodifiableList(partitions), config);
        byName.put(name, topic);
        byId.put(id, topic);
        return topic;
    }

    private static Uuid nameBasedId(final String name)
    {
        final java.util.UUID u = java.util.UUID.nameUUIDFromBytes(("directlog-topic:" + name)
            .getBytes(java.nio.charset.StandardCharsets.UTF_8));
        return new Uuid(u.getMostSignificantBits(), u.getLeastSignificantBits());
    }

    /**
     * The DirectLog log of a single-node partition, once it is created (a partition of a topic just created waits
     * for its log); replicated partitions are not reconfigured or deleted here yet.
     *
     * @param p a partition of this registry.
     * @return its log.
     * @throws org.apache.kafka.common.errors.PolicyViolationException for a replicated partition.
     * @throws org.apache.kafka.common.errors.KafkaStorageException    when its log could not be created.
     */
    public static Log localLog(final Partition p)
    {
        if (p instanceof LocalPartition local)
        {
            return local.log();
        }
        if (p instanceof OpeningPartition opening)
        {
            return opening.awaitOpen().log(); // a topic changed or deleted while its logs are created: after them
        }
        throw new org.apache.kafka.common.errors.PolicyViolationException("partition " + p + " is replicated: " +
            "its configs and deletion need the " +
            "cluster's agreement, which is not implemented yet");
    }

    private static String logName(final Uuid id, final int partition)
    {
        return "p." + id + "." + partition;
    }

    /** @return the logs of partitions {@code from} (inclusive) to {@code to} (exclusive). */
    private static List<String> logNames(final Uuid id, final int from, final int to)
    {
        final List<String> names = new ArrayList<>(to - from);
        for (int i = from; i < to; i++)
        {
            names.add(logName(id, i));
        }
        return names;
    }

    /**
     * @param name a topic name.
     * @return the topic, or null.
     */
    public Topic topic(final String name)
    {
        return byName.get(name);
    }

    /**
     * @param id a topic id.
     * @return the topic, or null.
     */
    public Topic topic(final Uuid id)
    {
        return byId.get(id);
    }

    /** @return every topic. */
    public Collection<Topic> topics()
    {
        return byName.values();
    }

    /** @return the broker's topic config defaults. */
    public Map<String, String> defaults()
    {
        return defaults;
    }

    /**
     * Checks a topic name as Kafka does: legal characters, length, not "." or "..".
     *
     * @param name the name.
     * @throws InvalidTopicException when it is not legal.
     */
    public static void validateName(final String name)
    {
        org.apache.kafka.common.internals.Topic.validate(name);
    }

    /**
     * Creates a topic durably: when this returns its metadata event is durable, so the topic survives a crash;
     * its partition logs may still be being created ({@link PartitionOpener#openAllLater}), and a start after a
     * crash creates those that are missing.
     *
     * @param name       the name.
     * @param partitions how many partitions (at least 1).
     * @param configs    configs set on the topic.
     * @param validateOnly check only.
     * @return the topic (null when only validating).
     * @throws TopicExistsException       when the name is taken.
     * @throws InvalidTopicException      for a bad name.
     * @throws InvalidPartitionsException for a bad partition count.
     * @throws IllegalArgumentException   for a bad config.
     */
    public synchronized Topic create(final String name, final int partitions, final Map<String, String> configs,
        final boolean validateOnly)
    {
        validateName(name);
        if (byName.containsKey(name))
        {
            throw new TopicExistsException("Topic '" + name + "' already exists.");
        }
        if (partitions < 1 || partitions > 10_000)
        {
            throw new InvalidPartitionsException("Number of partitions must be within [1, 10000], got " + partitions);
        }
        final TopicConfig config = TopicConfig.of(configs, defaults);
        if (validateOnly)
        {
            return null;
        }
        final Uuid id = nameBasedIds ? nameBasedId(name) : Uuid.randomUuid();
        writeTopic(name, id, partitions, config);
        return open(name, id, partitions, config, true);
    }

    /**
     * Adds partitions to a topic durably.
     *
     * @param name  the topic.
     * @param count the new total.
     * @param validateOnly check only.
     * @return the topic with its partitions.
     */
    public synchronized Topic createPartitions(final String name, final int count, final boolean validateOnly)
    {
        final Topic topic = byName.get(name);
        if (topic == null)
        {
            throw new org.apache.kafka.common.errors.UnknownTopicOrPartitionException("Topic '" + name +
                "' does not exist.");
        }
        if (count <= topic.partitions().size())
        {
            throw new InvalidPartitionsException("Topic currently has " + topic.partitions().size() +
                " partitions, which is higher than or equal to the requested " + count + ".");
        }
        if (count > 10_000)
        {
            throw new InvalidPartitionsException("At most 10000 partitions, got " + count);
        }
        if (validateOnly)
        {
            return topic;
        }
        writeTopic(name, topic.id(), count, topic.config());
        final LogConfig logConfig = topic.config().logConfig(store.config().defaultLogConfig());
        final List<Partition> partitions = new ArrayList<>(topic.partitions());
        partitions.addAll(opener.openAllLater(name, topic.id(), partitions.size(),
            logNames(topic.id(), partitions.size(), count), logConfig));
        final Topic grown = new Topic(name, topic.id(), Collections.unmodifiableList(partitions), topic.config());
        byName.put(name, grown);
        byId.put(grown.id(), grown);
        return grown;
    }

    /**
     * Replaces the configs set on a topic (AlterConfigs, IncrementalAlterConfigs): durably in the metadata log
     * first, then each partition log is reconfigured (its {@code log.config} is persisted too). A crash between the
     * two is repaired at the next start, which opens every log with the metadata's config.
     *
     * @param name         the topic.
     * @param explicit     every config set on the topic after the change (the others take their defaults).
     * @param validateOnly check only.
     * @return the topic with its new configs.
     * @throws org.apache.kafka.common.errors.UnknownTopicOrPartitionException when there is no such topic.
     * @throws IllegalArgumentException naming an unknown key, a bad value, or a segment size change.
     */
    public synchronized Topic alterConfigs(final String name, final Map<String, String> explicit,
        final boolean validateOnly)
    {
        final Topic topic = byName.get(name);
        if (topic == null)
        {
            throw new org.apache.kafka.common.errors.UnknownTopicOrPartitionException("Topic '" + name +
                "' does not exist.");
        }
        final TopicConfig config = TopicConfig.of(explicit, defaults);
        final LogConfig logConfig = config.logConfig(store.config().defaultLogConfig());
        final int segmentSize = localLog(topic.partitions().get(0)).config().segmentSize();
        if (logConfig.segmentSize() != segmentSize)
        {
            // the engine fixes a log's segment size (and write page) when the log is created
            throw new IllegalArgumentException(TopicConfig.SEGMENT_BYTES + " cannot change after the topic is " +
                "created: its partition logs' segment size is " + segmentSize + " bytes, asked for " +
                config.value(TopicConfig.SEGMENT_BYTES));
        }
        if (validateOnly)
        {
            return topic;
        }
        writeTopic(name, topic.id(), topic.partitions().size(), config);
        final Topic changed = new Topic(name, topic.id(), topic.partitions(), config);
        byName.put(name, changed);
        byId.put(changed.id(), changed);
        for (final Partition p : topic.partitions())
        {
            localLog(p).reconfigure(logConfig);
        }
        return changed;
    }

    /**
     * Deletes a topic durably, then its logs.
     *
     * @param name the topic.
     * @return the deleted topic, or null when there was none.
     */
    public synchronized Topic delete(final String name)
    {
        final Topic topic = byName.get(name);
        if (topic == null)
        {
            return null;
        }
        append(event(out ->
        {
            out.writeByte(DELETE);
            out.writeUTF(name);
        }));
        byName.remove(name);
        byId.remove(topic.id());
        for (final Partition p : topic.partitions())
        {
            store.deleteLog(localLog(p).name());
        }
        return topic;
    }

    /** @return a producer id never handed out before, across restarts. */
    public synchronized long nextProducerId()
    {
        if (nextProducerId >= producerIdBlockEnd)
        {
            final long end = producerIdBlockEnd + PRODUCER_ID_BLOCK_SIZE;
            append(event(out ->
            {
                out.writeByte(PRODUCER_ID_BLOCK);
                out.writeLong(end);
            }));
            producerIdBlockEnd = end;
        }
        return nextProducerId++;
    }

    private void writeTopic(final String name, final Uuid id, final int partitions, final TopicConfig config)
    {
        append(event(out ->
        {
            out.writeByte(TOPIC);
            out.writeUTF(name);
            out.writeLong(id.getMostSignificantBits());
            out.writeLong(id.getLeastSignificantBits());
            out.writeInt(partitions);
            out.writeInt(config.explicit().size());
            for (final Map.Entry<String, String> e : config.explicit().entrySet())
            {
                out.writeUTF(e.getKey());
                out.writeUTF(e.getValue());
            }
        }));
    }

    private interface EventWriter
    {
        void write(DataOutputStream out) throws IOException;
    }

    private static byte[] event(final EventWriter writer)
    {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes))
        {
            writer.write(out);
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    private void append(final byte[] event)
    {
        metadata.append(event, Durability.DSYNC).join();
    }

    @Override
    public void close()
    {
        opener.close();
        byName.clear();
        byId.clear();
    }
}
