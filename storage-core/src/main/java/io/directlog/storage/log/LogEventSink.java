package io.directlog.storage.log;

/**
 * The events of one log, as its parts report them: the store's {@link LogEvents} bound to the log they come from,
 * so that a part needs no reference to the facade.
 * <p>
 * Thread-safe as the {@link LogEvents} it forwards to (the writer, the syncer and producers all report).
 */
final class LogEventSink
{
    private final LogEvents events;
    private final DefaultLog log;

    LogEventSink(final LogEvents events, final DefaultLog log)
    {
        this.events = events;
        this.log = log;
    }

    /** Writer: a group commit's device write (and fdatasync, where it needs one) took {@code nanos}. */
    void flushed(final long nanos)
    {
        events.flushed(log, nanos);
    }

    /** Syncer: a background fdatasync of the log's segments took {@code nanos}. */
    void synced(final long nanos)
    {
        events.synced(log, nanos);
    }

    /** The log failed and stops taking appends. */
    void failStopped()
    {
        events.failStopped(log);
    }

    /** Writer: an append was refused because the log is full. */
    void refusedFull()
    {
        events.refusedFull(log);
    }

    /** Producer: an append or command found no room in the writer's queue within its timeout. */
    void appendTimedOut()
    {
        events.appendTimedOut(log);
    }
}
