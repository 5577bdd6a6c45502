package io.directlog.storage;

import java.time.Duration;
import java.util.Objects;

/**
 * Per-log settings. Immutable; build with {@link #builder()}.
 * <p>
 * Each setting pairs a {@code *_DEFAULT}; every value is checked in {@link Builder#build()} and a bad one is
 * refused with a message naming it.
 */
public final class LogConfig
{
    /** Segment capacity: 64 MiB. */
    public static final int SEGMENT_SIZE_DEFAULT = 64 << 20;
    /** Smallest segment: 1 MiB. */
    public static final int SEGMENT_SIZE_MIN = 1 << 20;
    /** Largest segment: 1 GiB. */
    public static final int SEGMENT_SIZE_MAX = 1 << 30;
    /** Segments are whole blocks: 4096. */
    public static final int SEGMENT_SIZE_MULTIPLE = 4096;
    /** A new log's first segment: 128 KiB; each next one is 4 times bigger, up to {@link #segmentSize()}. */
    public static final int INITIAL_SEGMENT_SIZE_DEFAULT = 128 << 10;
    /** Smallest first segment: 8 KiB, the header block and one block of records. */
    public static final int INITIAL_SEGMENT_SIZE_MIN = 8 << 10;
    /** MEMORY appends are written once this many bytes are dirty: 1 MiB. */
    public static final int FLUSH_BYTES_DEFAULT = 1 << 20;
    /** ...or after this long: 50 ms. */
    public static final Duration FLUSH_INTERVAL_DEFAULT = Duration.ofMillis(50);
    /** The background fdatasync health probe period: 1 s. */
    public static final Duration SYNC_INTERVAL_DEFAULT = Duration.ofSeconds(1);
    /** Segments kept prepared ahead of the write head: 2. */
    public static final int PREPARED_SEGMENTS_DEFAULT = 2;
    /** No size retention. */
    public static final long RETENTION_BYTES_NONE = -1;

    private final int segmentSize;
    private final int initialSegmentSize;
    private final Durability durability;
    private final int flushBytes;
    private final Duration flushInterval;
    private final Duration syncInterval;
    private final int preparedSegments;
    private final long retentionBytes;
    private final Duration retentionTime;
    private final boolean zeroRecycledSegments;

    private LogConfig(final Builder b)
    {
        segmentSize = b.segmentSize;
        initialSegmentSize = b.initialSegmentSize;
        durability = b.durability;
        flushBytes = b.flushBytes;
        flushInterval = b.flushInterval;
        syncInterval = b.syncInterval;
        preparedSegments = b.preparedSegments;
        retentionBytes = b.retentionBytes;
        retentionTime = b.retentionTime;
        zeroRecycledSegments = b.zeroRecycledSegments;
    }

    /** @return the defaults. */
    public static LogConfig defaults()
    {
        return builder().build();
    }

    /** @return a builder holding the defaults. */
    public static Builder builder()
    {
        return new Builder();
    }

    /** @return a builder holding this configuration's values. */
    public Builder toBuilder()
    {
        return new Builder().segmentSize(segmentSize).initialSegmentSize(initialSegmentSize).durability(durability).flushBytes(flushBytes)
            .flushInterval(flushInterval).syncInterval(syncInterval).preparedSegments(preparedSegments)
            .retentionBytes(retentionBytes).retentionTime(retentionTime).zeroRecycledSegments(zeroRecycledSegments);
    }

    /** @return segment file capacity in bytes, header block included. */
    public int segmentSize()
    {
        return segmentSize;
    }

    /**
     * @return the size of a new log's first segment file; each next segment is 4 times the one before (or the
     *     smallest such size that holds the record being appended), up to {@link #segmentSize()}, so that a log's
     *     disk follows what it holds.
     */
    public int initialSegmentSize()
    {
        return initialSegmentSize;
    }

    /** @return the durability of appends that do not name one. */
    public Durability durability()
    {
        return durability;
    }

    /** @return dirty bytes that trigger a background write of MEMORY appends. */
    public int flushBytes()
    {
        return flushBytes;
    }

