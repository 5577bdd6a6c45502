package io.directlog.storage;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

import io.directlog.storage.spi.BlockIo;
import io.micrometer.core.instrument.MeterRegistry;
import org.agrona.BitUtil;

/**
 * Store-wide settings: the directory, the one memory budget shared by every log's cache pages, the writer
 * threads, back-pressure, and how damage found at open is handled. Immutable; build with
 * {@link #builder(Path)}.
 */
public final class StoreConfig
{
    /** The page pool's budget: 512 MiB. */
    public static final long MEMORY_BUDGET_DEFAULT = 512L << 20;
    /** How long an append waits for room in a full writer queue: 5 s. */
    public static final Duration APPEND_TIMEOUT_DEFAULT = Duration.ofSeconds(5);
    /** Bytes of each writer's bounded queue (records are copied in): 8 MiB. */
    public static final int WRITER_QUEUE_BYTES_DEFAULT = 8 << 20;
    /** Bytes paged in ahead of a sequential reader: 64 MiB (at most a quarter of the memory budget is used). */
    public static final long READ_AHEAD_BYTES_DEFAULT = 64L << 20;
    /** How long a log takes no append before its write page goes to the read cache: 5 s. */
    public static final Duration PAGE_IDLE_RELEASE_DEFAULT = Duration.ofSeconds(5);
    /** {@link Builder#writerCpus}: pin writers next to the device's completion interrupts when that means something. */
    public static final String WRITER_CPUS_AUTO = "auto";
    /** {@link Builder#writerCpus}: never pin writers. */
    public static final String WRITER_CPUS_NONE = "none";
    /** System property that turns native (O_DIRECT) I/O off, forcing the buffered fallback. */
    public static final String BUFFERED_IO_PROP_NAME = "directlog.io.buffered";

    private final Path directory;
    private final long memoryBudget;
    private final int writerThreads;
    private final Duration appendTimeout;
    private final int writerQueueBytes;
    private final LogConfig defaultLogConfig;
    private final RecoveryMode recoveryMode;
    private final MeterRegistry meterRegistry;
    private final BlockIo blockIo;
    private final boolean allowBufferedFallback;
    private final long readAheadBytes;
    private final String writerCpus;
    private final Duration pageIdleRelease;

    private StoreConfig(final Builder b)
    {
        directory = b.directory;
        memoryBudget = b.memoryBudget;
        writerThreads = b.writerThreads;
        appendTimeout = b.appendTimeout;
        writerQueueBytes = b.writerQueueBytes;
        defaultLogConfig = b.defaultLogConfig;
        recoveryMode = b.recoveryMode;
        meterRegistry = b.meterRegistry;
        blockIo = b.blockIo;
        allowBufferedFallback = b.allowBufferedFallback;
        readAheadBytes = b.readAheadBytes;
        writerCpus = b.writerCpus;
        pageIdleRelease = b.pageIdleRelease;
    }

    /**
     * @param directory where the store keeps its logs; created if missing.
     * @return a builder holding the defaults.
     */
    public static Builder builder(final Path directory)
    {
        return new Builder(directory);
    }

    /** @return the store's directory. */
    public Path directory()
    {
        return directory;
    }

    /** @return bytes of native memory all cache pages together may use. */
    public long memoryBudget()
    {
        return memoryBudget;
    }

    /** @return writer threads; each log is pinned to one. */
    public int writerThreads()
    {
        return writerThreads;
    }

    /** @return how long an append waits for room in a full writer queue before failing. */
    public Duration appendTimeout()
    {
        return appendTimeout;
    }

    /** @return bytes of each writer's bounded queue. */
    public int writerQueueBytes()
    {
        return writerQueueBytes;
    }

    /** @return the configuration of logs opened without one. */
    public LogConfig defaultLogConfig()
    {
        return defaultLogConfig;
    }

    /** @return what opening does with damage. */
    public RecoveryMode recoveryMode()
    {
        return recoveryMode;
    }

    /** @return the registry for meters, or null for none. */
    @SuppressWarnings("exports") // Micrometer is optional (requires static): see module-info
    public MeterRegistry meterRegistry()
    {
        return meterRegistry;
    }

    /** @return the I/O layer to use, or null to choose native O_DIRECT (or the buffered fallback). */
    public BlockIo blockIo()
    {
        return blockIo;
    }

