package io.directlog.replication.ratis;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import io.directlog.replication.BatchStamper;
import io.directlog.replication.ReplicatedBatch;
import io.directlog.storage.Durability;
import io.directlog.storage.LogConfig;
import io.directlog.storage.LogStore;
import io.directlog.storage.StoreConfig;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.proto.RaftProtos.StateMachineEntryProto;
import org.apache.ratis.proto.RaftProtos.StateMachineLogEntryProto;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The state machine's data hooks driven directly, as Ratis would call them, over a real DirectLog log and without
 * a Raft server: the cases a three-node test cannot force, such as a log that is ahead of the Raft log after a crash.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PartitionStateMachineTest
{
    private static final Path ROOT = Path.of(System.getProperty("directlog.test.dir", "target/test-data"),
        "state-machine");
    private static final String LOG = "raft-test";

    private final ExecutorService reads = Executors.newSingleThreadExecutor();
    private Path dir;
    private LogStore store;

    @BeforeEach
    void open() throws IOException
    {
        dir = Files.createTempDirectory(Files.createDirectories(ROOT), "sm-");
        store = openStore(dir, Durability.DSYNC);
    }

    @AfterEach
    void close()
    {
        store.close();
        reads.shutdownNow();
    }

    @Test
    void writesStampOffsetsAndEpochsInRaftOrderAndApplyMovesTheHighWatermark() throws IOException
    {
        final PartitionStateMachine sm = attached();
        // Index 4 carried no batch (an election or configuration entry).
        sm.write(entry(2, 1, 10), null).join();
        sm.write(entry(3, 1, 11), null).join();
        sm.write(entry(5, 2, 12), null).join();
        sm.flush(5).join();
        assertEquals(0, sm.highWatermark().value(), "written is not committed");
        assertTrue(sm.readCommitted(0, 1 << 20).isEmpty());

        apply(sm, entry(2, 1, 10));
        assertEquals(TestBatches.recordCount(10), sm.highWatermark().value());
        assertEquals(1, sm.readCommitted(0, 1 << 20).size(), "readers stop at the high watermark");

        apply(sm, entry(3, 1, 11));
        apply(sm, entry(5, 2, 12));
        final List<ReplicatedBatch> all = sm.readCommitted(0, 1 << 20);
        assertEquals(3, all.size());
        long expected = 0;
        for (int i = 0; i < 3; i++)
        {
            final ReplicatedBatch b = all.get(i);
            assertEquals(10 + i, TestBatches.id(b.payload()));
            assertEquals(expected, b.baseOffset());
            assertEquals(expected, TestBatches.stampedBaseOffset(b.payload()));
            assertEquals(i < 2 ? 1 : 2, TestBatches.stampedEpoch(b.payload()));
            assertEquals(i < 2 ? 1 : 2, b.leaderEpoch());
            expected = b.nextOffset();
        }
        assertEquals(expected, sm.highWatermark().value());
    }

    @Test
    void truncateDropsTheUncommittedTailAndWritingGoesOnFromThere() throws IOException
    {
        final PartitionStateMachine sm = attached();
        for (int i = 1; i <= 5; i++)
        {
            sm.write(entry(i, 1, 100 + i), null).join();
        }
        apply(sm, entry(1, 1, 101));
        apply(sm, entry(2, 1, 102));
        final long committedEnd = sm.highWatermark().value();

        sm.truncate(3).join();
        assertEquals(committedEnd, sm.nextOffset());
        assertEquals(committedEnd, sm.log().endOffset());

        sm.write(entry(3, 2, 203), null).join();
        apply(sm, entry(3, 2, 203));
        final List<ReplicatedBatch> all = sm.readCommitted(0, 1 << 20);
        assertEquals(List.of(101L, 102L, 203L), all.stream().map(b -> TestBatches.id(b.payload())).toList());
        assertEquals(committedEnd, all.get(2).baseOffset());

        final CompletionException refused = assertThrows(CompletionException.class, () -> sm.truncate(2).join());
        assertTrue(refused.getCause().getMessage().contains("refusing to truncate committed offsets"),
            refused.getCause().getMessage());
    }

    @Test
    void aLogAheadOfTheRaftLogAfterACrashIsCutAtTheNextWrite() throws IOException
    {
        final PartitionStateMachine before = attached();
        for (int i = 1; i <= 6; i++)
        {
            before.write(entry(i, 1, 300 + i), null).join();
        }
        final long endOfThree = before.log().endOffset() - TestBatches.recordCount(304) -
            TestBatches.recordCount(305) - TestBatches.recordCount(306);
        store.close();
        // The Raft log kept only entries 1..3: the batches of 4..6 were appended, their headers never written.
        store = openStore(dir, Durability.DSYNC);
        final PartitionStateMachine after = attached();
        after.write(entry(4, 2, 404), null).join();
        assertEquals(endOfThree + TestBatches.recordCount(404), after.log().endOffset());
        for (int i = 1; i <= 3; i++)
        {
            apply(after, entry(i, 1, 300 + i));
        }
        apply(after, entry(4, 2, 404));
        assertEquals(List.of(301L, 302L, 303L, 404L), after.readCommitted(0, 1 << 20).stream()
            .map(b -> TestBatches.id(b.payload())).toList());
    }

    /**
     * The process-kill suite's divergence: a leader appended entry 4's batch and was killed before Ratis wrote its
     * header; the next leader's first entry of term 2 took index 4 without a batch (a configuration entry), so the
     * restarted replica is asked to write 5 with nothing at or past 5 to cut. Entry 4's stale batch must still go,
     * or entry 5 and every later batch sit at other offsets here than on the other replicas.
     */
    @Test
    void aRecoveredBatchRaftsLogLacksBelowTheNextWriteIsCut() throws IOException
    {
        final PartitionStateMachine before = attached();
        for (int i = 1; i <= 4; i++)
        {
            before.write(entry(i, 1, 500 + i), null).join();
        }
        final long endOfThree = before.log().endOffset() - TestBatches.recordCount(504);
        store.close();
        store = openStore(dir, Durability.DSYNC);
        final PartitionStateMachine after = attached();
        // Ratis's log now: 1..3 of term 1, 4 the term-2 leader's configuration entry.
        after.raftLogTerms((index, term) -> index <= 3 ? term == 1 : index == 4 && term == 2);
        after.write(entry(5, 2, 505), null).join();
        assertEquals(endOfThree + TestBatches.recordCount(505), after.log().endOffset());
        for (int i = 1; i <= 3; i++)
        {
            apply(after, entry(i, 1, 500 + i));
        }
        apply(after, entry(5, 2, 505));
        final List<ReplicatedBatch> all = after.readCommitted(0, 1 << 20);
        assertEquals(List.of(501L, 502L, 503L, 505L), all.stream().map(b -> TestBatches.id(b.payload())).toList());
        assertEquals(endOfThree, all.get(3).baseOffset(), "entry 5 at the offset the other replicas gave it");
    }

    /**
     * A restarted replica elected leader writes nothing before its broker waits for the high watermark to reach its
     * log end: the stale batch must go when Ratis applies the leader's configuration entry, not only at a write.
     */
    @Test
    void aRecoveredBatchRaftsLogLacksIsCutWhenAnEntryWithoutABatchIsApplied() throws IOException
    {
        final PartitionStateMachine before = attached();
        for (int i = 1; i <= 4; i++)
        {
            before.write(entry(i, 1, 700 + i), null).join();
        }
        final long endOfThree = before.log().endOffset() - TestBatches.recordCount(704);
        store.close();
        store = openStore(dir, Durability.DSYNC);
        final PartitionStateMachine after = attached();
        after.raftLogTerms((index, term) -> index <= 3 ? term == 1 : index == 4 && term == 2);
        for (int i = 1; i <= 3; i++)
        {
            apply(after, entry(i, 1, 700 + i));
        }
        after.notifyTermIndexUpdated(2, 4);
        assertEquals(endOfThree, after.nextOffset(), "the log end is the high watermark");
        assertEquals(endOfThree, after.highWatermark().value());
    }

    /** A recovered tail Ratis's log holds is kept: only the batches it lacks are cut. */
    @Test
    void aRecoveredTailRaftsLogHoldsIsKept() throws IOException
    {
        final PartitionStateMachine before = attached();
        for (int i = 1; i <= 3; i++)
        {
            before.write(entry(i, 1, 600 + i), null).join();
        }
        final long end = before.log().endOffset();
        store.close();
        store = openStore(dir, Durability.DSYNC);
        final PartitionStateMachine after = attached();
        after.raftLogTerms((index, term) -> index <= 3 && term == 1);
        after.write(entry(5, 2, 605), null).join();
        assertEquals(end + TestBatches.recordCount(605), after.log().endOffset());
    }

    @Test
    void readForAFollowerGivesTheBatchInClearedFormFromTheLog() throws IOException
    {
        final PartitionStateMachine sm = attached();
        sm.write(entry(1, 1, 7), null).join();
        sm.write(entry(2, 3, 8), null).join();
        final ByteString sent = sm.read(withoutData(entry(2, 3, 8)), null).join();
        final byte[] expected = TestBatches.batch(8);
        assertArrayEquals(expected, sent.toByteArray(), "the follower stamps it itself");
    }

    @Test
    void aBatchThatDoesNotMatchItsHeaderIsNotWritten() throws IOException
    {
        final PartitionStateMachine sm = attached();
        final LogEntryProto good = entry(1, 1, 5);
        final byte[] corrupt = good.getStateMachineLogEntry().getStateMachineEntry().getStateMachineData()
            .toByteArray();
        corrupt[corrupt.length - 1] ^= 1;
        final LogEntryProto bad = good.toBuilder().setStateMachineLogEntry(good.getStateMachineLogEntry().toBuilder()
            .setStateMachineEntry(StateMachineEntryProto.newBuilder()
                .setStateMachineData(ByteString.copyFrom(corrupt)))).build();
        final CompletionException e = assertThrows(CompletionException.class,
            () -> sm.write(bad, null).join());
        assertTrue(e.getCause().getMessage().contains("does not match its header"), e.getCause().getMessage());
        assertEquals(0, sm.log().endOffset());
    }

    @Test
    void aMemoryDurabilityLogIsRefused() throws IOException
    {
        store.close();
        store = openStore(dir, Durability.MEMORY);
        final PartitionStateMachine sm = new PartitionStateMachine(LOG, store, BatchStamper.KAFKA_V2, reads);
        final IOException e = assertThrows(IOException.class, () -> sm.attach(store.log(LOG), null));
        assertTrue(e.getMessage().contains("DIRECT or DSYNC"), e.getMessage());
    }

    private PartitionStateMachine attached() throws IOException
    {
        final PartitionStateMachine sm = new PartitionStateMachine(LOG, store, BatchStamper.KAFKA_V2, reads);
        sm.attach(store.log(LOG), null);
        return sm;
    }

    private static void apply(final PartitionStateMachine sm, final LogEntryProto entry)
    {
        final TransactionContext trx = TransactionContext.newBuilder().setServerRole(RaftPeerRole.FOLLOWER)
            .setStateMachine(sm).setLogEntry(withoutData(entry)).build();
        final long base = sm.applyTransaction(trx).join().getContent().asReadOnlyByteBuffer().getLong(0);
        assertTrue(base >= 0);
    }

    /** What Ratis keeps in its log: the header, not the batch. */
    private static LogEntryProto withoutData(final LogEntryProto entry)
    {
        return entry.toBuilder().setStateMachineLogEntry(entry.getStateMachineLogEntry().toBuilder()
            .clearStateMachineEntry()).build();
    }

    /** A Raft entry as the leader sends it: header as log data, the producer's batch as state-machine data. */
    static LogEntryProto entry(final long index, final long term, final long id)
    {
        final byte[] batch = TestBatches.batch(id);
        final ByteBuffer header = ByteBuffer.allocate(EntryHeader.LENGTH);
        EntryHeader.of(batch, TestBatches.recordCount(id)).encode(header);
        header.flip();
        return LogEntryProto.newBuilder().setIndex(index).setTerm(term)
            .setStateMachineLogEntry(StateMachineLogEntryProto.newBuilder()
                .setLogData(ByteString.copyFrom(header))
                .setStateMachineEntry(StateMachineEntryProto.newBuilder()
                    .setStateMachineData(ByteString.copyFrom(batch))))
            .build();
    }

    private static LogStore openStore(final Path dir, final Durability durability)
    {
        return LogStore.open(StoreConfig.builder(dir).memoryBudget(16L << 20).writerThreads(1)
            .writerCpus(StoreConfig.WRITER_CPUS_NONE)
            .defaultLogConfig(LogConfig.builder().segmentSize(1 << 20).durability(durability).build()).build());
    }
}
