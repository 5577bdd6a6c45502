package io.directlog.replication.ratis;

import java.nio.ByteBuffer;

/**
 * Layout of one DirectLog record of a replicated partition: a 16-byte frame header, then the stamped batch.
 * Big-endian:
 * <pre>
 *   0  int64 raftIndex    the Raft entry that carried the batch
 *   8  int32 leaderEpoch  the entry's Raft term
 *  12  int32 version      1
 *  16  batch bytes
 * </pre>
 * Why the Raft index lives in the record: the Raft-index-to-offset map then needs no file of its own that could
 * disagree with the log after a crash. Indexes grow with offsets, so the map is a binary search over the log for
 * what was written before this process opened it, and an in-memory map for the rest (IndexMap). Every replica
 * writes the same frame for the same entry, so replicas stay byte-identical.
 * <p>
 * Constants and static methods only; thread-safe.
 */
final class FrameDescriptor
{
    static final int RAFT_INDEX_OFFSET = 0;
    static final int LEADER_EPOCH_OFFSET = 8;
    static final int VERSION_OFFSET = 12;
    static final int HEADER_LENGTH = 16;
    static final int VERSION = 1;

    private FrameDescriptor()
    {
    }

    static void writeHeader(final byte[] frame, final long raftIndex, final int leaderEpoch)
    {
        ByteBuffer.wrap(frame).putLong(RAFT_INDEX_OFFSET, raftIndex).putInt(LEADER_EPOCH_OFFSET, leaderEpoch)
            .putInt(VERSION_OFFSET, VERSION);
    }
}
