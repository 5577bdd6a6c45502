package io.directlog.storage.log;

import java.util.Iterator;
import java.util.NoSuchElementException;

import io.directlog.storage.Record;
import io.directlog.storage.RecordBatch;
import io.directlog.storage.buffer.Buffers;
import io.directlog.storage.format.RecordDescriptor;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.AtomicBuffer;

/**
 * Whole records in a range of a buffer: a view over a pinned cache page (zero-copy) or over a read buffer the
 * batch owns. Closing unpins the page or returns the buffer. The range can hold gaps (see
 * {@link RecordDescriptor}), which iteration steps over.
 * <p>
 * Views after close: the memory behind a batch is reused (a page evicted, a read buffer handed to the next read)
 * or freed (at store close) once the batch closes, so a view that still pointed at it would read other records'
 * bytes or crash the JVM. Close therefore detaches every record view the batch handed out: a detached view's
 * accessors throw IllegalStateException, and its payload buffer is wrapped around zero bytes, so Agrona's bounds
 * check (on unless {@code agrona.disable.bounds.checks} is set) throws on any read. The hot path pays one null
 * check per accessor, and one detach per iterator at close. In checked mode ({@link #CHECKED_VIEWS}) each
 * {@code payload()} call returns a buffer that checks, on every access, that its record is still the one the
 * view shows: a payload kept after the iterator moved on, or after close, throws at the call that misuses it.
 * <p>
 * Not thread-safe.
 */
final class SegmentRecordBatch implements RecordBatch
{
    /** Checked views, see {@link RecordBatch#CHECKED_VIEWS_PROP_NAME}: read once. */
    static final boolean CHECKED_VIEWS = Boolean.getBoolean(RecordBatch.CHECKED_VIEWS_PROP_NAME);
    private static final byte[] NO_BYTES = new byte[0];

    static final SegmentRecordBatch EMPTY = new SegmentRecordBatch(Buffers.wrap(new byte[0]), 0, 0, 0, -1, null,
        4096, 0);

    private final DirectBuffer buffer;
    private final int from;
    private final int to;
    private final int count;
    private final long nextOffset;
    private final int blockSize;
    private final int base;
    private Runnable release;
    private boolean closed;
    /** The views handed out (one per iterator; most batches have one): detached at close. */
    private RecordView firstView;
    private java.util.List<RecordView> moreViews;

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
        if (closed || (release == null && count > 0))
        {
            throw new IllegalStateException("record batch is closed");
        }
        if (count == 0)
        {
            return java.util.Collections.emptyIterator(); // the shared EMPTY batch must not collect views
        }
        final RecordView newView = new RecordView();
        if (firstView == null)
        {
            firstView = newView;
        }
        else
        {
            if (moreViews == null)
            {
                moreViews = new java.util.ArrayList<>();
            }
            moreViews.add(newView);
        }
        return new Iterator<>()
        {
            private final RecordView view = newView;
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
                if (closed)
                {
                    throw new IllegalStateException("record batch is closed");
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
        if (!closed)
        {
            closed = true;
            // before the release: once the memory is released no view may point at it
            if (firstView != null)
            {
                firstView.detach();
                if (moreViews != null)
                {
                    for (final RecordView v : moreViews)
                    {
                        v.detach();
                    }
                }
            }
        }
        final Runnable r = release;
        release = null;
        if (r != null)
        {
            r.run();
        }
    }

    /** A flyweight over one record; valid until the iterator moves on, and only until the batch is closed. */
    static final class RecordView implements Record
    {
        private final AtomicBuffer payload = Buffers.empty();
        private DirectBuffer buffer;
        private int position;
        private int length;
        /** Moves on each wrap and at detach: what a checked payload compares with the one it was made at. */
        private int generation;

        void wrap(final DirectBuffer buffer, final int position, final int length)
        {
            this.buffer = buffer;
            this.position = position;
            this.length = length;
            generation++;
            payload.wrap(buffer, position + RecordDescriptor.HEADER_LENGTH, length - RecordDescriptor.HEADER_LENGTH);
        }

        /** The batch closed: nothing of this view may reach its memory any more. */
        void detach()
        {
            buffer = null;
            length = RecordDescriptor.HEADER_LENGTH;
            generation++;
            payload.wrap(NO_BYTES);
        }

        private DirectBuffer buffer()
        {
            final DirectBuffer b = buffer;
            if (b == null)
            {
                throw new IllegalStateException(CLOSED_MESSAGE);
            }
            return b;
        }

        @Override
        public long offset()
        {
            return buffer().getLong(position + RecordDescriptor.OFFSET_OFFSET);
        }

        @Override
        public int recordCount()
        {
            return buffer().getInt(position + RecordDescriptor.COUNT_OFFSET);
        }

        @Override
        public long timestamp()
        {
            return buffer().getLong(position + RecordDescriptor.TIMESTAMP_OFFSET);
        }

        @Override
        public DirectBuffer payload()
        {
            buffer();
            return CHECKED_VIEWS ? CheckedPayload.of(this, payload, generation) : payload;
        }

        @Override
        public int payloadLength()
        {
            buffer();
            return length - RecordDescriptor.HEADER_LENGTH;
        }

        int generation()
        {
            return generation;
        }

        boolean isDetached()
        {
            return buffer == null;
        }
    }

    static final String CLOSED_MESSAGE = "record view used after its RecordBatch was closed: the memory behind it " +
        "is reused or freed; copy what you need (Record.payloadBytes()) before closing the batch";

    /**
     * The payload of checked mode: a {@link DirectBuffer} proxy that checks, before each call, that its view
     * still shows the record it was taken from. Slow (reflection per call): a debugging mode, like Netty's
     * paranoid leak detection.
     */
    static final class CheckedPayload implements java.lang.reflect.InvocationHandler
    {
        private final RecordView view;
        private final DirectBuffer payload;
        private final int generation;

        private CheckedPayload(final RecordView view, final DirectBuffer payload, final int generation)
        {
            this.view = view;
            this.payload = payload;
            this.generation = generation;
        }

        static DirectBuffer of(final RecordView view, final DirectBuffer payload, final int generation)
        {
            return (DirectBuffer)java.lang.reflect.Proxy.newProxyInstance(DirectBuffer.class.getClassLoader(),
                new Class<?>[] {DirectBuffer.class}, new CheckedPayload(view, payload, generation));
        }

        @Override
        public Object invoke(final Object proxy, final java.lang.reflect.Method method, final Object[] args)
            throws Throwable
        {
            if (method.getDeclaringClass() == Object.class)
            {
                return switch (method.getName())
                {
                    case "equals" -> proxy == args[0];
                    case "hashCode" -> System.identityHashCode(proxy);
                    default -> "CheckedPayload{" + payload + '}';
                };
            }
            if (view.generation() != generation)
            {
                throw new IllegalStateException(view.isDetached() ? CLOSED_MESSAGE : "payload view used after its " +
                    "iterator moved on to the next record: it shows that record now; copy what you need first");
            }
            try
            {
                return method.invoke(payload, args);
            }
            catch (final java.lang.reflect.InvocationTargetException e)
            {
                throw e.getCause();
            }
        }
    }
}
