package io.directlog.nativeio;

import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Finds out whether O_DIRECT really works in a directory by doing it: create a temporary file with O_DIRECT, write
 * one aligned block from aligned memory, read it back with O_DIRECT, compare, delete. Opening with O_DIRECT is not
 * enough of a test: some filesystems accept the flag and fail (EINVAL) only at the first I/O, and tmpfs accepts any
 * alignment, so the probe also reports the filesystem type.
 *
 * <p>Stateless; thread-safe (each probe uses its own uniquely named file).
 */
public final class DirectIoProbe
{
    private static final int MIN_BLOCK = 4096;

    private DirectIoProbe()
    {
    }

    /**
     * The outcome of a probe.
     *
     * <p>Immutable; thread-safe.
     *
     * @param supported      whether an O_DIRECT write and read-back of one block succeeded with matching data.
     * @param reason         "ok" with the alignment details, or why it is unsupported (the failing call and errno).
     * @param alignment      the block size and buffer alignment the probe used and verified (the larger of the
     *                       file's {@link NativeFileSystem#directIoAlignment} and 4096); 0 if not known.
     * @param fileSystemType {@link FileSystemInfo#typeName()} of the directory, or "unknown" if statfs failed.
     * @param noSpace        the probe's write failed for want of space (ENOSPC or EDQUOT), which says nothing about
     *                       O_DIRECT: when {@code supported} is still false, no existing file could stand in for the
     *                       write either, and the caller must not take the result for "O_DIRECT unsupported".
     */
    public record Result(boolean supported, String reason, int alignment, String fileSystemType, boolean noSpace)
    {
        /**
         * A result whose write did not fail for want of space.
         *
         * @param supported      whether an O_DIRECT write and read-back of one block succeeded with matching data.
         * @param reason         "ok" with the alignment details, or why it is unsupported.
         * @param alignment      the block size and buffer alignment verified; 0 if not known.
         * @param fileSystemType the directory's filesystem type.
         */
        public Result(final boolean supported, final String reason, final int alignment, final String fileSystemType)
        {
            this(supported, reason, alignment, fileSystemType, false);
        }
    }

    /**
     * Stands in for the write when there is no space for it: reads the first block of an existing regular file of
     * at least one block (in {@code dir} or one level down) with O_DIRECT and compares it with a buffered read.
     */
    private static Result readProbe(final Path dir, final int block, final String fsType, final NativeIoException cause)
    {
        final String noSpace = "the probe's write got " + cause.errnoName() + " (no space, which says nothing about " +
            "O_DIRECT)";
        try (java.util.stream.Stream<Path> files = java.nio.file.Files.walk(dir, 2))
        {
            for (final Path f : (Iterable<Path>)files::iterator)
            {
                if (!java.nio.file.Files.isRegularFile(f) || java.nio.file.Files.size(f) < block ||
                    f.getFileName().toString().startsWith(".directlog-dio-probe-"))
                {
                    continue;
                }
                final byte[] expected = new byte[block];
                try (java.io.RandomAccessFile raf = new java.io.RandomAccessFile(f.toFile(), "r"))
                {
                    raf.readFully(expected);
                }
                try (NativeFile nf = NativeFile.open(f, OpenFlags.READ_ONLY | OpenFlags.DIRECT | OpenFlags.CLOEXEC);
                    AlignedMemory in = AlignedMemory.allocate(block, block))
                {
                    final long read = nf.readFully(in.address(), block, 0);
                    final byte[] got = new byte[block];
                    in.buffer().getBytes(0, got);
                    if (read == block && java.util.Arrays.equals(expected, got))
                    {
                        return new Result(true, "ok: " + noSpace + "; an O_DIRECT read of " + block + " bytes of " +
                            f.getFileName() + " verified", block, fsType, true);
                    }
                    return new Result(false, noSpace + ", and an O_DIRECT read of " + f.getFileName() +
                        " differed from a buffered one", block, fsType, true);
                }
            }
        }
        catch (final java.io.IOException | RuntimeException ex)
        {
            return new Result(false, noSpace + "; reading an existing file instead failed: " + ex.getMessage(), 0,
                fsType, true);
        }
        return new Result(false, noSpace + ", and no file there to read instead", 0, fsType, true);
    }

    /**
     * Probes a directory. Never throws for "unsupported", nor when native I/O is unavailable: both are reported.
     *
     * @param dir an existing, writable directory (the temporary file is created there).
     * @return the result.
     */
    public static Result probe(final Path dir)
    {
        if (!NativeIo.isAvailable())
        {
            return new Result(false, "native I/O unavailable: " + NativeIo.unavailabilityCause(), 0, "unknown");
        }
        String fsType = "unknown";
        try
        {
            fsType = NativeFileSystem.statfs(dir).typeName();
        }
        catch (final NativeIoException ex)
        {
            return new Result(false, ex.getMessage(), 0, fsType);
        }

        final Path file = dir.resolve(".directlog-dio-probe-" + ProcessHandle.current().pid() + "-" +
            Long.toHexString(ThreadLocalRandom.current().nextLong()) + ".tmp");
        try (NativeFile nf = NativeFile.open(
            file,
            OpenFlags.READ_WRITE | OpenFlags.CREATE | OpenFlags.EXCLUSIVE | OpenFlags.DIRECT | OpenFlags.CLOEXEC,
            0600))
        {
            final DirectIoAlignment alignment = NativeFileSystem.directIoAlignment(file);
            final int block = Math.max(MIN_BLOCK, alignment.maxAlignment());
            try (AlignedMemory out = AlignedMemory.allocate(block, block);
                AlignedMemory in = AlignedMemory.allocate(block, block))
            {
                for (int i = 0; i < block; i++)
                {
                    out.buffer().putByte(i, (byte)(i * 31 + 7));
                }
                try
                {
                    nf.writeFully(out.address(), block, 0);
                }
                catch (final NativeIoException ex)
                {
                    if (ex.errno() != Errno.ENOSPC && ex.errno() != Errno.EDQUOT)
                    {
                        throw ex;
                    }
                    // a full filesystem, not a missing feature: the open with O_DIRECT was accepted, so check an
                    // aligned O_DIRECT read of a file already there instead (a store's own files, at a reopen)
                    return readProbe(dir, block, fsType, ex);
                }
                final long read = nf.readFully(in.address(), block, 0);
                if (read != block)
                {
                    return new Result(false, "O_DIRECT read-back returned " + read + " of " + block + " bytes",
                        block, fsType);
                }
                if (!in.buffer().equals(out.buffer()))
                {
                    return new Result(false, "O_DIRECT read-back differs from what was written", block, fsType);
                }
            }
            return new Result(true, "ok: " + block + "-byte block verified; alignment mem=" +
                alignment.memoryAlignment() + " offset=" + alignment.offsetAlignment() + " (" + alignment.source() +
                ")", block, fsType);
        }
        catch (final NativeIoException ex)
        {
            return new Result(false, ex.getMessage(), 0, fsType);
        }
        catch (final RuntimeException ex)
        {
            return new Result(false, ex.toString(), 0, fsType);
        }
        finally
        {
            // Unconditional: on kernels without O_DIRECT support for the filesystem, open(O_CREAT|O_DIRECT) creates
            // the file and only then fails with EINVAL. The random name makes deleting another file implausible.
            LibC.unlink(NativeIo.pathBytes(file));
        }
    }
}