    /** @return the longest a MEMORY append stays unwritten. */
    public Duration flushInterval()
    {
        return flushInterval;
    }

    /** @return the period of the background fdatasync (health probe and volatile-cache bound). */
    public Duration syncInterval()
    {
        return syncInterval;
    }

    /** @return segments kept prepared (zeroed, synced) ahead of the write head. */
    public int preparedSegments()
    {
        return preparedSegments;
    }

    /** @return size retention in bytes, or {@link #RETENTION_BYTES_NONE}. */
    public long retentionBytes()
    {
        return retentionBytes;
    }

    /** @return age retention, or null for none. */
    public Duration retentionTime()
    {
        return retentionTime;
    }

    /**
     * @return true when a segment file retention gives back is filled with zeros again before reuse; false (the
     * default) when only its header block is, so that a log in steady state writes each byte once.
     */
    public boolean zeroRecycledSegments()
    {
        return zeroRecycledSegments;
    }

    @Override
    public boolean equals(final Object o)
    {
        if (!(o instanceof LogConfig))
        {
            return false;
        }
        final LogConfig c = (LogConfig)o;
        return segmentSize == c.segmentSize && initialSegmentSize == c.initialSegmentSize && durability == c.durability && flushBytes == c.flushBytes &&
            flushInterval.equals(c.flushInterval) && syncInterval.equals(c.syncInterval) &&
            preparedSegments == c.preparedSegments && retentionBytes == c.retentionBytes &&
            Objects.equals(retentionTime, c.retentionTime) && zeroRecycledSegments == c.zeroRecycledSegments;
    }

    @Override
    public int hashCode()
    {
        return Objects.hash(segmentSize, initialSegmentSize, durability, flushBytes, flushInterval, syncInterval, preparedSegments,
            retentionBytes, retentionTime, zeroRecycledSegments);
    }

    @Override
    public String toString()
    {
        return "LogConfig{segmentSize=" + segmentSize + ", initialSegmentSize=" + initialSegmentSize + ", durability=" + durability + ", flushBytes=" + flushBytes +
            ", flushInterval=" + flushInterval + ", syncInterval=" + syncInterval + ", preparedSegments=" +
            preparedSegments + ", retentionBytes=" + retentionBytes + ", retentionTime=" + retentionTime +
            ", zeroRecycledSegments=" + zeroRecycledSegments + '}';
    }

    /** Fluent builder; setters return this. Not thread-safe. */
    public static final class Builder
    {
        private int segmentSize = SEGMENT_SIZE_DEFAULT;
        private int initialSegmentSize = INITIAL_SEGMENT_SIZE_DEFAULT;
        private Durability durability = Durability.DSYNC;
        private int flushBytes = FLUSH_BYTES_DEFAULT;
        private Duration flushInterval = FLUSH_INTERVAL_DEFAULT;
        private Duration syncInterval = SYNC_INTERVAL_DEFAULT;
        private int preparedSegments = PREPARED_SEGMENTS_DEFAULT;
        private long retentionBytes = RETENTION_BYTES_NONE;
        private Duration retentionTime;
        private boolean zeroRecycledSegments;

        private Builder()
        {
        }

        /**

         * @param bytes segment capacity: 1 MiB to 1 GiB, a multiple of 4096.

         * @return this

         */
        public Builder segmentSize(final int bytes)
        {
            segmentSize = bytes;
            return this;
        }

        /**
         * The first rung of a log's segment-size ladder: a new log's first segment file has this size, each next one
         * 4 times the one before, up to {@link #segmentSize(int)}. Equal to the segment size, every segment is full
         * size (no ladder).
         *
         * @param bytes a power of two, at least 8 KiB and at most the segment size.
         * @return this
         */
        public Builder initialSegmentSize(final int bytes)
        {
            initialSegmentSize = bytes;
            return this;
        }

        /**

         * @param durability the default durability.

         * @return this

         */
        public Builder durability(final Durability durability)
        {
            this.durability = Objects.requireNonNull(durability, "durability");
            return this;
        }

