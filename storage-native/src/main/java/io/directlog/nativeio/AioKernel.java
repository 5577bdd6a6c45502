package io.directlog.nativeio;

/**
 * The four Linux native AIO system calls {@link AioContext} makes, each returning what the kernel returns: a
 * result of zero or more, or the negated errno. An interface so that the contract tests can make the kernel accept
 * fewer writes than offered, or refuse them with EAGAIN, which a real kernel does only under memory pressure.
 * <p>
 * Stateless; thread-safe.
 */
interface AioKernel
{
    /** io_setup: creates a context for {@code nrEvents} requests in flight, its id stored at {@code ctxIdAddress}. */
    long setup(int nrEvents, long ctxIdAddress);

    /** io_destroy: cancels what is in flight, waits for it, frees the context. */
    long destroy(long ctxId);

    /** io_submit: queues up to {@code nr} requests from the array of iocb pointers; returns how many it took. */
    long submit(long ctxId, long nr, long iocbPointers);

    /** io_getevents with no timeout: waits for at least {@code minNr} completions, returns up to {@code nr}. */
    long getEvents(long ctxId, long minNr, long nr, long events);

    /** @return the calls of this machine's kernel, through {@code syscall(2)}. */
    static AioKernel linux()
    {
        return LinuxAio.INSTANCE;
    }

    /**
     * The calls through glibc's {@code syscall(2)} (glibc has no wrappers for them). The numbers are the
     * architecture's own: x86-64 kept its historical table, aarch64 uses the asm-generic one.
     */
    final class LinuxAio implements AioKernel
    {
        static final LinuxAio INSTANCE = new LinuxAio(Platform.CURRENT);

        private final long ioSetup;
        private final long ioDestroy;
        private final long ioGetEvents;
        private final long ioSubmit;

        LinuxAio(final int platform)
        {
            if (platform == Platform.X86_64)
            {
                ioSetup = 206;
                ioDestroy = 207;
                ioGetEvents = 208;
                ioSubmit = 209;
            }
            else if (platform == Platform.AARCH64)
            {
                ioSetup = 0;
                ioDestroy = 1;
                ioSubmit = 2;
                ioGetEvents = 4;
            }
            else
            {
                // no number is ever guessed: a wrong one would make an unrelated system call
                ioSetup = -1;
                ioDestroy = -1;
                ioGetEvents = -1;
                ioSubmit = -1;
            }
        }

        private long call(final long number, final long a1, final long a2, final long a3, final long a4)
        {
            if (number < 0)
            {
                return -Errno.ENOSYS;
            }
            final long r = LibC.syscall(number, a1, a2, a3, a4, 0);
            return r == -1 ? -NativeIo.errno() : r;
        }

        @Override
        public long setup(final int nrEvents, final long ctxIdAddress)
        {
            return call(ioSetup, nrEvents, ctxIdAddress, 0, 0);
        }

        @Override
        public long destroy(final long ctxId)
        {
            return call(ioDestroy, ctxId, 0, 0, 0);
        }

        @Override
        public long submit(final long ctxId, final long nr, final long iocbPointers)
        {
            return call(ioSubmit, ctxId, nr, iocbPointers, 0);
        }

        @Override
        public long getEvents(final long ctxId, final long minNr, final long nr, final long events)
        {
            return call(ioGetEvents, ctxId, minNr, nr, events); // the fifth argument, the timeout, is NULL
        }
    }
}
