package io.directlog.replication.ratis;

import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

import io.directlog.replication.BatchStamper;
import io.directlog.replication.ReplicatedBatch;
import io.directlog.storage.Durability;
import io.directlog.storage.Log;
import io.directlog.storage.LogStore;
import io.directlog.storage.Record;
import io.directlog.storage.RecordBatch;
import org.apache.ratis.io.MD5Hash;
import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.proto.RaftProtos.RoleInfoProto;
import org.apache.ratis.proto.RaftProtos.StateMachineLogEntryProto;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientRequest;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftGroupMemberId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.raftlog.RaftLog;
import org.apache.ratis.server.storage.FileInfo;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.StateMachineStorage;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.statemachine.impl.SimpleStateMachineStorage;
import org.apache.ratis.statemachine.impl.SingleFileSnapshotInfo;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.thirdparty.com.google.protobuf.UnsafeByteOperations;
import org.apache.ratis.util.MD5FileUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Raft state machine of one partition replica: the batches live in a DirectLog {@link Log}, the Raft log keeps
 * only an {@link EntryHeader} per batch (the pattern of Apache Ozone's ContainerStateMachine).
 * <ul>
 *   <li>{@link #write}: Ratis calls it in log order on every replica, leader included, before it writes the entry's
 *   header to its own log (and, with the default sync policy, waits for it first). The batch is checked against the
 *   header's CRC, framed with its Raft index and term, stamped with its base offset (this replica's log end) and
 *   epoch, and appended with the log's durability. Same order, same inputs: every replica writes the same bytes at
 *   the same offsets.</li>
 *   <li>{@link #flush}: the log's durability point; appends are acknowledged durable (DIRECT or DSYNC), so it waits
 *   for the appends up to the index.</li>
 *   <li>{@link #truncate}: Raft drops an uncommitted tail; {@link Log#truncateTo} drops its batches.</li>
 *   <li>{@link #read}: the leader serves a lagging follower an entry no longer in its Raft-log cache.</li>
 *   <li>{@link #applyTransaction}: the entry is committed; the high watermark moves past its batch.</li>
 * </ul>
 * A snapshot is the applied index only: the batches are already in the log.
 * <p>
 * Thread-safe: write and truncate (Ratis's log thread, in order) and the offset they assign are guarded by this
 * object's monitor; apply runs on Ratis's state-machine updater thread; reads on any thread.
 */
final class PartitionStateMachine extends BaseStateMachine
{
    private static final Logger LOG = LoggerFactory.getLogger(PartitionStateMachine.class);
    /** Positions kept in memory past the applied index before older ones are left to the log search. */
    private static final int IN_MEMORY_POSITIONS = 4096;
    private static final Duration APPLY_WAIT = Duration.ofSeconds(30);

    private final String logName;
    private final LogStore store;
    private final BatchStamper stamper;
    private final Executor readExecutor;
    /** The node's count of leader changes its replicas saw (shared by every partition of the node). */
    private final LongAdder leaderChanges;
    /** Told when Ratis closes this state machine (its group stops for good in this process). */
    private final ServerLossWatch lossWatch;
    private final SimpleStateMachineStorage snapshots = new SimpleStateMachineStorage();
    /** Appends not yet acknowledged by the log, by Raft index; completed ones remove themselves. */
    private final ConcurrentSkipListMap<Long, CompletableFuture<Long>> pendingWrites = new ConcurrentSkipListMap<>();

    private volatile Log log;
    private volatile Durability durability;
    private volatile IndexMap index;
    private volatile HighWatermark highWatermark;
    /** The offset the next batch takes. Guarded by this. */
    private long nextOffset;
    /**
     * Whether Ratis's log holds an entry: set by {@link #initialize} over the server's log, by tests directly; null
     * when unknown (then only a recovered batch at or past the index being written is known to be stale).
     */
    private volatile RaftLogTerms raftLogTerms;
    /**
     * The highest Raft index among the batches the log held when it was attached, until the first write checked
     * them against Ratis's log; -1 after. Guarded by this.
     */
    private long uncheckedRecoveredIndex = -1;
    /** Wall-clock millis of the last leader change seen here (-1: none yet), for failover timelines. */
    private volatile long leaderChangedAtMillis = -1;
    /** Wall-clock millis of the last notifyLeaderReady; older than the last change: not ready in this term. */
    private volatile long leaderReadyAtMillis = -1;
    /** Told after every advance of the high watermark, on the apply thread (the broker's parked Fetches). */
    private final java.util.concurrent.CopyOnWriteArrayList<Runnable> highWatermarkListeners =
        new java.util.concurrent.CopyOnWriteArrayList<>();

    PartitionStateMachine(final String logName, final LogStore store, final BatchStamper stamper,
        final Executor readExecutor)
    {
        this(logName, store, stamper, readExecutor, new LongAdder());
    }

    PartitionStateMachine(final String logName, final LogStore store, final BatchStamper stamper,
        final Executor readExecutor, final LongAdder leaderChanges)
    {
        this(logName, store, stamper, readExecutor, leaderChanges, new ServerLossWatch(logName, reason -> { }));
    }

    PartitionStateMachine(final String logName, final LogStore store, final BatchStamper stamper,
        final Executor readExecutor, final LongAdder leaderChanges, final ServerLossWatch lossWatch)
    {
        this.lossWatch = lossWatch;
        this.leaderChanges = leaderChanges;
        this.logName = logName;
        this.store = store;
        this.stamper = stamper;
        this.readExecutor = readExecutor;
    }

    /** Ratis's state-machine updater stops: the group is closed (the node's close, or Ratis's own). */
    @Override
    public void close() throws IOException
    {
        try
        {
            super.close();
        }
        finally
        {
            lossWatch.groupClosed(logName);
        }
    }

    @Override
    public void initialize(final RaftServer server, final RaftGroupId groupId, final RaftStorage storage)
        throws IOException
    {
        super.initialize(server, groupId, storage);
        snapshots.init(storage);
        // Resolved at the first write: the division does not exist yet while Ratis initializes its state machine.
        raftLogTerms = (index, term) ->
        {
            final RaftLog raftLog = server.getDivision(groupId).getRaftLog();
            if (index < raftLog.getStartIndex())
            {
                return true; // purged after a snapshot: it was in the log, and committed
            }
            final TermIndex held = raftLog.getTermIndex(index);
            return held != null && held.getTerm() == term;
        };
        final SingleFileSnapshotInfo snapshot = snapshots.loadLatestSnapshot();
        attach(store.log(logName), snapshot == null ? null : snapshot.getTermIndex());
    }

    /**
     * Takes the log over: the next offset is its end, the high watermark the end of the last batch the snapshot
     * covers (the log start without one). Split from initialize so tests can drive the data hooks without a server.
     */
    void attach(final Log opened, final TermIndex snapshot) throws IOException
    {
        durability = opened.config().durability();
        if (!durability.atLeast(Durability.DIRECT))
        {
            // Raft counts a replica's vote for an entry once flush() returns: a MEMORY append would let a crash
            // lose an entry a majority was counted for.
            throw new IOException("log " + logName + " has durability " + durability +
                "; a replicated partition needs DIRECT or DSYNC");
        }
        final IndexMap map = new IndexMap(opened);
        long hw = opened.startOffset();
        if (snapshot != null)
        {
            setLastAppliedTermIndex(snapshot);
            final IndexMap.Position p = map.floor(snapshot.getIndex());
            hw = p == null ? hw : p.nextOffset();
        }
        synchronized (this)
        {
            nextOffset = opened.endOffset();
            final IndexMap.Position recovered = map.last();
            uncheckedRecoveredIndex = recovered == null ? -1 : recovered.raftIndex();
        }
        log = opened;
        index = map;
        highWatermark = new HighWatermark(hw);
        LOG.info("{}: opened log {} at end offset {}, high watermark {}, snapshot {}", getId(), logName,
            opened.endOffset(), hw, snapshot == null ? "none" : snapshot);
    }

    @Override
    public StateMachineStorage getStateMachineStorage()
    {
        return snapshots;
    }

    @Override
    public long takeSnapshot() throws IOException
    {
        final TermIndex applied = getLastAppliedTermIndex();
        if (applied == null || applied.getIndex() < 0)
        {
            return -1;
        }
        final File file = snapshots.getSnapshotFile(applied.getTerm(), applied.getIndex());
        // The name carries term and index; the content (the high watermark) is for people reading the directory.
        Files.writeString(file.toPath(), "highWatermark=" + highWatermark.value() + "\n");
        final MD5Hash md5 = MD5FileUtil.computeAndSaveMd5ForFile(file);
        snapshots.updateLatestSnapshot(new SingleFileSnapshotInfo(new FileInfo(file.toPath(), md5), applied));
        return applied.getIndex();
    }

    @Override
    public TransactionContext startTransaction(final RaftClientRequest request) throws IOException
    {
        final ByteString content = request.getMessage().getContent();
        if (content.size() < EntryHeader.LENGTH)
        {
            throw new IOException("append request of " + content.size() + " bytes has no entry header");
        }
        final ByteString header = content.substring(0, EntryHeader.LENGTH);
        final ByteString batch = content.substring(EntryHeader.LENGTH);
        final EntryHeader h = EntryHeader.decode(header);
        if (h.batchLength() != batch.size())
        {
            throw new IOException("header says " + h.batchLength() + " batch bytes; request has " + batch.size());
        }
        return TransactionContext.newBuilder().setStateMachine(this).setClientRequest(request)
            .setLogData(header).setStateMachineData(batch).build();
    }

    @Override
    public CompletableFuture<?> write(final LogEntryProto entry, final TransactionContext context)
    {
        try
        {
            final StateMachineLogEntryProto sm = entry.getStateMachineLogEntry();
            final EntryHeader header = EntryHeader.decode(sm.getLogData());
            final ByteString data = sm.getStateMachineEntry().getStateMachineData();
            final byte[] batch = data.toByteArray();
            if (batch.length != header.batchLength() || EntryHeader.crc(batch) != header.crc())
            {
                throw new IOException("batch of entry " + entry.getIndex() + " does not match its header " +
                    header + " (length " + batch.length + ")");
            }
            return append(entry.getIndex(), leaderEpoch(entry.getTerm()), header.recordCount(), batch);
        }
        catch (final Exception e)
        {
            LOG.error("{}: write of entry {} failed", getId(), entry.getIndex(), e);
            return CompletableFuture.failedFuture(e);
        }
    }

    private synchronized CompletableFuture<Long> append(final long raftIndex, final int epoch,
        final int recordCount, final byte[] batch) throws IOException
    {
        final IndexMap.Position last = index.last();
        if (last != null && last.raftIndex() >= raftIndex)
        {
            // The log holds batches of entries Raft does not have: this replica crashed after appending them and
            // before Ratis wrote their headers. It never acknowledged them (no header, no vote), so dropping them
            // loses nothing this replica promised; Raft is now writing this index with what the leader holds.
            LOG.warn("{}: log holds entries up to {} beyond the Raft log; dropping them before writing {}", getId(),
                last.raftIndex(), raftIndex);
            truncateLocked(raftIndex);
        }
        if (uncheckedRecoveredIndex >= 0)
        {
            dropRecoveredBatchesRaftLacks(raftIndex);
            uncheckedRecoveredIndex = -1;
        }
        final long base = nextOffset;
        final byte[] frame = new byte[FrameDescriptor.HEADER_LENGTH + batch.length];
        FrameDescriptor.writeHeader(frame, raftIndex, epoch);
        System.arraycopy(batch, 0, frame, FrameDescriptor.HEADER_LENGTH, batch.length);
        stamper.stamp(frame, FrameDescriptor.HEADER_LENGTH, batch.length, base, epoch);
        nextOffset = base + recordCount;
        index.put(new IndexMap.Position(raftIndex, base, recordCount, epoch));
        final CompletableFuture<Long> written = log.append(frame, recordCount, durability).thenApply(offset ->
        {
            if (offset != base)
            {
                throw new IllegalStateException(logName + ": entry " + raftIndex + " expected offset " + base +
                    ", the log gave " + offset);
            }
            return offset;
        });
        pendingWrites.put(raftIndex, written);
        written.whenComplete((offset, error) -> pendingWrites.remove(raftIndex, written));
        return written;
    }

    /**
     * Ratis applies an entry without a batch (a configuration entry; a new leader's first of its term). A restarted
     * replica elected leader at once writes nothing before its broker asks for its log end (ReplicatedTopicPartition
     * waits for the high watermark to reach it before the first append): a recovered batch Ratis's log lacks would
     * keep the log end above the high watermark for ever. Check the recovered tail here too.
     */
    @Override
    public void notifyTermIndexUpdated(final long term, final long index)
    {
        super.notifyTermIndexUpdated(term, index);
        final IndexMap.Position last;
        synchronized (this)
        {
            if (uncheckedRecoveredIndex < 0)
            {
                return;
            }
            last = this.index.last();
        }
        try
        {
            // Ratis's log is asked outside this monitor: Ratis's log thread holds that log's lock when it calls
            // write(), which takes this monitor; asking it under the monitor here could deadlock the two.
            final long cutFrom = staleFrom(last);
            synchronized (this)
            {
                if (uncheckedRecoveredIndex < 0 || !java.util.Objects.equals(this.index.last(), last))
                {
                    return; // a write came in between and checked
                }
                if (cutFrom >= 0)
                {
                    LOG.warn("{}: log holds batches from entry {} that Ratis's log lacks; dropping them at entry {}",
                        getId(), cutFrom, index);
                    truncateLocked(cutFrom);
                }
                uncheckedRecoveredIndex = -1;
            }
        }
        catch (final IOException | RuntimeException e)
        {
            // the next write checks again
            LOG.warn("{}: checking the recovered log against Ratis's log at entry {} failed", getId(), index, e);
        }
    }

    /** @return the first of the batches from last down that Ratis's log lacks, or -1; without a log view -1. */
    private long staleFrom(final IndexMap.Position last) throws IOException
    {
        final RaftLogTerms terms = raftLogTerms;
        long cutFrom = -1;
        if (terms == null)
        {
            return cutFrom;
        }
        for (IndexMap.Position p = last; p != null && !terms.holds(p.raftIndex(), p.leaderEpoch());
             p = index.floor(p.raftIndex() - 1))
        {
            cutFrom = p.raftIndex();
        }
        return cutFrom;
    }

    /**
     * The first write after a restart: batches this replica appended before it crashed and whose headers Ratis never
     * wrote are not in Ratis's log, also when they sit below the index written now. A new leader's first entry of
     * its term (a configuration entry, no batch) takes such a batch's index, so Ratis calls neither truncate nor a
     * write at or below it; kept, the stale batch would shift every later offset on this replica alone (issue 22's
     * process-kill suite: a restarted leader, later leader again, served offsets 9 records past its followers').
     * Walks back from the log's last batch while Ratis's log does not hold it in the batch's term.
     */
    private void dropRecoveredBatchesRaftLacks(final long raftIndex) throws IOException
    {
        // On Ratis's log thread, which holds Ratis's log lock: asking that log under this monitor is safe here.
        final long cutFrom = staleFrom(index.last());
        if (cutFrom >= 0)
        {
            LOG.warn("{}: log holds batches from entry {} that Ratis's log lacks; dropping them before writing {}",
                getId(), cutFrom, raftIndex);
            truncateLocked(cutFrom);
        }
    }

    @Override
    public void notifyLeaderChanged(final RaftGroupMemberId member, final RaftPeerId newLeaderId)
    {
        leaderChanges.increment();
        leaderChangedAtMillis = System.currentTimeMillis();
    }

    /** Ratis: this replica leads and its term's first entry is committed (on the leader's own thread: no blocking). */
    @Override
    public void notifyLeaderReady()
    {
        leaderReadyAtMillis = System.currentTimeMillis();
    }

    long leaderChangedAtMillis()
    {
        return leaderChangedAtMillis;
    }

    /**
     * @return when this replica last became a ready leader, or -1 when it has not since the last leader change
     *         (Ratis tells the change, its own election included, before it tells readiness).
     */
    long leaderReadyAtMillis()
    {
        final long ready = leaderReadyAtMillis;
        return ready >= leaderChangedAtMillis ? ready : -1;
    }

    /** Package-private for tests that drive the hooks without a server. */
    void raftLogTerms(final RaftLogTerms terms)
    {
        raftLogTerms = terms;
    }

    /** What the state machine asks of Ratis's log. */
    @FunctionalInterface
    interface RaftLogTerms
    {
        /**
         * @return whether Ratis's log holds (or held, before a purge) the entry at index in term.
         * @throws IOException when the log cannot be reached.
         */
        boolean holds(long index, long term) throws IOException;
    }

    @Override
    public CompletableFuture<Void> flush(final long logIndex)
    {
        // The log acknowledges appends in offset order, once durable: the last one at or below logIndex covers all.
        final Map.Entry<Long, CompletableFuture<Long>> last = pendingWrites.floorEntry(logIndex);
        return last == null ? CompletableFuture.completedFuture(null) : last.getValue().thenApply(offset -> null);
    }

    @Override
    public CompletableFuture<Void> truncate(final long logIndex)
    {
        try
        {
            synchronized (this)
            {
                truncateLocked(logIndex);
            }
            return CompletableFuture.completedFuture(null);
        }
        catch (final RuntimeException e)
        {
            LOG.error("{}: truncate from entry {} failed", getId(), logIndex, e);
            return CompletableFuture.failedFuture(e);
        }
    }

    private void truncateLocked(final long raftIndex)
    {
        final IndexMap.Position first = index.ceiling(raftIndex);
        if (first == null)
        {
            return;
        }
        if (first.baseOffset() < highWatermark.value())
        {
            throw new IllegalStateException(logName + ": refusing to truncate committed offsets: entry " +
                raftIndex + " starts at " + first.baseOffset() + ", high watermark " + highWatermark.value());
        }
        LOG.info("{}: truncating log {} from entry {} (offset {}, end was {})", getId(), logName, raftIndex,
            first.baseOffset(), nextOffset);
        log.truncateTo(first.baseOffset());
        nextOffset = first.baseOffset();
        index.removeFrom(raftIndex, first.baseOffset());
    }

    @Override
    public CompletableFuture<ByteString> read(final LogEntryProto entry, final TransactionContext context)
    {
        final long raftIndex = entry.getIndex();
        final CompletableFuture<Long> pending = pendingWrites.get(raftIndex);
        final CompletableFuture<?> written = pending == null ? CompletableFuture.completedFuture(null) : pending;
        return written.thenApplyAsync(ignored -> readForFollower(raftIndex), readExecutor);
    }

    private ByteString readForFollower(final long raftIndex)
    {
        final IndexMap.Position p = index.lookup(raftIndex);
        if (p == null)
        {
            throw new IllegalStateException(logName + ": no batch for entry " + raftIndex);
        }
        final byte[] frame = readFrame(p);
        final byte[] batch = new byte[frame.length - FrameDescriptor.HEADER_LENGTH];
        System.arraycopy(frame, FrameDescriptor.HEADER_LENGTH, batch, 0, batch.length);
        stamper.clear(batch, 0, batch.length);
        return UnsafeByteOperations.unsafeWrap(batch);
    }

    private byte[] readFrame(final IndexMap.Position p)
    {
        try (RecordBatch batch = log.read(p.baseOffset(), 1))
        {
            final Iterator<Record> it = batch.iterator();
            if (!it.hasNext())
            {
                throw new IllegalStateException(logName + ": offset " + p.baseOffset() + " is not readable");
            }
            final byte[] frame = it.next().payloadBytes();
            final long stored = ByteBuffer.wrap(frame).getLong(FrameDescriptor.RAFT_INDEX_OFFSET);
            if (stored != p.raftIndex())
            {
                throw new IllegalStateException(logName + ": offset " + p.baseOffset() + " holds entry " + stored +
                    ", expected " + p.raftIndex());
            }
            return frame;
        }
    }

    @Override
    public CompletableFuture<Message> applyTransaction(final TransactionContext trx)
    {
        final LogEntryProto entry = trx.getLogEntry();
        try
        {
            final IndexMap.Position p = index.lookup(entry.getIndex());
            if (p == null)
            {
                throw new IllegalStateException(logName + ": committed entry " + entry.getIndex() +
                    " has no batch in the log");
            }
            final CompletableFuture<Long> pending = pendingWrites.get(entry.getIndex());
            if (pending != null)
            {
                // Raft may commit an entry a follower has written to its Raft log while the append is still being
                // acknowledged; the high watermark must not pass a batch readers cannot read yet.
                pending.get(APPLY_WAIT.toMillis(), TimeUnit.MILLISECONDS);
            }
            highWatermark.advanceTo(p.nextOffset());
            updateLastAppliedTermIndex(entry.getTerm(), entry.getIndex());
            tellHighWatermarkListeners();
            if (index.inMemorySize() > 2 * IN_MEMORY_POSITIONS)
            {
                synchronized (this)
                {
                    index.forgetBefore(entry.getIndex() - IN_MEMORY_POSITIONS);
                }
            }
            return CompletableFuture.completedFuture(Message.valueOf(
                UnsafeByteOperations.unsafeWrap(ByteBuffer.allocate(Long.BYTES).putLong(0, p.baseOffset()))));
        }
        catch (final Exception e)
        {
            LOG.error("{}: apply of entry {} failed", getId(), entry.getIndex(), e);
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public CompletableFuture<TermIndex> notifyInstallSnapshotFromLeader(final RoleInfoProto roleInfo,
        final TermIndex firstTermIndexInLog)
    {
        // The leader purged entries this replica lacks. A snapshot here is an index, not data: accepting it would
        // leave a hole in this replica's log. Until a log-copy snapshot exists, the replica stays behind, loudly.
        LOG.error("{}: the leader asks for a snapshot install (its log starts at {}); not supported: this replica " +
            "needs its log copied from another replica", getId(), firstTermIndexInLog);
        return CompletableFuture.failedFuture(new UnsupportedOperationException(
            "snapshot install is not supported for replicated partitions"));
    }

    /** Committed batches from offset, up to maxBytes of payload (at least one when any is committed there). */
    List<ReplicatedBatch> readCommitted(final long offset, final int maxBytes)
    {
        final Log l = log;
        if (offset < l.startOffset())
        {
            throw new IllegalArgumentException(logName + ": offset " + offset + " is below the start offset " +
                l.startOffset());
        }
        if (maxBytes <= 0)
        {
            throw new IllegalArgumentException("maxBytes must be positive; got " + maxBytes);
        }
        final long hw = highWatermark.value();
        final List<ReplicatedBatch> out = new ArrayList<>();
        if (offset >= hw)
        {
            return out;
        }
        int bytes = 0;
        try (RecordBatch batch = l.read(offset, maxBytes))
        {
            for (final Record r : batch)
            {
                if (r.offset() >= hw || (!out.isEmpty() && bytes + r.payloadLength() > maxBytes))
                {
                    break;
                }
                final byte[] frame = r.payloadBytes();
                final ByteBuffer b = ByteBuffer.wrap(frame);
                final byte[] payload = new byte[frame.length - FrameDescriptor.HEADER_LENGTH];
                System.arraycopy(frame, FrameDescriptor.HEADER_LENGTH, payload, 0, payload.length);
                out.add(new ReplicatedBatch(r.offset(), r.recordCount(),
                    b.getInt(FrameDescriptor.LEADER_EPOCH_OFFSET), payload));
                bytes += payload.length;
            }
        }
        return out;
    }

    void addHighWatermarkListener(final Runnable listener)
    {
        highWatermarkListeners.add(java.util.Objects.requireNonNull(listener, "listener"));
    }

    private void tellHighWatermarkListeners()
    {
        for (final Runnable listener : highWatermarkListeners)
        {
            try
            {
                listener.run();
            }
            catch (final RuntimeException e)
            {
                // a listener's failure is its own; the apply thread serves every partition's commits
                LOG.warn("{}: high-watermark listener failed", getId(), e);
            }
        }
    }

    HighWatermark highWatermark()
    {
        return highWatermark;
    }

    Log log()
    {
        return log;
    }

    synchronized long nextOffset()
    {
        return nextOffset;
    }

    private int leaderEpoch(final long term)
    {
        if (term > Integer.MAX_VALUE)
        {
            throw new IllegalStateException(logName + ": Raft term " + term + " does not fit a Kafka leader epoch");
        }
        return (int)term;
    }
}
