package io.directlog.broker.protocol;

import java.util.List;

import io.netty.buffer.ByteBuf;

/**
 * A response's bytes without the length prefix, and the fetched batches spliced into them, which stay pinned
 * until the socket took the bytes.
 *
 * @param bytes what to write; the channel releases it once written.
 * @param pins  the batches under {@code bytes}; released by {@link #afterWrite()} or {@link #discard()}.
 */
public record EncodedResponse(ByteBuf bytes, List<PinnedRecords> pins)
{
    /** Call when the write of {@link #bytes()} completed or failed: the batches under it are no longer read. */
    public void afterWrite()
    {
        ResponseEncoder.release(pins);
    }

    /** Call for a response that will never be written (its connection closed): frees the bytes and the batches. */
    public void discard()
    {
        bytes.release();
        afterWrite();
    }
}
