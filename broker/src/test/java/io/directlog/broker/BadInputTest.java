package io.directlog.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Malformed and hostile input closes that connection or is answered with an error; the broker stays up. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@ExtendWith(NettyLeakCheck.class)
class BadInputTest
{
    @RegisterExtension
    final RunningBroker running = new RunningBroker("bad", dir -> BrokerConfig.builder(dir).port(0)
        .segmentBytes(1 << 20).memoryBudget(64L << 20).socketRequestMaxBytes(1 << 20));

    private void assertBrokerServes() throws IOException
    {
        try (RawClient c = new RawClient(running.broker()))
        {
            final ApiVersionsResponse r = (ApiVersionsResponse)c.call(new ApiVersionsRequestData()
                .setClientSoftwareName("test").setClientSoftwareVersion("1"), (short)3);
            assertEquals(Errors.NONE.code(), r.data().errorCode());
        }
    }

    @Test
    void apiVersionsAdvertisesProduceFromZeroAndEveryRangeWithinTheCodec() throws IOException
    {
        try (RawClient c = new RawClient(running.broker()))
        {
            final ApiVersionsResponse r = (ApiVersionsResponse)c.call(new ApiVersionsRequestData()
                .setClientSoftwareName("test").setClientSoftwareVersion("1"), (short)4);
            final ApiVersionsResponseData.ApiVersion produce = r.data().apiKeys().find(ApiKeys.PRODUCE.id);
            assertEquals(0, produce.minVersion());
            assertEquals(13, produce.maxVersion());
            for (final ApiVersionsResponseData.ApiVersion v : r.data().apiKeys())
            {
                final ApiKeys key = ApiKeys.forId(v.apiKey());
                assertTrue(v.maxVersion() <= key.latestVersion(false), key + " advertised beyond the codec");
            }
        }
    }

    @Test
    void anApiVersionsVersionNotServedIsAnsweredWithErrorAndOurRange() throws IOException
    {
        try (RawClient c = new RawClient(running.broker()))
        {
            final ApiVersionsResponse r = (ApiVersionsResponse)c.call(new ApiVersionsRequestData()
                .setClientSoftwareName("test").setClientSoftwareVersion("1"), (short)5);
            assertEquals(Errors.UNSUPPORTED_VERSION.code(), r.data().errorCode());
            assertEquals(4, r.data().apiKeys().find(ApiKeys.API_VERSIONS.id).maxVersion());
        }
    }

    @Test
    void pipelinedRequestsAreAnsweredInOrder() throws IOException
    {
        try (RawClient c = new RawClient(running.broker()))
        {
            final RequestHeader h1 = c.send(new ApiVersionsRequestData(), (short)0);
            final RequestHeader h2 = c.send(new MetadataRequestData().setTopics(null), (short)12);
            final RequestHeader h3 = c.send(new ApiVersionsRequestData(), (short)0);
            assertTrue(c.receive(h1) instanceof ApiVersionsResponse);
            assertTrue(c.receive(h2) instanceof MetadataResponse);
            assertTrue(c.receive(h3) instanceof ApiVersionsResponse);
        }
    }

    @Test
    void aLengthPrefixOfTwoToTheThirtyOneMinusOneClosesTheConnection() throws IOException
    {
        try (RawClient c = new RawClient(running.broker()))
        {
            c.sendRaw(new byte[] {0x7f, (byte)0xff, (byte)0xff, (byte)0xff, 1, 2, 3});
            assertTrue(c.closedByBroker());
        }
        assertBrokerServes();
    }

    @Test
    void aFrameOneByteOverSocketRequestMaxBytesClosesTheConnection() throws IOException
    {
        try (RawClient c = new RawClient(running.broker()))
        {
            // the broker's limit here is 1 MiB: the prefix alone is refused, before any body arrives
            c.sendRaw(ByteBuffer.allocate(8).putInt((1 << 20) + 1).putInt(0).array());
            assertTrue(c.closedByBroker());
        }
        assertBrokerServes();
    }

