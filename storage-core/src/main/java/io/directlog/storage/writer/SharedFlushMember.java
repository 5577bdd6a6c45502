package io.directlog.storage.writer;

import io.directlog.storage.spi.BlockFile;
import io.directlog.storage.spi.BlockIo;
import io.directlog.storage.spi.BlockWriteBatch;

/**
 * A log waiting for a DSYNC flush in its writer's duty cycle, as the writer's {@link SharedFlush} sees it. Every
 * method runs on the writer thread, in the same duty cycle as the log's {@link LogWriterAgent#joinSharedFlush}.
 * A shared flush calls, for each log, {@link #addWrite} (before the I/O), then, once the writes of all of them
 * have ended, {@link #onWritten}, then, after the one device flush, {@link #onSharedFlush}.
 */
public interface SharedFlushMember
{
    /** @return the I/O layer of the log's files: the writer takes its {@link BlockWriteBatch} from it. */
    BlockIo io();

    /**
     * Readies what the log copied for its write (the gap after the last record filled, rolled segments synced if
     * a DSYNC flush must cover them) and adds that one write, through the plain O_DIRECT descriptor, to
     * {@code batch}; writes nothing itself and acknowledges nothing.
     *
     * @param batch the writes of this shared flush.
     * @return the file the write goes to, or null when the log failed before its write (it failed itself and its
     * appends; it added nothing, and the flush does not cover it).
     */
    BlockFile addWrite(BlockWriteBatch batch);

    /**
     * The batch's writes ended.
     *
     * @param failure null when the log's write wrote all its bytes, else why not (the log fail-stops with it).
     * @param nanos   how long the batch's writes took.
     * @return true when written (the device flush covers it); false when the log failed.
     */
    boolean onWritten(Throwable failure, long nanos);

    /**
     * The device flush after the writes ended.
     *
     * @param failure null when it succeeded (the log's write is durable: acknowledge), else what it threw (the log
     *                fail-stops with it).
     */
    void onSharedFlush(Throwable failure);

    /** No other log of the device flushes in this cycle: flush as a log alone does (one O_DSYNC write). */
    void flushAlone();
}
