package io.directlog.replication.ratis;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

import io.directlog.replication.BatchStamper;
import io.directlog.replication.NotLeaderException;
import io.directlog.replication.ReplicatedBatch;
import io.directlog.replication.ReplicatedPartition;
import io.directlog.replication.ReplicationException;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.exceptions.RaftException;
import org.apache.ratis.protocol.exceptions.StateMachineException;
import org.apache.ratis.server.DivisionInfo;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;

/**
 * The local replica of one partition on a {@link RatisReplicationNode}: appends are submitted straight to the
 * local Raft server (no client hop), so a follower answers {@link NotLeaderException} at once, as a Kafka broker
 * answers NOT_LEADER_OR_FOLLOWER.
 * <p>
 * Thread-safe.
 */
final class RatisPartition implements ReplicatedPartition
{
    private final String name;
    private final RaftServer server;
    private final RaftServer.Division division;
    private final PartitionStateMachine stateMachine;
    private final BatchStamper stamper;
    private final ClientId clientId = ClientId.randomId();
    private final AtomicLong callIds = new AtomicLong();
    private volatile boolean closed;

    RatisPartition(final String name, final RaftServer server, final RaftServer.Division division,
        final BatchStamper stamper)
    {
        this.name = name;
        this.server = server;
        this.division = division;
        this.stateMachine = (PartitionStateMachine)division.getStateMachine();
        this.stamper = stamper;
    }

    @Override
    public String name()
    {
        return name;
    }

    @Override
    public CompletableFuture<Long> append(final byte[] batch, final int recordCount)
    {
        if (recordCount <= 0)
        {
            throw new IllegalArgumentException("recordCount must be positive; got " + recordCount);
        }
        stamper.validate(batch, 0, batch.length, recordCount);
        if (closed)
        {
            return CompletableFuture.failedFuture(new ReplicationException(name + " is closed", false, null));
        }
        final byte[] cleared = batch.clone();
        stamper.clear(cleared, 0, cleared.length);
        final ByteBuffer content = ByteBuffer.allocate(EntryHeader.LENGTH + cleared.length);
        EntryHeader.of(cleared, recordCount).encode(content);
        content.put(cleared).flip();
        final RaftClientRequest request = RaftClientRequest.newBuilder()
            .setClientId(clientId)
            .setServerId(server.getId())
            .setGroupId(division.getGroup().getGroupId())
            .setCallId(callIds.incrementAndGet())
            .setMessage(Message.valueOf(UnsafeByteOperations.unsafeWrap(content)))
            .setType(RaftClientRequest.writeRequestType())
            .build();
        try
        {
            return server.submitClientRequestAsync(request).thenApply(this::baseOffset);
        }
        catch (final IOException e)
        {
            return CompletableFuture.failedFuture(new ReplicationException(name + ": append refused", true, e));
        }
    }

    private long baseOffset(final RaftClientReply reply)
    {
        if (reply.isSuccess())
        {
            return reply.getMessage().getContent().asReadOnlyByteBuffer().getLong(0);
        }
        final RaftException e = reply.getException();
        if (reply.getNotLeaderException() != null)
        {
            final var suggested = reply.getNotLeaderException().getSuggestedLeader();
            throw new NotLeaderException(name, suggested == null ? null : suggested.getId().toString(), e);
        }
        final boolean retriable = !(e instanceof StateMachineException);
        throw new ReplicationException(name + ": append failed: " + e, retriable, e);
    }

    @Override
    public List<ReplicatedBatch> read(final long offset, final int maxBytes)
    {
        return stateMachine.readCommitted(offset, maxBytes);
    }

    @Override
    public boolean awaitHighWatermark(final long offset, final Duration timeout) throws InterruptedException
    {
        return stateMachine.highWatermark().awaitAbove(offset, timeout);
    }

    @Override
    public void addHighWatermarkListener(final Runnable listener)
    {
        stateMachine.addHighWatermarkListener(listener);
    }

    @Override
    public long highWatermark()
    {
        return stateMachine.highWatermark().value();
    }

    @Override
    public long startOffset()
    {
        return stateMachine.log().startOffset();
    }

    @Override
    public long logEndOffset()
    {
        return stateMachine.nextOffset();
    }

    @Override
    public boolean isLeader()
    {
        final DivisionInfo info = division.getInfo();
        return info.isLeader() && info.isLeaderReady();
    }

    @Override
    public Optional<String> leaderId()
    {
        final RaftPeerId leader = division.getInfo().getLeaderId();
        return Optional.ofNullable(leader).map(RaftPeerId::toString);
    }

    @Override
    public long leaderEpoch()
    {
        return division.getInfo().getCurrentTerm();
    }

    @Override
    public long leaderChangedAtMillis()
    {
        return stateMachine.leaderChangedAtMillis();
    }

    @Override
    public long leaderReadyAtMillis()
    {
        return isLeader() ? stateMachine.leaderReadyAtMillis() : -1;
    }

    /** The DirectLog log that holds this replica's batches (frames included): for tests and tools. */
    io.directlog.storage.Log log()
    {
        return stateMachine.log();
    }

    @Override
    public void close()
    {
        closed = true;
    }

    @Override
    public String toString()
    {
        return "RatisPartition{" + name + "@" + server.getId() + "}";
    }
}