    /** @return whether the store may run buffered (fdatasync per flush) where O_DIRECT is unavailable. */
    public boolean allowBufferedFallback()
    {
        return allowBufferedFallback;
    }

    /**
     * @return how many bytes of rolled segments are paged in ahead of a sequential reader, or 0 for no read-ahead.
     * Whole segments only, and never more than a quarter of the memory budget: with the default 64 MiB and
     * 64 MiB segments a reader has the next segment read while it reads the current one.
     */
    public long readAheadBytes()
    {
        return readAheadBytes;
    }

    /**
     * @return where writer threads run: {@link #WRITER_CPUS_AUTO}, {@link #WRITER_CPUS_NONE} or a CPU list such
     * as {@code "1"} or {@code "0-3,6"}.
     */
    public String writerCpus()
    {
        return writerCpus;
    }

    /**
     * @return how long a log takes no append before its write page, which holds its newest records and is charged
     * against the memory budget, is handed to the read cache (evictable); its next append takes a new page.
     */
    public Duration pageIdleRelease()
    {
        return pageIdleRelease;
    }

    /** Fluent builder; setters return this. Not thread-safe. */
    public static final class Builder
    {
        private final Path directory;
        private long memoryBudget = MEMORY_BUDGET_DEFAULT;
        private int writerThreads = Math.min(4, Runtime.getRuntime().availableProcessors());
        private Duration appendTimeout = APPEND_TIMEOUT_DEFAULT;
        private int writerQueueBytes = WRITER_QUEUE_BYTES_DEFAULT;
        private LogConfig defaultLogConfig = LogConfig.defaults();
        private RecoveryMode recoveryMode = RecoveryMode.TOLERATE_TORN_TAIL;
        private MeterRegistry meterRegistry;
        private BlockIo blockIo;
        private boolean allowBufferedFallback = true;
        private long readAheadBytes = READ_AHEAD_BYTES_DEFAULT;
        private String writerCpus = WRITER_CPUS_AUTO;
        private Duration pageIdleRelease = PAGE_IDLE_RELEASE_DEFAULT;

        private Builder(final Path directory)
        {
            this.directory = Objects.requireNonNull(directory, "directory");
        }

        /**

         * @param bytes the page pool's budget.

         * @return this

         */
        public Builder memoryBudget(final long bytes)
        {
            memoryBudget = bytes;
            return this;
        }

        /**

         * @param threads writer threads, 1 to 64.

         * @return this

         */
        public Builder writerThreads(final int threads)
        {
            writerThreads = threads;
            return this;
        }

        /**

         * @param timeout how long a full queue may block an append.

         * @return this

         */
        public Builder appendTimeout(final Duration timeout)
        {
            appendTimeout = Objects.requireNonNull(timeout, "appendTimeout");
            return this;
        }

        /**

         * @param bytes each writer's queue, a power of two from 64 KiB to 1 GiB.

         * @return this

         */
        public Builder writerQueueBytes(final int bytes)
        {
            writerQueueBytes = bytes;
            return this;
        }

        /**

         * @param config configuration of logs opened without one.

         * @return this

         */
        public Builder defaultLogConfig(final LogConfig config)
        {
            defaultLogConfig = Objects.requireNonNull(config, "defaultLogConfig");
            return this;
        }

        /**

         * @param mode what opening does with damage.

         * @return this

         */
        public Builder recoveryMode(final RecoveryMode mode)
        {
            recoveryMode = Objects.requireNonNull(mode, "recoveryMode");
            return this;
        }

        /**

         * @param registry where meters go, or null.

         * @return this

         */
        @SuppressWarnings("exports") // Micrometer is optional (requires static): see module-info
        public Builder meterRegistry(final MeterRegistry registry)
        {
            meterRegistry = registry;
            return this;
        }

        /**

         * @param io the I/O layer (tests pass a simulated device), or null for the default.

         * @return this

         */
        public Builder blockIo(final BlockIo io)
        {
            blockIo = io;
            return this;
        }

        /**

         * @param allow run buffered plus fdatasync where O_DIRECT is unavailable.

         * @return this

         */
        public Builder allowBufferedFallback(final boolean allow)
        {
            allowBufferedFallback = allow;
            return this;
        }

