package io.directlog.storage.log;

import java.time.Duration;

import io.directlog.storage.LogReader;
import io.directlog.storage.Record;
import io.directlog.storage.RecordBatch;
import io.directlog.storage.StoredRecord;

/**
 * A sequential consumer: remembers its position and declares it to the cache policy (pages it has yet to read
 * weigh more). Its misses page whole segments in, since it will read on.
 * <p>
 * Not thread-safe; {@link #position()} is volatile so the cache can read it from other threads.
 */
final class DefaultLogReader implements LogReader
{
    private final DefaultLog log;
    private volatile long position;
    private volatile boolean closed;

    DefaultLogReader(final DefaultLog log, final long position)
    {
        this.log = log;
        this.position = position;
    }

    @Override
    public long position()
    {
        return closed ? Long.MAX_VALUE : position;
    }

    @Override
    public void seek(final long offset)
    {
        position = offset;
    }

    @Override
    public RecordBatch poll(final int maxBytes)
    {
        final RecordBatch batch = log.read(position, maxBytes, true);
        if (!batch.isEmpty())
        {
            position = batch.nextOffset();
        }
        return batch;
    }

    @Override
    public RecordBatch poll(final int maxBytes, final Duration timeout) throws InterruptedException
    {
        final RecordBatch batch = poll(maxBytes);
        if (!batch.isEmpty() || !log.awaitAppend(position, timeout))
        {
            return batch;
        }
        return poll(maxBytes);
    }

    @Override
    public StoredRecord next()
    {
        try (RecordBatch batch = log.read(position, 1, true))
        {
            for (final Record r : batch)
            {
                position = r.nextOffset();
                return new StoredRecord(r.offset(), r.recordCount(), r.timestamp(), r.payloadBytes());
            }
            return null;
        }
    }

    @Override
    public void close()
    {
        if (!closed)
        {
            closed = true;
            log.onReaderClosed(this);
        }
    }
}
