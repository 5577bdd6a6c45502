package io.directlog.storage.log;

/**
 * A log's slot in its writer ({@link io.directlog.storage.writer.LogWriterAgent#register}), which addresses the
 * commands its parts send the writer. The log registers last, once every part is built (the writer may call it
 * from then on), and sets the slot here; parts read it only when they queue a command, never before.
 */
final class WriterSlot
{
    private volatile int slot = -1;

    /** @param registered the slot the writer gave. Opening thread, once. */
    void set(final int registered)
    {
        slot = registered;
    }

    /** @return the slot. */
    int get()
    {
        return slot;
    }
}
