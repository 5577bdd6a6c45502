package io.directlog.storage.log;

import java.util.Iterator;
import java.util.NoSuchElementException;

import io.directlog.storage.Record;
import io.directlog.storage.RecordBatch;
import io.directlog.storage.format.RecordDescriptor;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Whole records in a range of a buffer: a view over a pinned cache page (zero-copy) or over a read buffer the
 * batch owns. Closing unpins the page or returns the buffer. The range can hold gaps (see
 * {@link RecordDescriptor}), which iteration steps over.
 * <p>
 * Not thread-safe.
 */
final class SegmentRecordBatch implements RecordBatch
{
    static final SegmentRecordBatch EMPTY = new SegmentRecordBatch(new UnsafeBuffer(new byte[0]), 0, 0, 0, -1, null,
        4096, 0);

    private final DirectBuffer buffer;
    private final int from;
    private final int to;
    private final int count;
    private final long nextOffset;
    private final int blockSize;
    private final int base;
    private Runnable release;

    /**
     * @param buffer     the bytes.
     * @param from       buffer index of the first record.
     * @param to         buffer index after the last record.
     * @param count      records in the range.
     * @param nextOffset the offset after the last record.
     * @param release    what closing does, or null.
     * @param blockSize  the segment's block size: where gaps end.
     * @param base       the segment position of buffer index 0.
     */
    SegmentRecordBatch(final DirectBuffer buffer, final int from, final int to, final int count, final long nextOffset,
        final Runnable release, final int blockSize, final int base)
    {
        this.buffer = buffer;
        this.from = from;
        this.to = to;
        this.count = count;
        this.nextOffset = nextOffset;
        this.release = release;
        this.blockSize = blockSize;
        this.base = base;
    }

    static SegmentRecordBatch empty(final long nextOffset)
    {
        return new SegmentRecordBatch(EMPTY.buffer, 0, 0, 0, nextOffset, null, EMPTY.blockSize, 0);
    }

    @Override
    public int size()
    {
        return count;
    }

    @Override
    public long nextOffset()
    {
        return nextOffset;
    }

    @Override
    public int sizeInBytes()
    {
        return to - from;
    }

    @Override
    public Iterator<Record> iterator()
    {
        if (release == null && count > 0)
        {
            throw new IllegalStateException("record batch is closed");
        }
        return new Iterator<>()
        {
            private final RecordView view = new RecordView();
            private int position = from;
            private int remaining = count;

            @Override
            public boolean hasNext()
            {
                return remaining > 0;
            }

            @Override
            public Record next()
            {
                if (remaining <= 0)
                {
                    throw new NoSuchElementException();
                }
                int length = buffer.getInt(position + RecordDescriptor.LENGTH_OFFSET);
                if (length == 0)
                {
                    // a gap: the batch was built over it, so the next record is at the block boundary
                    position = RecordDescriptor.gapEnd(base + position, blockSize) - base;
                    length = buffer.getInt(position + RecordDescriptor.LENGTH_OFFSET);
                }
                view.wrap(buffer, position, length);
                position += RecordDescriptor.alignedLength(length);
                remaining--;
                return view;
            }
        };
    }

    @Override
    public void close()
    {
        final Runnable r = release;
        release = null;
        if (r != null)
        {
            r.run();
        }
    }

    /** A flyweight over one record; valid until the iterator moves on. */
    static final class RecordView implements Record
    {
        private final UnsafeBuffer payload = new UnsafeBuffer(0, 0);
        private DirectBuffer buffer;
        private int position;
        private int length;

        void wrap(final DirectBuffer buffer, final int position, final int length)
        {
            this.buffer = buffer;
            this.position = position;
            this.length = length;
            payload.wrap(buffer, position + RecordDescriptor.HEADER_LENGTH, length - RecordDescriptor.HEADER_LENGTH);
        }

        @Override
        public long offset()
        {
            return buffer.getLong(position + RecordDescriptor.OFFSET_OFFSET);
        }

        @Override
        public int recordCount()
        {
            return buffer.getInt(position + RecordDescriptor.COUNT_OFFSET);
        }

        @Override
        public long timestamp()
        {
            return buffer.getLong(position + RecordDescriptor.TIMESTAMP_OFFSET);
        }

        @Override
        public DirectBuffer payload()
        {
            return payload;
        }

        @Override
        public int payloadLength()
        {
            return length - RecordDescriptor.HEADER_LENGTH;
        }
    }
}
