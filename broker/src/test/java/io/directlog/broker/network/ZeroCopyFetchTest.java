package io.directlog.broker.network;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.BaseRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.RequestUtils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.directlog.broker.protocol.EncodedResponse;
import io.directlog.broker.protocol.PinnedRecords;
import io.directlog.broker.protocol.ResponseEncoder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;

/**
 * Fetch responses splice the stored batches' own memory into the bytes written (no copy in user space), are
 * byte-identical to kafka-clients' own serialization, and give the batches back once written or dropped.
 */
class ZeroCopyFetchTest
{
    private static final Uuid TOPIC_ID = Uuid.fromString("AAAAAAAAAAAAAAAAAAAAAQ");

    private final AtomicInteger released = new AtomicInteger();

    @ParameterizedTest
    @ValueSource(shorts = {4, 11, 12, 13, 16, 17})
    void splicedResponseIsByteForByteKafkasSerialization(final short version)
    {
        final ByteBuffer first = direct(batch(0, "alpha", "beta"));
        final ByteBuffer second = direct(batch(2, "gamma"));
        final FetchResponseData pinned = response(new PinnedRecords(List.of(first, second), released::incrementAndGet));
        final FetchResponseData copied = response(MemoryRecords.readableRecords(concat(first, second)));
        final RequestHeader header = new RequestHeader(ApiKeys.FETCH, version, "zero-copy-test", 42);

        final EncodedResponse encoded = ResponseEncoder.encode(ByteBufAllocator.DEFAULT, header, version, pinned);
        final ByteBuffer expected = RequestUtils.serialize(header.toResponseHeader().data(),
            header.toResponseHeader().headerVersion(), copied, version);
        assertArrayEquals(bytes(expected), bytes(encoded.bytes()));
        assertTrue(encoded.bytes().isDirect(), "every component direct, so the NIO transport writes it as it is");
        encoded.discard();
        assertEquals(1, released.get());
    }

    @Test
    void theBatchesMemoryIsWrittenNotACopyOfIt()
    {
        final ByteBuffer stored = direct(batch(0, "original"));
        final FetchResponseData resp = response(new PinnedRecords(List.of(stored), released::incrementAndGet));
        final EncodedResponse encoded = ResponseEncoder.encode(ByteBufAllocator.DEFAULT,
            new RequestHeader(ApiKeys.FETCH, (short)16, "zero-copy-test", 1), (short)16, resp);
        final int last = stored.limit() - 1;
        final byte before = stored.get(last);
        final int at = indexOf(encoded.bytes(), bytes(stored));
        stored.put(last, (byte)(before + 1)); // a change to the page shows through: the response views it
        assertEquals((byte)(before + 1), encoded.bytes().getByte(at + last));
        assertEquals(0, released.get(), "still pinned until written");
        encoded.afterWrite();
        encoded.bytes().release();
        assertEquals(1, released.get());
    }

    @Test
    void aFailedSerializationReleasesThePinnedBatches()
    {
        final FetchResponseData resp = response(new PinnedRecords(List.of(direct(batch(0, "x"))),
            released::incrementAndGet));
        resp.responses().get(0).setTopic(null); // not nullable at v12: serialization throws
        try
        {
            ResponseEncoder.encode(ByteBufAllocator.DEFAULT,
                new RequestHeader(ApiKeys.FETCH, (short)12, "zero-copy-test", 1), (short)12, resp);
        }
        catch (final RuntimeException expected)
        {
            assertEquals(1, released.get());
            return;
        }
        throw new AssertionError("a null topic name serialized at Fetch v12");
    }

    @Test
    void theConnectionReleasesPinnedBatchesOnceWritten()
    {
        final EmbeddedChannel channel = connection(request -> CompletableFuture.completedFuture(
            response(new PinnedRecords(List.of(direct(batch(0, "written"))), released::incrementAndGet))));
        channel.writeInbound(fetchFrame(7));
        final ByteBuf out = channel.readOutbound();
        assertNotNull(out, "a response was written");
        assertEquals(1, released.get(), "released once the socket took the bytes");
        out.release();
        channel.finishAndReleaseAll();
    }

