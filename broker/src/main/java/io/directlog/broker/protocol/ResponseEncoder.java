package io.directlog.broker.protocol;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.record.internal.BaseRecords;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.ResponseHeader;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;

/**
 * Serializes a response into Netty buffers. A response without {@link PinnedRecords} is serialized as before (one
 * buffer); a Fetch response with them is serialized field by field into one pooled direct buffer that leaves out
 * the records' bytes, and the records' own memory is spliced in between as components of a composite buffer, so
 * that the socket write gathers the stored batches straight from the engine's pages (zero copy in user space).
 * Every component is direct memory, so Netty's NIO transport writes the composite as it is instead of copying it
 * into a direct buffer first.
 * <p>
 * Stateless; thread-safe.
 */
public final class ResponseEncoder
{
    private ResponseEncoder()
    {
    }

    /**
     * @param alloc       where the serialized fields go.
     * @param header      the request's header.
     * @param bodyVersion the version to write the body at.
     * @param response    the response body; its pinned records are owned by the result (or released on failure).
     * @return the bytes without the length prefix.
     */
    public static EncodedResponse encode(final ByteBufAllocator alloc, final RequestHeader header,
        final short bodyVersion, final ApiMessage response)
    {
        final List<PinnedRecords> pins = pinnedIn(response);
        try
        {
            if (pins.isEmpty())
            {
                return new EncodedResponse(Unpooled.wrappedBuffer(
                    KafkaCodec.encodeResponse(header, bodyVersion, response)), List.of());
            }
            return new EncodedResponse(splice(alloc, header, bodyVersion, response, pins), pins);
        }
        catch (final RuntimeException e)
        {
            release(pins);
            throw e;
        }
    }

    /**
     * Releases the pinned records of a response that will not be encoded (a Fetch read again after parking, a
     * response dropped on an error).
     *
     * @param response any response.
     */
    public static void releasePinned(final ApiMessage response)
    {
        release(pinnedIn(response));
    }

    static void release(final List<PinnedRecords> pins)
    {
        RuntimeException first = null;
        for (final PinnedRecords p : pins)
        {
            try
            {
                p.release();
            }
            catch (final RuntimeException e)
            {
                first = first == null ? e : first;
            }
        }
        if (first != null)
        {
            throw first;
        }
    }

    private static List<PinnedRecords> pinnedIn(final ApiMessage response)
    {
        if (!(response instanceof FetchResponseData fetch))
        {
            return List.of();
        }
        final List<PinnedRecords> out = new ArrayList<>();
        for (final FetchResponseData.FetchableTopicResponse t : fetch.responses())
        {
            for (final FetchResponseData.PartitionData p : t.partitions())
            {
                if (p.records() instanceof PinnedRecords pinned)
                {
                    out.add(pinned);
                }
            }
        }
        return out;
    }

    private static ByteBuf splice(final ByteBufAllocator alloc, final RequestHeader header, final short bodyVersion,
        final ApiMessage response, final List<PinnedRecords> pins)
    {
        final ResponseHeader rh = header.toResponseHeader();
        final short headerVersion = rh.headerVersion();
        final ObjectSerializationCache cache = new ObjectSerializationCache();
        final int total = rh.data().size(cache, headerVersion) + response.size(cache, bodyVersion);
        int pinnedBytes = 0;
        for (final PinnedRecords p : pins)
        {
            pinnedBytes += p.sizeInBytes();
        }
        final int fieldBytes = total - pinnedBytes;
        final ByteBuf fields = alloc.directBuffer(fieldBytes, fieldBytes);
        try
        {
            final Splicer out = new Splicer(fields.nioBuffer(0, fieldBytes));
            rh.data().write(out, cache, headerVersion);
            response.write(out, cache, bodyVersion);
            return out.compose(fields, pins);
        }
        finally
        {
            fields.release(); // the composite holds its own slices
        }
    }

    /** Writes fields into one buffer and notes where each pinned record set goes between them. */
    private static final class Splicer extends ByteBufferAccessor
    {
        private final List<Integer> at = new ArrayList<>();
        private final List<PinnedRecords> spliced = new ArrayList<>();

        Splicer(final ByteBuffer fields)
        {
            super(fields);
        }

        @Override
        public void writeRecords(final BaseRecords records)
        {
            if (records instanceof PinnedRecords pinned)
            {
                at.add(buffer().position());
                spliced.add(pinned);
            }
            else
            {
                super.writeRecords(records);
            }
        }

        ByteBuf compose(final ByteBuf fields, final List<PinnedRecords> pins)
        {
            final int end = buffer().position();
            if (end != fields.capacity() || spliced.size() != pins.size())
            {
                throw new IllegalStateException("fetch response sized " + fields.capacity() + " field bytes and " +
                    pins.size() + " record sets but wrote " + end + " and " + spliced.size());
            }
            final CompositeByteBuf out = Unpooled.compositeBuffer(Integer.MAX_VALUE);
            int from = 0;
            for (int i = 0; i < spliced.size(); i++)
            {
                final int to = at.get(i);
                if (to > from)
                {
                    out.addComponent(true, fields.retainedSlice(from, to - from));
                }
                for (final ByteBuffer view : spliced.get(i).views())
                {
                    out.addComponent(true, Unpooled.wrappedBuffer(view));
                }
                from = to;
            }
            if (end > from)
            {
                out.addComponent(true, fields.retainedSlice(from, end - from));
            }
            return out;
        }
    }
}
