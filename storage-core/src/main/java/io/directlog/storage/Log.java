package io.directlog.storage;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import org.agrona.DirectBuffer;

/**
 * A named append-only sequence of records with dense 64-bit offsets from 0.
 * <p>
 * Appends are accepted from any thread and handed to the one writer thread that owns this log; they are
 * acknowledged in offset order. Reads are served from resident cache pages without a lock the writer
 * waits on, or from disk.
 * <p>
 * Visibility: readers see records that are durable under the log's default durability
 * ({@link LogConfig#durability()}), whatever durability their own appends asked for. A MEMORY log shows what is
 * copied into memory; a DIRECT log shows what its O_DIRECT writes wrote; a DSYNC log shows what an O_DSYNC write
 * or the background fdatasync made durable, so records appended there with DIRECT or MEMORY become visible at
 * the next DSYNC write or within about {@code syncInterval}; a reader that waits for them ({@link #awaitAppend},
 * {@link LogReader#poll(int, Duration)}) brings that forward to about one {@code flushInterval} (the writes it
 * waits for go through the O_DSYNC descriptor, see {@code docs/durability.md}).
 * <p>
 * Waiting for a future: {@code join()} and {@code get()} of the futures returned here poll for the result for a
 * short budget adapted to the calling thread's recent waits (50 us to 1 ms, as {@link AppendWaiter}) before they
 * park, so a producer that appends and joins at once does not cost the writer a thread wake-up per append.
 * <p>
 * Completion threads: an append's {@link AppendCallback}, and the stages of its future added with the non-async
 * methods ({@code thenApply}, {@code whenComplete}, ...) before it completes, run on the writer thread of this
 * log; an append refused before it is queued (closed log, fail-stop, full queue after the append timeout)
 * completes on the calling thread, and a stage added after completion runs on the thread that adds it. Code that
 * runs on the writer must not block: it holds up every log of that writer. What a callback throws is caught,
 * counted ({@link LogStats#callbackErrors()}, the meter {@code directlog.callback.errors}) and logged; the writer
 * goes on (a future's stage that throws completes its own dependent future exceptionally, as
 * {@link CompletableFuture} does). A callback may call {@link #close()} (it returns at once, the writer closes
 * the log after the work already queued); it must not call {@link LogStore#close()} or {@link #truncateTo},
 * which wait for the writer and are refused there.
 * <p>
 * Thread-safe.
 */
public interface Log extends AutoCloseable
{
    /** @return the log's name within its store. */
    String name();

    /** @return the log's configuration. */
    LogConfig config();

    /**
     * Changes this log's settings for every holder of it, durably: the config is persisted in the log's
     * {@code log.config} first, then applied. Appends already queued keep the durability they were given.
     *
     * @param config the new settings; its segment size must be the log's.
     * @throws IllegalArgumentException when config changes the segment size (fixed when the log is created).
     * @throws LogClosedException       after close.
     * @throws StorageException         when the config cannot be persisted (the log keeps its settings).
     */
    void reconfigure(LogConfig config);

    /**
     * Appends one record with the log's default durability.
     *
     * @param payload the record's bytes; copied before this method returns.
     * @return the record's offset once it is acknowledged; its non-async stages run on the writer thread (see
     * "Completion threads" above).
     */
    CompletableFuture<Long> append(byte[] payload);

    /**
     * Appends one record.
     *
     * @param payload    the record's bytes; copied before this method returns.
     * @param durability when to acknowledge.
     * @return the record's offset once it is acknowledged; its non-async stages run on the writer thread (see
     * "Completion threads" above).
     */
    CompletableFuture<Long> append(byte[] payload, Durability durability);

    /**
     * Appends a producer's batch that holds {@code recordCount} records: it takes the offsets
     * {@code [base, base + recordCount)}.
     *
     * @param payload     the batch's bytes; copied before this method returns.
     * @param recordCount how many records the payload holds; at least 1.
     * @param durability  when to acknowledge.
     * @return the base offset once the batch is acknowledged; its non-async stages run on the writer thread (see
     * "Completion threads" above).
     */
    CompletableFuture<Long> append(byte[] payload, int recordCount, Durability durability);

    /**
     * Appends the remaining bytes of a buffer as one record; the buffer's position is not moved.
     *
     * @param payload    the record's bytes; copied before this method returns.
     * @param durability when to acknowledge.
     * @return the record's offset once it is acknowledged; its non-async stages run on the writer thread (see
     * "Completion threads" above).
     */
    CompletableFuture<Long> append(ByteBuffer payload, Durability durability);

    /**
     * The allocation-free append: copies {@code length} bytes at {@code index} and calls back on completion.
     *
     * @param buffer     the source; copied before this method returns.
     * @param index      the first byte.
     * @param length     how many bytes.
     * @param durability when to acknowledge.
     * @param callback   called once, in offset order, with the offset or the error: on the writer thread, or on
     *                   this thread when the append is refused before it is queued (see "Completion threads").
     */
    void append(DirectBuffer buffer, int index, int length, Durability durability, AppendCallback callback);