    @Test
    void aClientThatSendsHalfARequestAndStallsHoldsUpNoOtherClient() throws IOException
    {
        try (RawClient stalled = new RawClient(running.broker()))
        {
            // a length prefix of 100 bytes and 10 of them, then nothing: the frame never completes
            stalled.sendRaw(ByteBuffer.allocate(14).putInt(100).putShort(ApiKeys.METADATA.id).putShort((short)12)
                .putInt(1).putShort((short)-1).array());
            for (int i = 0; i < 20; i++)
            {
                assertBrokerServes();
            }
        }
        assertBrokerServes();
    }

    @Test
    void thousandsOfConnectionsOpenedAndDroppedLeaveNoConnectionBehind() throws IOException
    {
        final int connections = 2000;
        for (int i = 0; i < connections; i++)
        {
            try (RawClient c = new RawClient(running.broker()))
            {
                if (i % 2 == 0)
                {
                    c.send(new ApiVersionsRequestData(), (short)0); // dropped before its answer is read
                }
            }
        }
        assertBrokerServes();
        final io.micrometer.core.instrument.Gauge open = running.broker().meterRegistry()
            .get("directlog.broker.connections").gauge();
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (open.value() > 0 && System.nanoTime() < deadline)
        {
            java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20)); // bounded poll
        }
        assertEquals(0.0, open.value(), "connections still counted open after " + connections + " were dropped");
    }

    @Test
    void aNegativeLengthPrefixClosesTheConnection() throws IOException
    {
        try (RawClient c = new RawClient(running.broker()))
        {
            c.sendRaw(new byte[] {(byte)0xff, (byte)0xff, (byte)0xff, (byte)0xfe, 1, 2, 3});
            assertTrue(c.closedByBroker());
        }
        assertBrokerServes();
    }

    @Test
    void anUnknownApiKeyClosesTheConnection() throws IOException
    {
        try (RawClient c = new RawClient(running.broker()))
        {
            final ByteBuffer b = ByteBuffer.allocate(10).putShort((short)999).putShort((short)0).putInt(7)
                .putShort((short)-1);
            c.sendFrame(b.array(), 0, b.capacity());
            assertTrue(c.closedByBroker());
        }
        assertBrokerServes();
    }

    @Test
    void aVersionNotAdvertisedClosesTheConnection() throws IOException
    {
        try (RawClient c = new RawClient(running.broker()))
        {
            // Fetch v3 is below the advertised 4
            final ByteBuffer b = ByteBuffer.allocate(10).putShort(ApiKeys.FETCH.id).putShort((short)3).putInt(7)
                .putShort((short)-1);
            c.sendFrame(b.array(), 0, b.capacity());
            assertTrue(c.closedByBroker());
        }
        assertBrokerServes();
    }

    @Test
    void aTruncatedBodyClosesTheConnection() throws IOException
    {
        try (RawClient c = new RawClient(running.broker()))
        {
            // Metadata v1 says one topic follows but the frame ends
            final ByteBuffer b = ByteBuffer.allocate(14).putShort(ApiKeys.METADATA.id).putShort((short)1).putInt(7)
                .putShort((short)-1).putInt(1);
            c.sendFrame(b.array(), 0, b.capacity());
            assertTrue(c.closedByBroker());
        }
        assertBrokerServes();
    }

    @Test
    void randomFramesNeverTakeTheBrokerDown() throws IOException
    {
        final long seed = Long.getLong("seed", System.nanoTime());
        final Random random = new Random(seed);
        for (int i = 0; i < 200; i++)
        {
            try (RawClient c = new RawClient(running.broker()))
            {
                final byte[] frame = new byte[random.nextInt(64)];
                random.nextBytes(frame);
                if (frame.length >= 4 && random.nextBoolean())
                {
                    // a real API key and version, garbage after: reach the body parsers
                    final ApiKeys[] keys = ApiKeys.values();
                    final ApiKeys key = keys[random.nextInt(keys.length)];
                    ByteBuffer.wrap(frame).putShort(key.id).putShort(key.latestVersion());
                }
                c.sendFrame(frame, 0, frame.length);
            }
        }
        try
        {
            assertBrokerServes();
        }
        catch (final AssertionError | IOException e)
        {
            throw new AssertionError("seed " + seed + " (rerun with -Dseed=" + seed + ")", e);
        }
    }
}