        /**

         * @param bytes dirty bytes that trigger a write of MEMORY appends.

         * @return this

         */
        public Builder flushBytes(final int bytes)
        {
            flushBytes = bytes;
            return this;
        }

        /**

         * @param interval the longest a MEMORY append stays unwritten.

         * @return this

         */
        public Builder flushInterval(final Duration interval)
        {
            flushInterval = Objects.requireNonNull(interval, "flushInterval");
            return this;
        }

        /**

         * @param interval the background fdatasync period.

         * @return this

         */
        public Builder syncInterval(final Duration interval)
        {
            syncInterval = Objects.requireNonNull(interval, "syncInterval");
            return this;
        }

        /**

         * @param count segments prepared ahead, at least 1.

         * @return this

         */
        public Builder preparedSegments(final int count)
        {
            preparedSegments = count;
            return this;
        }

        /**

         * @param bytes size retention, or {@link #RETENTION_BYTES_NONE}.

         * @return this

         */
        public Builder retentionBytes(final long bytes)
        {
            retentionBytes = bytes;
            return this;
        }

        /**

         * @param age age retention, or null for none.

         * @return this

         */
        public Builder retentionTime(final Duration age)
        {
            retentionTime = age;
            return this;
        }

        /**
         * Whether a segment file dropped by retention is zero-filled again before the log reuses it. Without it
         * (the default) the preparer zeroes only its header block: the device writes each byte once instead of
         * twice, and the records already in the file (all with offsets below the ones it will get) are told apart
         * by their offsets. The price is in crash recovery of such a segment: damage in the records written since
         * the last sync, with valid records after it, cannot be told from a torn write there (no zero sector to
         * prove a write did not land), so it is cut as a torn tail instead of refused; see durability.md.
         *
         * @param zero true to zero-fill recycled files as new ones are.
         * @return this
         */
        public Builder zeroRecycledSegments(final boolean zero)
        {
            zeroRecycledSegments = zero;
            return this;
        }

        /**
         * @return the checked configuration.
         * @throws IllegalArgumentException naming the first bad value.
         */
        public LogConfig build()
        {
            if (segmentSize < SEGMENT_SIZE_MIN || segmentSize > SEGMENT_SIZE_MAX ||
                segmentSize % SEGMENT_SIZE_MULTIPLE != 0)
            {
                throw new IllegalArgumentException("segmentSize=" + segmentSize + " must be a multiple of " +
                    SEGMENT_SIZE_MULTIPLE + " between " + SEGMENT_SIZE_MIN + " and " + SEGMENT_SIZE_MAX);
            }
            if (initialSegmentSize < INITIAL_SEGMENT_SIZE_MIN || initialSegmentSize > segmentSize ||
                Integer.bitCount(initialSegmentSize) != 1)
            {
                throw new IllegalArgumentException("initialSegmentSize=" + initialSegmentSize + " must be a power " +
                    "of two (a multiple of " + SEGMENT_SIZE_MULTIPLE + ") from " + INITIAL_SEGMENT_SIZE_MIN +
                    " up to segmentSize=" + segmentSize);
            }
            if (flushBytes < 4096)
            {
                throw new IllegalArgumentException("flushBytes=" + flushBytes + " must be at least 4096");
            }
            requirePositive("flushInterval", flushInterval);
            requirePositive("syncInterval", syncInterval);
            if (preparedSegments < 1 || preparedSegments > 64)
            {
                throw new IllegalArgumentException("preparedSegments=" + preparedSegments + " must be 1 to 64");
            }
            if (retentionBytes != RETENTION_BYTES_NONE && retentionBytes <= 0)
            {
                throw new IllegalArgumentException("retentionBytes=" + retentionBytes + " must be positive or -1");
            }
            if (retentionTime != null && (retentionTime.isNegative() || retentionTime.isZero()))
            {
                throw new IllegalArgumentException("retentionTime=" + retentionTime + " must be positive");
            }
            return new LogConfig(this);
        }

        private static void requirePositive(final String name, final Duration d)
        {
            if (d.isNegative() || d.isZero())
            {
                throw new IllegalArgumentException(name + "=" + d + " must be positive");
            }
        }
    }
}
