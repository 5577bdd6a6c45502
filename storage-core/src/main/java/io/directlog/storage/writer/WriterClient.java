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
     * @param nowNanos the time.
     * @return when the next background flush is due, or Long.MAX_VALUE.
     */
    long nextDeadlineNanos(long nowNanos);
}
