package io.directlog.broker.group;

import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

import io.directlog.storage.Durability;
import io.directlog.storage.Log;
import io.directlog.storage.LogConfig;
import io.directlog.storage.LogReader;
import io.directlog.storage.LogStore;
import io.directlog.storage.StoredRecord;

/**
 * A single node's group log: one DirectLog log, appended with DSYNC. This node always coordinates it (epoch 0).
 * <p>
 * Thread-safe as {@link Log} is.
 */
final class LocalGroupLog implements GroupLog
{
    static final String NAME = "directlog.offsets";

    /** Segment size of the broker's internal logs: their events are small. */
    static final int INTERNAL_SEGMENT_SIZE = 4 << 20;

    private final Log log;

    LocalGroupLog(final LogStore store)
    {
        // small segments: every open log with data holds a write page of its segment size from the memory budget
        log = store.log(NAME, store.config().defaultLogConfig().toBuilder().segmentSize(INTERNAL_SEGMENT_SIZE)
            .durability(Durability.DSYNC).retentionBytes(LogConfig.RETENTION_BYTES_NONE).retentionTime(null).build());
    }

    @Override
    public long coordinatorEpoch()
    {
        return 0;
    }

    @Override
    public CompletableFuture<Long> append(final byte[] event)
    {
        return log.append(event, Durability.DSYNC);
    }

    @Override
    public void replay(final Consumer<byte[]> events)
    {
        final long end = log.endOffset();
        try (LogReader reader = log.reader(log.startOffset()))
        {
            StoredRecord r;
            while (reader.position() < end && (r = reader.next()) != null)
            {
                events.accept(r.payload());
            }
        }
    }
}
