package io.directlog.replication.ratis;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;

/**
 * What the Raft log keeps of a batch (the entry's "log data"); the batch itself travels as state-machine data and
 * is kept by DirectLog. Big-endian:
 * <pre>
 *   0  int32 version      1
 *   4  int32 recordCount
 *   8  int32 batchLength
 *  12  int32 crc          CRC-32C of the batch in cleared form (BatchStamper.clear)
 * </pre>
 * The CRC lets every replica check the bytes it is given, from the leader's cache or read back from the leader's
 * DirectLog, before it writes them.
 *
 * Immutable.
 *
 * @param recordCount how many records the batch holds.
 * @param batchLength the batch's length in bytes.
 * @param crc         CRC-32C of the cleared batch.
 */
record EntryHeader(int recordCount, int batchLength, int crc)
{
    static final int VERSION = 1;
    static final int LENGTH = 16;

    static EntryHeader of(final byte[] clearedBatch, final int recordCount)
    {
        return new EntryHeader(recordCount, clearedBatch.length, crc(clearedBatch));
    }

    static int crc(final byte[] bytes)
    {
        final CRC32C crc = new CRC32C();
        crc.update(bytes, 0, bytes.length);
        return (int)crc.getValue();
    }

    void encode(final ByteBuffer into)
    {
        into.putInt(VERSION).putInt(recordCount).putInt(batchLength).putInt(crc);
    }

    static EntryHeader decode(final ByteString logData)
    {
        if (logData.size() != LENGTH)
        {
            throw new IllegalArgumentException("entry header is " + LENGTH + " bytes; got " + logData.size());
        }
        final ByteBuffer b = logData.asReadOnlyByteBuffer();
        final int version = b.getInt();
        if (version != VERSION)
        {
            throw new IllegalArgumentException("unknown entry header version " + version);
        }
        return new EntryHeader(b.getInt(), b.getInt(), b.getInt());
    }
}
