package io.directlog.storage.writer;

import io.directlog.storage.AppendCallback;
import io.directlog.storage.Durability;
import org.agrona.DirectBuffer;

/**
 * A log as its writer thread sees it. Every method runs on the writer thread.
 */
public interface WriterClient
{
    /**
     * Copies one append into the log's cache page.
     *
     * @param source      the bytes (in the writer's queue).
     * @param index       first byte.
     * @param length      how many.
     * @param recordCount records the payload holds.
     * @param durability  when to acknowledge.
     * @param callback    the completion.
     */
    void onAppend(DirectBuffer source, int index, int length, int recordCount, Durability durability,
        AppendCallback callback);

    /**
     * Flushes what is due, completes what is durable.
     *
     * @param nowNanos the time.
     * @return work done (0 when idle).
     */
    int onDutyCycle(long nowNanos);

    /**
     * Whether the log still needs a turn in each duty cycle. After a turn that leaves nothing it copied unwritten
     * and no append of it waiting, false: the writer then gives it a turn only when a message for it arrives or in
     * its periodic sweep (see {@link ClientTurns}), so a writer of many quiet logs visits the busy ones only. Only
     * a log that needs turns may have a background flush due ({@link #nextDeadlineNanos}).
     *
     * @return true (the default) keeps the log in every duty cycle.
     */
    default boolean needsDutyCycles()
    {
        return true;
    }

    /**
     * @param nowNanos the time.
     * @return when the next background flush is due, or Long.MAX_VALUE.
     */
    long nextDeadlineNanos(long nowNanos);

    /**
     * Fail-stop: the log's writer-side code threw ({@link #onAppend} or {@link #onDutyCycle}), or its writer thread
     * is ending. Every pending and later append fails with the log's sticky failure; reads go on. On the writer
     * thread.
     *
     * @param what       what failed, for the failure's message.
     * @param cause      what was thrown.
     * @param unfinished the append {@link #onAppend} was handling when it threw, or null: completed with the failure
     *                   unless the log already holds it among its pending appends (which the failure completes).
     */
    void onFailure(String what, Throwable cause, AppendCallback unfinished);
}
