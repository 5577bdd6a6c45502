package io.directlog.storage.log;

import java.io.IOException;

import io.directlog.storage.format.SegmentHeaderDescriptor;
import io.directlog.storage.page.PageMemory;

/**
 * Gives a cold segment its in-memory index: the persisted one ({@code <seq>.idx}) when it is valid and matches,
 * or one built by scanning the file in chunks, once. Readers (reads and offsetForTimestamp), the syncer
 * (retention by age) and truncation ask for it.
 * <p>
 * Thread-safe: under the segment's {@code loadLock} (the last lock in {@link LogLocks}' order).
 */
final class SegmentIndexLoader
{
    private final ReadSource log;
    private final LogContext context;

    SegmentIndexLoader(final ReadSource log, final LogContext context)
    {
        this.log = log;
        this.context = context;
    }

    /**
     * Loads a cold segment's persisted index ({@code <seq>.idx}) if it is valid and matches, or else builds it by
     * scanning the file in chunks (once). Readers, the syncer (retention by age) and truncateTo call it.
     */
    void ensureIndex(final Segment segment) throws IOException
    {
        if (segment.index() != null)
        {
            return;
        }
        synchronized (segment.loadLock())
        {
            if (segment.index() != null)
            {
                return;
            }
            if (loadPersistedIndex(segment))
            {
                return;
            }
            final SegmentIndex index = new SegmentIndex(segment.capacity());
            final RecordScanner scanner = new RecordScanner(segment.blockSize());
            int position = SegmentHeaderDescriptor.LENGTH;
            long expected = segment.baseOffset();
            int chunk = context.readBuffers().bufferSize();
            while (position < segment.capacity())
            {
                final int chunkStart = log.block().down(position);
                final int length = log.block().up(Math.min(chunk, segment.capacity() - chunkStart));
                final PageMemory memory = context.readBuffers().acquire(length);
                try
                {
                    final int read = segment.read(memory.byteBuffer(), 0, length, chunkStart);
                    context.cache().onMiss(read);
                    final RecordScanner.Stop stop = scanner.scan(memory.buffer(), position - chunkStart, read,
                        expected, log.recordLogId(), index, chunkStart, segment.capacity());
                    if (scanner.records() > 0)
                    {
                        segment.maxTimestamp(scanner.lastTimestamp());
                    }
                    position = chunkStart + scanner.position();
                    expected = scanner.nextOffset();
                    if (stop != RecordScanner.Stop.LIMIT || read < length)
                    {
                        break;
                    }
                    chunk = scanner.records() == 0 ? chunk * 2 : context.readBuffers().bufferSize();
                }
                finally
                {
                    context.readBuffers().release(memory);
                }
            }
            segment.publishScannedEnd(position);
            segment.index(index);
        }
    }

    /**
     * Publishes a rolled segment's persisted index ({@code <seq>.idx}) if it is valid and matches the segment. Under
     * the segment's load lock.
     *
     * @return false when there is none to use.
     */
    boolean loadPersistedIndex(final Segment segment)
    {
        final IndexFile.Loaded loaded = IndexFile.read(context.io(), log.directory(), log.logId(), segment);
        if (loaded == null || segment.sequence() == log.activeSequence() || loaded.endOffset() != segment.endOffset())
        {
            return false;
        }
        segment.publishScannedEnd(loaded.endPosition());
        segment.maxTimestamp(loaded.maxTimestamp());
        segment.indexPersisted(true);
        segment.index(loaded.index());
        return true;
    }
}