    @Test
    void aResponseForAClosedConnectionIsReleasedWhenItCompletes()
    {
        final CompletableFuture<ApiMessage> later = new CompletableFuture<>();
        final EmbeddedChannel channel = connection(request -> later);
        channel.writeInbound(fetchFrame(8));
        channel.close();
        later.complete(response(new PinnedRecords(List.of(direct(batch(0, "late"))), released::incrementAndGet)));
        channel.runPendingTasks();
        assertNull(channel.readOutbound(), "nothing written to a closed connection");
        assertEquals(1, released.get(), "a response that will never be written gives its batches back");
        assertFalse(channel.finishAndReleaseAll());
    }

    private static EmbeddedChannel connection(final RequestHandler handler)
    {
        return new EmbeddedChannel(new KafkaConnection(handler, new RequestMetrics(new SimpleMeterRegistry()),
            Runnable::run));
    }

    private static ByteBuf fetchFrame(final int correlationId)
    {
        final short version = 16;
        final FetchRequestData req = new FetchRequestData().setMaxWaitMs(0).setMinBytes(1).setMaxBytes(1 << 20);
        final RequestHeader header = new RequestHeader(ApiKeys.FETCH, version, "zero-copy-test", correlationId);
        return Unpooled.wrappedBuffer(RequestUtils.serialize(header.data(), header.headerVersion(), req, version));
    }

    private static FetchResponseData response(final BaseRecords records)
    {
        final FetchResponseData resp = new FetchResponseData().setErrorCode(Errors.NONE.code());
        final FetchResponseData.FetchableTopicResponse t = new FetchResponseData.FetchableTopicResponse()
            .setTopic("t").setTopicId(TOPIC_ID);
        t.partitions().add(new FetchResponseData.PartitionData().setPartitionIndex(0).setHighWatermark(3)
            .setLastStableOffset(3).setLogStartOffset(0).setRecords(records));
        t.partitions().add(new FetchResponseData.PartitionData().setPartitionIndex(1).setHighWatermark(0)
            .setLastStableOffset(0).setLogStartOffset(0).setRecords(MemoryRecords.EMPTY));
        resp.responses().add(t);
        return resp;
    }

    private static ByteBuffer batch(final long baseOffset, final String... values)
    {
        final SimpleRecord[] records = new SimpleRecord[values.length];
        for (int i = 0; i < values.length; i++)
        {
            records[i] = new SimpleRecord(values[i].getBytes(StandardCharsets.UTF_8));
        }
        return MemoryRecords.withRecords(baseOffset, Compression.NONE, records).buffer();
    }

    private static ByteBuffer direct(final ByteBuffer heap)
    {
        final ByteBuffer d = ByteBuffer.allocateDirect(heap.remaining());
        d.put(heap.duplicate()).flip();
        return d;
    }

    private static ByteBuffer concat(final ByteBuffer a, final ByteBuffer b)
    {
        final ByteBuffer out = ByteBuffer.allocate(a.remaining() + b.remaining());
        out.put(a.duplicate()).put(b.duplicate()).flip();
        return out;
    }

    private static byte[] bytes(final ByteBuffer b)
    {
        final byte[] out = new byte[b.remaining()];
        b.duplicate().get(out);
        return out;
    }

    private static byte[] bytes(final ByteBuf b)
    {
        final byte[] out = new byte[b.readableBytes()];
        b.getBytes(b.readerIndex(), out);
        return out;
    }

    private static int indexOf(final ByteBuf haystack, final byte[] needle)
    {
        final byte[] all = bytes(haystack);
        outer:
        for (int i = 0; i + needle.length <= all.length; i++)
        {
            for (int j = 0; j < needle.length; j++)
            {
                if (all[i + j] != needle[j])
                {
                    continue outer;
                }
            }
            return i;
        }
        throw new AssertionError("the stored batch is not in the response");
    }
}
