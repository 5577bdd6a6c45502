package io.directlog.storage.io;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicBoolean;

import io.directlog.nativeio.AioContext;
import io.directlog.nativeio.Errno;
import io.directlog.nativeio.NativeIoException;
import io.directlog.storage.spi.BlockFile;
import io.directlog.storage.spi.BlockWriteBatch;
import io.directlog.storage.spi.SequentialWriteBatch;

/**
 * The writes of a shared flush through one Linux native AIO context ({@link AioContext}): one {@code io_submit}
 * puts up to {@value #AIO_WRITES} of them in flight at once and one {@code io_getevents} waits for them, on the
 * writer thread itself. Why not a pool of I/O threads: a store runs on few cores shared with its producers, where
 * a hand-off per write costs as much as the write; AIO costs two system calls per cycle and no thread.
 * <p>
 * Falls back to {@link BlockFile#write} in turn for a file that is not this I/O layer's own native file (a test's
 * or an application's wrapper), for a write the kernel could not queue (EAGAIN with nothing in flight), and for
 * every write when io_setup fails (said once per process: the system's {@code aio-max-nr} used up, a kernel
 * without AIO).
 * <p>
 * Not thread-safe: the writer thread's. Arrays grow to the largest batch seen; a batch allocates nothing unless a
 * write fails.
 */
final class NativeWriteBatch implements BlockWriteBatch
{
    /** Writes one io_submit puts in flight at most; a larger batch goes in several. */
    static final int AIO_WRITES = 128;
    private static final System.Logger LOG = System.getLogger(NativeWriteBatch.class.getName());
    private static final AtomicBoolean SETUP_FAILURE_LOGGED = new AtomicBoolean();

    /** Null when io_setup failed: every write goes through {@link BlockFile#write}. */
    private final AioContext aio;
    private BlockFile[] files = new BlockFile[16];
    private ByteBuffer[] sources = new ByteBuffer[16];
    private int[] indexes = new int[16];
    private int[] lengths = new int[16];
    private long[] positions = new long[16];
    private Throwable[] failures = new Throwable[16];
    /** Which write each slot of the AIO context holds in the chunk in flight. */
    private final int[] chunk = new int[AIO_WRITES];
    private int size;

    NativeWriteBatch()
    {
        this(openContext());
    }

    NativeWriteBatch(final AioContext aio)
    {
        this.aio = aio;
    }

    private static AioContext openContext()
    {
        try
        {
            return AioContext.open(AIO_WRITES);
        }
        catch (final NativeIoException | RuntimeException e)
        {
            if (SETUP_FAILURE_LOGGED.compareAndSet(false, true))
            {
                LOG.log(System.Logger.Level.WARNING, "native AIO unavailable (" + e.getMessage() + "): the logs " +
                    "sharing a device flush write one after another");
            }
            return null;
        }
    }

    /** @return true when writes go through native AIO (false after a failed io_setup or io_getevents). */
    boolean usesAio()
    {
        return aio != null && aio.isOpen();
    }

    @Override
    public int add(final BlockFile file, final ByteBuffer source, final int index, final int length,
        final long position)
    {
        if (size == files.length)
        {
            final int grown = size * 2;
            files = Arrays.copyOf(files, grown);
            sources = Arrays.copyOf(sources, grown);
            indexes = Arrays.copyOf(indexes, grown);
            lengths = Arrays.copyOf(lengths, grown);
            positions = Arrays.copyOf(positions, grown);
            failures = Arrays.copyOf(failures, grown);
        }
        files[size] = file;
        sources[size] = source;
        indexes[size] = index;
        lengths[size] = length;
        positions[size] = position;
        failures[size] = null;
        return size++;
    }

    @Override
    public int size()
    {
        return size;
    }

    @Override
    public void writeAll()
    {
        for (int i = 0; i < size; i++)
        {
            if (aio != null && aio.isOpen() && files[i] instanceof NativeBlockIo.NativeBlockFile own)
            {
                final long address;
                try
                {
                    address = NativeFileHandle.address(sources[i], indexes[i], lengths[i]);
                }
                catch (final RuntimeException e)
                {
                    failures[i] = e; // as BlockFile.write would throw it
                    continue;
                }
                chunk[aio.add(own.file, address, lengths[i], positions[i])] = i;
                if (aio.size() == aio.capacity())
                {
                    awaitChunk();
                }
            }
            else
            {
                failures[i] = SequentialWriteBatch.write(files[i], sources[i], indexes[i], lengths[i], positions[i]);
            }
        }
        if (aio != null && aio.isOpen() && aio.size() > 0)
        {
            awaitChunk();
        }
    }

    /** Submits the writes in the AIO context, waits for them, and takes each one's outcome. */
    private void awaitChunk()
    {
        NativeIoException whole = null;
        try
        {
            aio.submitAndAwait();
        }
        catch (final NativeIoException e)
        {
            whole = e; // io_getevents failed: the context is closed, each write failed with its errno
        }
        for (int slot = 0; slot < aio.size(); slot++)
        {
            final int i = chunk[slot];
            if (whole == null && aio.result(slot) == -Errno.EAGAIN)
            {
                // never submitted: the kernel had no room, with nothing in flight; written the plain way
                failures[i] = SequentialWriteBatch.write(files[i], sources[i], indexes[i], lengths[i], positions[i]);
            }
            else
            {
                failures[i] = aio.failure(slot);
            }
        }
        aio.clear();
    }

    @Override
    public Throwable failure(final int write)
    {
        if (write < 0 || write >= size)
        {
            throw new IndexOutOfBoundsException("write " + write + " of a batch of " + size);
        }
        return failures[write];
    }

    @Override
    public void clear()
    {
        Arrays.fill(files, 0, size, null);
        Arrays.fill(sources, 0, size, null);
        Arrays.fill(failures, 0, size, null);
        size = 0;
    }

    @Override
    public void close()
    {
        clear();
        if (aio != null)
        {
            aio.close();
        }
    }
}