    /**
     * The allocation-free append of a producer's batch.
     *
     * @param buffer      the source; copied before this method returns.
     * @param index       the first byte.
     * @param length      how many bytes.
     * @param recordCount how many records the bytes hold; at least 1.
     * @param durability  when to acknowledge.
     * @param callback    called once, in offset order, with the base offset or the error: on the writer thread,
     *                    or on this thread when the append is refused before it is queued (see "Completion
     *                    threads").
     */
    void append(DirectBuffer buffer, int index, int length, int recordCount, Durability durability,
        AppendCallback callback);

    /** @return the offset the next append will get (appends queued but not yet written are not counted). */
    long endOffset();

    /** @return the first offset still stored; moves up with retention. */
    long startOffset();

    /** @return the offset below which every record is readable (the visibility rule of this log). */
    long visibleEndOffset();

    /**
     * Reads whole appends starting with the one that holds {@code offset}.
     * <p>
     * A read that starts where the previous read of this log ended is taken as sequential, as {@link #reader}'s
     * reads always are: a cold segment is paged in whole (evicting colder pages if need be) and the next rolled
     * segments are paged in ahead in the background ({@link StoreConfig#readAheadBytes()}). Other reads of a cold
     * segment page it in only when the budget has room, and otherwise read just the range they need.
     *
     * @param offset   where to start; within {@code [startOffset(), endOffset()]}. An offset in a hole a
     *                 TRUNCATE_AT_CORRUPTION recovery left (see {@link RecoveryReport}) reads from the hole's end:
     *                 the batch's first record then has a higher offset.
     * @param maxBytes an upper bound on the batch's bytes; at least one whole append is returned.
     * @return the batch; empty when {@code offset} is not yet readable. Close it.
     * @throws OffsetOutOfRangeException when offset is below the start or above the end.
     * @throws IllegalArgumentException  when offset is negative or maxBytes is not positive.
     * @throws LogClosedException        after close.
     */
    RecordBatch read(long offset, int maxBytes);

    /**
     * The first offset whose timestamp is at or after {@code timestampMillis}.
     *
     * @param timestampMillis epoch milliseconds.
     * @return that offset, or {@link #visibleEndOffset()} when no readable record is that late.
     */
    long offsetForTimestamp(long timestampMillis);

    /**
     * Waits until {@code offset} is readable: for long-poll consumers.
     *
     * @param offset  the offset a consumer wants next.
     * @param timeout how long to wait.
     * @return true when the offset became readable, false on timeout.
     * @throws IllegalArgumentException when offset is negative.
     * @throws InterruptedException when interrupted while waiting.
     */
    boolean awaitAppend(long offset, Duration timeout) throws InterruptedException;

    /**
     * Opens a sequential reader.
     *
     * @param offset the first offset to read.
     * @return the reader; close it.
     */
    LogReader reader(long offset);

    /**
     * Drops every record at or above {@code offset}, durably, before returning; appends continue from it. Runs on
     * the log's writer after the appends queued before it; readers holding batches of dropped records keep valid
     * memory until they close them.
     *
     * @param offset the new end offset, within {@code [startOffset(), endOffset()]}; an offset in a hole a
     *               TRUNCATE_AT_CORRUPTION recovery left (see {@link RecoveryReport}) truncates at the hole's end, so
     *               that its offsets are never given to new records.
     * @throws OffsetOutOfRangeException when offset is outside that range.
     * @throws IllegalArgumentException  when offset lies inside a producer batch (recordCount &gt; 1).
     * @throws LogClosedException        after close.
     * @throws LogFailedException        after fail-stop, or when the truncation's own I/O fails (it fail-stops).
     */
    void truncateTo(long offset);

    /**
     * @param requested the durability an append would ask for.
     * @return the durability this log actually provides when asked for it (DIRECT depends on device and
     *         filesystem checks).
     */
    Durability effectiveDurability(Durability requested);

    /** @return what opening this log found: clean shutdown or not, bytes scanned, where it was cut, records dropped. */
    RecoveryReport recoveryReport();

    /** @return a snapshot of this log's counters. */
    LogStats stats();

    /** @return true while the log accepts appends; false after close or fail-stop. */
    boolean isWritable();

    /**
     * Flushes and fdatasyncs everything, persists the active segment's index, records a clean shutdown in the
     * checkpoint (so the next open reads no record data), and releases the log's pages. Idempotent.
     * <p>
     * Called on this log's writer thread (inside an append callback), it returns at once: the writer closes the
     * log after the work already queued. {@link LogStore#log(String)} afterwards opens the log anew.
     */
    @Override
    void close();
}
