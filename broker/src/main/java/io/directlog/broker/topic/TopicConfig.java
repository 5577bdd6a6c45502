package io.directlog.broker.topic;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

import io.directlog.storage.Durability;
import io.directlog.storage.LogConfig;

/**
 * A topic's settings: the Kafka topic configs the broker applies, plus DirectLog's durability. Values given at
 * creation are kept as strings (so DescribeConfigs shows what was set); defaults fill the rest.
 * <p>
 * Immutable; thread-safe.
 */
public final class TopicConfig
{
    /** Age after which whole segments are dropped; -1 keeps everything. */
    public static final String RETENTION_MS = "retention.ms";
    /** Bytes per partition above which the oldest whole segments are dropped; -1 keeps everything. */
    public static final String RETENTION_BYTES = "retention.bytes";
    /** The partition log's segment size (rounded up to 4 KiB; 1 MiB to 1 GiB); also its write page size. */
    public static final String SEGMENT_BYTES = "segment.bytes";
    /** The largest record batch a producer may send. */
    public static final String MAX_MESSAGE_BYTES = "max.message.bytes";
    /** When a Produce is acknowledged: MEMORY, DIRECT or DSYNC (see {@link Durability}). */
    public static final String DURABILITY = "directlog.durability";
    /** Only {@code delete} is served: compaction is not implemented. */
    public static final String CLEANUP_POLICY = "cleanup.policy";

    /** Kafka's default retention: 7 days. */
    public static final long RETENTION_MS_DEFAULT = 7L * 24 * 3600 * 1000;
    /** Kafka's default {@code max.message.bytes}. */
    public static final int MAX_MESSAGE_BYTES_DEFAULT = 1_048_588;

    private final Map<String, String> explicit;
    private final Map<String, String> defaults;

    private TopicConfig(final Map<String, String> explicit, final Map<String, String> defaults)
    {
        this.explicit = Collections.unmodifiableMap(new LinkedHashMap<>(explicit));
        this.defaults = defaults;
    }

    /**
     * @param segmentBytes the broker's default segment size.
     * @param durability   the broker's default durability.
     * @return the broker-wide defaults, as strings.
     */
    public static Map<String, String> defaults(final int segmentBytes, final Durability durability)
    {
        final Map<String, String> d = new LinkedHashMap<>();
        d.put(CLEANUP_POLICY, "delete");
        d.put(RETENTION_MS, Long.toString(RETENTION_MS_DEFAULT));
        d.put(RETENTION_BYTES, "-1");
        d.put(SEGMENT_BYTES, Integer.toString(segmentBytes));
        d.put(MAX_MESSAGE_BYTES, Integer.toString(MAX_MESSAGE_BYTES_DEFAULT));
        d.put(DURABILITY, durability.name());
        return Collections.unmodifiableMap(d);
    }

    /**
     * Checks configs given to CreateTopics.
     *
     * @param explicit the configs set on the topic.
     * @param defaults the broker's defaults ({@link #defaults}).
     * @return the config.
     * @throws IllegalArgumentException naming the first unknown key or bad value.
     */
    public static TopicConfig of(final Map<String, String> explicit, final Map<String, String> defaults)
    {
        for (final Map.Entry<String, String> e : explicit.entrySet())
        {
            if (!defaults.containsKey(e.getKey()))
            {
                throw new IllegalArgumentException("unknown or unsupported topic config '" + e.getKey() + "'");
            }
            if (e.getValue() == null)
            {
                throw new IllegalArgumentException("null value for topic config '" + e.getKey() + "'");
            }
        }
        final TopicConfig config = new TopicConfig(explicit, defaults);
        config.check();
        return config;
    }

    private void check()
    {
        if (!"delete".equals(value(CLEANUP_POLICY)))
        {
            throw new IllegalArgumentException("cleanup.policy '" + value(CLEANUP_POLICY) +
                "' is not supported (only 'delete')");
        }
        final long retentionMs = longValue(RETENTION_MS);
        if (retentionMs < -1 || retentionMs == 0)
        {
            throw new IllegalArgumentException("retention.ms must be -1 or positive, got " + retentionMs);
        }
        if (longValue(RETENTION_BYTES) < -1)
        {
            throw new IllegalArgumentException("retention.bytes must be -1 or more");
        }
        final long segment = longValue(SEGMENT_BYTES);
        if (segment < LogConfig.SEGMENT_SIZE_MIN || segment > LogConfig.SEGMENT_SIZE_MAX)
        {
            throw new IllegalArgumentException("segment.bytes must be within [" + LogConfig.SEGMENT_SIZE_MIN + ", " +
                LogConfig.SEGMENT_SIZE_MAX + "], got " + segment);
        }
        final long max = longValue(MAX_MESSAGE_BYTES);
        if (max < 1 || max > Integer.MAX_VALUE)
        {
            throw new IllegalArgumentException("max.message.bytes must be positive, got " + max);
        }
        durability();
    }

    private long longValue(final String key)
    {
        try
        {
            return Long.parseLong(value(key).trim());
        }
        catch (final NumberFormatException e)
        {
            throw new IllegalArgumentException(key + " must be a number, got '" + value(key) + "'", e);
        }
    }

    /**
     * @param key a config name.
     * @return its value: set on the topic, or the default.
     */
    public String value(final String key)
    {
        final String v = explicit.get(key);
        return v != null ? v : defaults.get(key);
    }

    /** @return the configs set on the topic. */
    public Map<String, String> explicit()
    {
        return explicit;
    }

    /** @return every config the topic has, with defaults. */
    public Map<String, String> all()
    {
        final Map<String, String> all = new LinkedHashMap<>(defaults);
        all.putAll(explicit);
        return all;
    }

    /** @return the largest batch a producer may send. */
    public int maxMessageBytes()
    {
        return (int)longValue(MAX_MESSAGE_BYTES);
    }

    /** @return the durability a Produce waits for. */
    public Durability durability()
    {
        try
        {
            return Durability.valueOf(value(DURABILITY).trim().toUpperCase(Locale.ROOT));
        }
        catch (final IllegalArgumentException e)
        {
            throw new IllegalArgumentException("directlog.durability must be MEMORY, DIRECT or DSYNC, got '" +
                value(DURABILITY) + "'", e);
        }
    }

    /**
     * @param base the store's default log settings (flush, sync intervals).
     * @return the settings of each partition's log.
     */
    public LogConfig logConfig(final LogConfig base)
    {
        final long segment = longValue(SEGMENT_BYTES);
        final int rounded = (int)((segment + LogConfig.SEGMENT_SIZE_MULTIPLE - 1) / LogConfig.SEGMENT_SIZE_MULTIPLE *
            LogConfig.SEGMENT_SIZE_MULTIPLE);
        final long retentionMs = longValue(RETENTION_MS);
        return base.toBuilder()
            .segmentSize(Math.min(rounded, LogConfig.SEGMENT_SIZE_MAX))
            .durability(durability())
            .retentionBytes(longValue(RETENTION_BYTES) < 0 ? LogConfig.RETENTION_BYTES_NONE : longValue(RETENTION_BYTES))
            .retentionTime(retentionMs < 0 ? null : Duration.ofMillis(retentionMs))
            .build();
    }
}
