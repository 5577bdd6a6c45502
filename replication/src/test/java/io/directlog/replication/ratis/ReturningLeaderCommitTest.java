package io.directlog.replication.ratis;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.directlog.replication.BatchStamper;
import io.directlog.storage.Log;
import io.directlog.storage.LogStore;
import org.apache.ratis.proto.RaftProtos.AppendEntriesReplyProto;
import org.apache.ratis.proto.RaftProtos.AppendEntriesReplyProto.AppendResult;
import org.apache.ratis.proto.RaftProtos.AppendEntriesRequestProto;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.proto.RaftProtos.RaftGroupIdProto;
import org.apache.ratis.proto.RaftProtos.RaftRpcRequestProto;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.protocol.TermIndex;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A leader that returns after a pause holds an uncommitted tail of its own term; the new leader's entries replace
 * it. Its high watermark must never cover that tail (issue 22's paused-leader case: node 3's high watermark reached
 * 188 over its own term-1 entries 17-18, so it refused the truncation and never took the new leader's entries).
 * <p>
 * One real Ratis server with the node's settings plays the returning replica; the test plays the two leaders by
 * handing it appendEntries requests, so the order of events is the test's. The append that replaces the tail is
 * held behind an earlier append whose batch the log does not acknowledge until the test lets it: with Ratis's
 * default "compose" appends the new leader's heartbeat then moves the commit index over the tail while it is still
 * in the Raft log, and Ratis applies it.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class ReturningLeaderCommitTest
{
    private static final Path ROOT = Path.of(System.getProperty("directlog.test.dir", "target/test-data"),
        "returning-leader");
    private static final String LOG = "raft-returning-leader";
    /** Long enough that the replica never stands for election during the test: the test decides who leads. */
    private static final Duration NO_ELECTION = Duration.ofMinutes(5);
    private static final long HELD_BATCH = 104;
    private static final ClientId CLIENT = ClientId.randomId();

    private final ExecutorService reads = Executors.newSingleThreadExecutor();
    private final CompletableFuture<Void> release = new CompletableFuture<>();
    private final AtomicLong callIds = new AtomicLong();
    private Path dir;
    private LogStore store;
    private RaftGroup group;
    private PartitionStateMachine sm;
    private RaftServer server;

    @BeforeEach
    void start() throws IOException
    {
        dir = Files.createTempDirectory(Files.createDirectories(ROOT), "r-");
        store = TestCluster.openStore(dir);
        final RatisReplicationNode.Peer self = new RatisReplicationNode.Peer("3", "127.0.0.1",
            TestCluster.freePort());
        // Peers 1 and 2 are never called: the replica stays a follower and only answers.
        group = RaftGroup.valueOf(RaftGroupId.valueOf(UUID.randomUUID()),
            new RatisReplicationNode.Peer("1", "127.0.0.1", TestCluster.freePort()).toRaftPeer(),
            new RatisReplicationNode.Peer("2", "127.0.0.1", TestCluster.freePort()).toRaftPeer(),
            self.toRaftPeer());
        sm = new PartitionStateMachine(LOG, holdingBack(store, HELD_BATCH, release), BatchStamper.KAFKA_V2, reads);
        server = RaftServer.newBuilder()
            .setServerId(RaftPeerId.valueOf(self.id()))
            .setGroup(group)
            .setStateMachine(sm)
            .setProperties(RatisReplicationNode.properties(new RatisReplicationNode.Config(self, dir.resolve("raft"),
                store, BatchStamper.KAFKA_V2, NO_ELECTION, NO_ELECTION.multipliedBy(2), true)))
            .build();
        server.start();
    }

    @AfterEach
    void stop() throws IOException
    {
        release.complete(null);
        try
        {
            server.close();
        }
        finally
        {
            store.close();
            reads.shutdownNow();
            try (var paths = Files.walk(dir))
            {
                paths.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            }
        }
    }

    @Test
    void aReturningLeadersOwnTailIsNeverCommittedOverTheNewLeadersEntries() throws Exception
    {
        // Term 1, leader 1: entries 0-1 committed; 2-3 written and flushed, never committed; 4 written, its batch
        // not yet acknowledged by the log (an append still in flight when the leader changes).
        final AppendEntriesRequestProto first = request("1", 1, null, 0,
            List.of(entry(0, 1, 100), entry(1, 1, 101)));
        // The division finishes starting on a Ratis thread: until then requests are refused.
        TestCluster.await("the replica takes leader 1's first entries", () ->
            send(first).handle((reply, error) -> reply != null && reply.getResult() == AppendResult.SUCCESS).join());
        assertEquals(AppendResult.SUCCESS, append("1", 1, TermIndex.valueOf(1, 1), 1,
            entry(2, 1, 102), entry(3, 1, 103)).getResult());
        TestCluster.await("entries 0-1 applied", () -> appliedIndex() >= 1);
        final long endOfThree = sm.nextOffset();
        final CompletableFuture<AppendEntriesReplyProto> inFlight = send(request("1", 1, TermIndex.valueOf(1, 3), 1,
            List.of(entry(4, 1, HELD_BATCH))));
        TestCluster.await("entry 4's batch written", () -> sm.nextOffset() > endOfThree);

        // Term 2, leader 2: it has 0-1, wrote its own entry 2 and committed it with the other follower.
        final CompletableFuture<AppendEntriesReplyProto> replace = send(request("2", 2, TermIndex.valueOf(1, 1), 2,
            List.of(entry(2, 2, 202))));
        // Its heartbeat says so; the replica takes it once it holds (or, with compose, has queued) entry 2 of term 2.
        TestCluster.await("leader 2's heartbeat accepted", () ->
            send(request("2", 2, TermIndex.valueOf(2, 2), 2, List.of())).join().getResult() == AppendResult.SUCCESS);
        TestCluster.await("entry 2 applied", () -> appliedIndex() >= 2);

        final TermIndex applied = sm.getLastAppliedTermIndex();
        assertEquals(2, applied.getIndex());
        assertEquals(2, applied.getTerm(),
            "the replica applied its own uncommitted entry 2 of term 1, not the one leader 2 committed");
        assertEquals(List.of(100L, 101L, 202L), sm.readCommitted(0, 1 << 20).stream()
            .map(b -> TestBatches.id(b.payload())).toList(), "the committed batches");

        release.complete(null);
        assertEquals(AppendResult.SUCCESS, replace.get(30, TimeUnit.SECONDS).getResult(),
            "the replica takes the new leader's entry");
        inFlight.handle((reply, error) -> null).get(30, TimeUnit.SECONDS);
    }

    /** A leader's entry as in PartitionStateMachineTest, with the client id Ratis reads when it logs an entry. */
    private static LogEntryProto entry(final long index, final long term, final long id)
    {
        final LogEntryProto e = PartitionStateMachineTest.entry(index, term, id);
        return e.toBuilder().setStateMachineLogEntry(e.getStateMachineLogEntry().toBuilder()
            .setClientId(CLIENT.toByteString()).setCallId(id)).build();
    }

    private long appliedIndex()
    {
        final TermIndex applied = sm.getLastAppliedTermIndex();
        return applied == null ? -1 : applied.getIndex();
    }

    private AppendEntriesReplyProto append(final String leader, final long term, final TermIndex previous,
        final long leaderCommit, final LogEntryProto... entries) throws Exception
    {
        return send(request(leader, term, previous, leaderCommit, List.of(entries))).get(30, TimeUnit.SECONDS);
    }

    private CompletableFuture<AppendEntriesReplyProto> send(final AppendEntriesRequestProto request)
    {
        try
        {
            return server.appendEntriesAsync(request);
        }
        catch (final IOException e)
        {
            return CompletableFuture.failedFuture(e);
        }
    }

    private AppendEntriesRequestProto request(final String leader, final long term, final TermIndex previous,
        final long leaderCommit, final List<LogEntryProto> entries)
    {
        final RaftRpcRequestProto rpc = RaftRpcRequestProto.newBuilder()
            .setRequestorId(RaftPeerId.valueOf(leader).toByteString())
            .setReplyId(RaftPeerId.valueOf("3").toByteString())
            .setRaftGroupId(RaftGroupIdProto.newBuilder().setId(group.getGroupId().toByteString()))
            .setCallId(callIds.incrementAndGet())
            .build();
        final AppendEntriesRequestProto.Builder b = AppendEntriesRequestProto.newBuilder()
            .setServerRequest(rpc)
            .setLeaderTerm(term)
            .setLeaderCommit(leaderCommit)
            .addAllEntries(entries);
        if (previous != null)
        {
            b.setPreviousLog(previous.toProto());
        }
        return b.build();
    }

    /**
     * The store, with one batch's append acknowledged only once release completes (the bytes are appended at
     * once): the Raft log's append of that entry, and every append Ratis queues behind it, waits.
     */
    private static LogStore holdingBack(final LogStore store, final long batchId, final CompletableFuture<Void> release)
    {
        return proxy(LogStore.class, store, (target, method, args) ->
        {
            final Object result = call(target, method, args);
            return result instanceof Log log ? holdingBack(log, batchId, release) : result;
        });
    }

    private static Log holdingBack(final Log log, final long batchId, final CompletableFuture<Void> release)
    {
        return proxy(Log.class, log, (target, method, args) ->
        {
            final Object result = call(target, method, args);
            if (method.getName().equals("append") && args.length == 3 && args[0] instanceof byte[] frame &&
                frame.length >= FrameDescriptor.HEADER_LENGTH + TestBatches.HEADER + Long.BYTES &&
                ByteBuffer.wrap(frame).getLong(FrameDescriptor.HEADER_LENGTH + TestBatches.HEADER) == batchId)
            {
                return ((CompletableFuture<?>)result).thenCombine(release, (offset, released) -> offset);
            }
            return result;
        });
    }

    @FunctionalInterface
    private interface Handler
    {
        Object handle(Object target, Method method, Object[] args) throws Throwable;
    }

    private static <T> T proxy(final Class<T> type, final T target, final Handler handler)
    {
        final InvocationHandler h = (p, method, args) -> handler.handle(target, method, args == null ?
            new Object[0] : args);
        return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, h));
    }

    private static Object call(final Object target, final Method method, final Object[] args) throws Throwable
    {
        try
        {
            return method.invoke(target, args);
        }
        catch (final InvocationTargetException e)
        {
            throw e.getCause();
        }
    }
}
