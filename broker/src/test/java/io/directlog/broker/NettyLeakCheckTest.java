package io.directlog.broker;

import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.List;

import org.junit.jupiter.api.Test;

import io.netty.buffer.ByteBufAllocator;

/** The leak check sees a buffer that was dropped without release (so a class using it would fail). */
class NettyLeakCheckTest
{
    @Test
    void aBufferDroppedWithoutReleaseIsReported()
    {
        NettyLeakCheck.surface();
        NettyLeakCheck.drain();
        leak();
        NettyLeakCheck.surface();
        final List<String> leaks = NettyLeakCheck.drain();
        assertFalse(leaks.isEmpty(), "no leak reported for a dropped buffer");
    }

    private static void leak()
    {
        ByteBufAllocator.DEFAULT.directBuffer(64).writeLong(42);
    }
}
