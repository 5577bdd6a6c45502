package io.directlog.storage;

/**
 * Completion of an append on the allocation-free path.
 * <p>
 * Called exactly once, on a writer thread (or on the caller's thread when the append is refused before it
 * is queued): with the base offset and a null error on success, or with {@code -1} and the error. Callbacks
 * of one log are called in offset order. A callback must not block: it runs on the thread that writes the log.
 * What it throws is caught, counted ({@link LogStats#callbackErrors()}) and logged; the writer goes on.
 */
@FunctionalInterface
public interface AppendCallback
{
    /**
     * The append completed.
     *
     * @param offset the base offset given to the append, or -1 on failure.
     * @param error  null on success, else why the append failed.
     */
    void onComplete(long offset, Throwable error);
}