        /**
         * @param bytes bytes of rolled segments paged in ahead of a sequential reader, 0 to turn read-ahead off.
         * @return this
         */
        public Builder readAheadBytes(final long bytes)
        {
            readAheadBytes = bytes;
            return this;
        }

        /**
         * Where the writer threads run. A writer blocked in an O_DIRECT write is woken by the device's completion
         * interrupt; when that lands on another CPU than the writer's, the wake-up costs an inter-processor
         * interrupt (on a VM, a vCPU wake-up through the hypervisor): 20 us or more of a 45 us write measured on
         * a 2-vCPU VM whose disk has a single interrupt queue.
         *
         * @param cpus {@link #WRITER_CPUS_AUTO} (the default: pin the writers to the CPUs that take the store
         *             device's completion interrupts, when those are some but not all of the CPUs this process may
         *             use; otherwise do not pin), {@link #WRITER_CPUS_NONE} (never pin), or a CPU list in the
         *             {@code taskset -c} format, e.g. {@code "1"} or {@code "0-3,6"} (pin there).
         * @return this
         */
        public Builder writerCpus(final String cpus)
        {
            writerCpus = Objects.requireNonNull(cpus, "writerCpus");
            return this;
        }

        /**
         * How long a log may take no append before it gives its write page back: the page then becomes read cache
         * (evicted when the budget needs room), and the log's next append takes a new page from the next block.
         * Many logs that are seldom written then hold budget only while they are written (issue 18); a shorter
         * time frees memory sooner, at the cost of a new page (a mapping) for a log that resumes after it.
         *
         * @param idle a positive duration (default {@link #PAGE_IDLE_RELEASE_DEFAULT}).
         * @return this
         */
        public Builder pageIdleRelease(final Duration idle)
        {
            pageIdleRelease = Objects.requireNonNull(idle, "pageIdleRelease");
            return this;
        }

        /**
         * @return the checked configuration.
         * @throws IllegalArgumentException naming the first bad value.
         */
        public StoreConfig build()
        {
            if (memoryBudget < LogConfig.SEGMENT_SIZE_MIN)
            {
                throw new IllegalArgumentException("memoryBudget=" + memoryBudget + " must hold at least one " +
                    "write page (" + LogConfig.SEGMENT_SIZE_MIN + " bytes)");
            }
            if (writerThreads < 1 || writerThreads > 64)
            {
                throw new IllegalArgumentException("writerThreads=" + writerThreads + " must be 1 to 64");
            }
            if (appendTimeout.isNegative())
            {
                throw new IllegalArgumentException("appendTimeout=" + appendTimeout + " must not be negative");
            }
            if (writerQueueBytes < (64 << 10) || !BitUtil.isPowerOfTwo(writerQueueBytes) || writerQueueBytes > (1 << 30))
            {
                throw new IllegalArgumentException("writerQueueBytes=" + writerQueueBytes +
                    " must be a power of two from 65536 to 1073741824");
            }
            checkPageIdleRelease(pageIdleRelease);
            if (readAheadBytes < 0)
            {
                throw new IllegalArgumentException("readAheadBytes=" + readAheadBytes + " must not be negative");
            }
            if (!WRITER_CPUS_AUTO.equals(writerCpus) && !WRITER_CPUS_NONE.equals(writerCpus))
            {
                try
                {
                    io.directlog.nativeio.CpuSet.parse(writerCpus);
                }
                catch (final IllegalArgumentException e)
                {
                    throw new IllegalArgumentException("writerCpus='" + writerCpus + "' must be \"" +
                        WRITER_CPUS_AUTO + "\", \"" + WRITER_CPUS_NONE + "\" or a CPU list: " + e.getMessage(), e);
                }
            }
            return new StoreConfig(this);
        }

        private static void checkPageIdleRelease(final Duration idle)
        {
            if (idle.isNegative() || idle.isZero())
            {
                throw new IllegalArgumentException("pageIdleRelease=" + idle + " must be positive");
            }
            try
            {
                idle.toNanos(); // the writer compares it in nanoseconds
            }
            catch (final ArithmeticException e)
            {
                throw new IllegalArgumentException("pageIdleRelease=" + idle + " is too long: at most " +
                    Duration.ofNanos(Long.MAX_VALUE), e);
            }
        }
    }
}
