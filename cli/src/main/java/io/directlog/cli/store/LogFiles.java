package io.directlog.cli.store;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import io.directlog.cli.UsageException;
import io.directlog.storage.format.CheckpointDescriptor;
import io.directlog.storage.format.IndexFileDescriptor;
import io.directlog.storage.io.BufferedBlockIo;
import io.directlog.storage.log.LogMeta;
import io.directlog.storage.log.SegmentFiles;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The files of one log directory, found and named as the engine names them ({@link SegmentFiles}) and decoded with
 * the engine's format descriptors ({@code io.directlog.storage.format}) and {@link LogMeta}. Read-only: every file
 * is opened for reading, and nothing is created, renamed or locked here.
 * <p>
 * Not thread-safe; one per log and thread.
 */
final class LogFiles
{
    /** One slot of the checkpoint file, decoded. */
    record CheckpointSlot(int slot, boolean valid, long generation, int flags, long sequence, long position, long offset,
        long lastRecordPosition, long lastRecordOffset, long written)
    {
        boolean clean()
        {
            return (flags & CheckpointDescriptor.FLAG_CLEAN) != 0;
        }

        boolean truncating()
        {
            return (flags & CheckpointDescriptor.FLAG_TRUNCATING) != 0;
        }
    }

    /** A persisted index file, decoded (null fields when it could not be). */
    record IndexInfo(Path path, long sequence, String error, int count, long baseOffset, long endOffset, int endPosition,
        long maxTimestamp, long[] entryOffsets, long[] entryTimestamps, int[] entryPositions)
    {
    }

    final String name;
    final Path dir;
    LogMeta meta;
    String metaError;
    final List<CheckpointSlot> slots = new ArrayList<>();
    String checkpointError;
    final List<SegmentScan> segments = new ArrayList<>();
    final List<Path> indexFiles = new ArrayList<>();
    final List<Path> transientFiles = new ArrayList<>();

    LogFiles(final String name, final Path dir)
    {
        this.name = name;
        this.dir = dir;
    }

    /** @return the store's logs: the directories that hold a regular file log.meta, by name. */
    static List<LogFiles> find(final Path store) throws IOException
    {
        final List<LogFiles> logs = new ArrayList<>();
        try (Stream<Path> dirs = Files.list(store))
        {
            for (final Path d : dirs.sorted().toList())
            {
                if (Files.isDirectory(d) && Files.isRegularFile(d.resolve(SegmentFiles.META_FILE)))
                {
                    logs.add(new LogFiles(d.getFileName().toString(), d));
                }
            }
        }
        return logs;
    }

    /**
     * Refuses a directory that is not a store but holds stores, such as a bench run's directory
     * ({@code directlog-bench-XXXX} holds one store per scenario): read as a store it would have no log, and
     * verify would pass it. A store is a directory with the engine's lock file or a log in it.
     *
     * @param dir     the directory given.
     * @param command the command, for the message.
     * @throws UsageException naming the stores under it.
     * @throws IOException    when it cannot be listed.
     */
    static void checkIsStore(final Path dir, final String command) throws UsageException, IOException
    {
        if (isStore(dir))
        {
            return;
        }
        final List<String> stores = new ArrayList<>();
        try (Stream<Path> dirs = Files.list(dir))
        {
            for (final Path d : dirs.sorted().toList())
            {
                if (Files.isDirectory(d) && isStore(d))
                {
                    stores.add(d.getFileName().toString());
                }
            }
        }
        if (!stores.isEmpty())
        {
            throw new UsageException(dir + " is not a store (no " + StoreVerifier.LOCK_FILE + " and no log in it) " +
                "but holds stores: " + String.join(", ", stores) + "; pass one, such as ./directlog " + command +
                " " + dir.resolve(stores.get(0)));
        }
    }

    private static boolean isStore(final Path dir) throws IOException
    {
        return Files.exists(dir.resolve(StoreVerifier.LOCK_FILE)) || !find(dir).isEmpty();
    }

    /** Reads log.meta and the checkpoint, and lists the segment, index and transient files. */
    void load() throws IOException
    {
        try
        {
            meta = LogMeta.read(new BufferedBlockIo(4096), dir, name);
        }
        catch (final IOException | RuntimeException ex)
        {
            metaError = ex.getMessage();
        }
        try (Stream<Path> files = Files.list(dir))
        {
            for (final Path f : files.sorted().toList())
            {
                final String file = f.getFileName().toString();
                final long seq = SegmentFiles.sequenceOf(file);
                if (seq >= 0)
                {
                    segments.add(new SegmentScan(f, seq, Files.size(f)));
                }
                else if (file.endsWith(SegmentFiles.INDEX_SUFFIX))
                {
                    indexFiles.add(f);
                }
                else if (file.endsWith(".tmp"))
                {
                    transientFiles.add(f);
                }
            }
        }
        segments.sort((a, b) -> Long.compare(a.sequence, b.sequence));
        if (meta != null)
        {
            readCheckpoint();
        }
    }

    private void readCheckpoint() throws IOException
    {
        final Path path = dir.resolve(SegmentFiles.CHECKPOINT_FILE);
        if (!Files.exists(path))
        {
            checkpointError = "no checkpoint file";
            return;
        }
        final byte[] bytes = Files.readAllBytes(path);
        // two slots of one direct-I/O block each: 4096 bytes, or the alignment when larger
        final int slotLength = bytes.length / 2;
        if (bytes.length < 2 * 4096 || Integer.bitCount(slotLength) != 1)
        {
            checkpointError = "the checkpoint file is " + bytes.length + " bytes, not two slots of a power of two";
            return;
        }
        for (int s = 0; s < 2; s++)
        {
            final UnsafeBuffer b = new UnsafeBuffer(bytes, s * slotLength, slotLength);
            final boolean valid = CheckpointDescriptor.isValid(b, meta.logId());
            slots.add(new CheckpointSlot(s, valid, b.getLong(CheckpointDescriptor.GENERATION_OFFSET),
                b.getInt(CheckpointDescriptor.FLAGS_OFFSET), b.getLong(CheckpointDescriptor.SEQUENCE_OFFSET),
                b.getLong(CheckpointDescriptor.POSITION_OFFSET), b.getLong(CheckpointDescriptor.OFFSET_OFFSET),
                b.getLong(CheckpointDescriptor.LAST_RECORD_POSITION_OFFSET),
                b.getLong(CheckpointDescriptor.LAST_RECORD_OFFSET_OFFSET), b.getLong(CheckpointDescriptor.WRITTEN_OFFSET)));
        }
    }

    /** @return the slot the engine would take (the valid one with the highest generation), or null. */
    CheckpointSlot checkpoint()
    {
        CheckpointSlot best = null;
        for (final CheckpointSlot s : slots)
        {
            if (s.valid() && (best == null || s.generation() > best.generation()))
            {
                best = s;
            }
        }
        return best;
    }

    /** @return the segments that carry a header, in sequence order. */
    List<SegmentScan> usedSegments()
    {
        return segments.stream().filter(SegmentScan::hasRecords).toList();
    }

    /** @return the total bytes of the segment files. */
    long segmentBytes()
    {
        return segments.stream().mapToLong(s -> s.fileSize).sum();
    }

    /**
     * Decodes an index file with {@link IndexFileDescriptor}.
     *
     * @param path the {@code <seq>.idx} file.
     * @return what it holds, or an error.
     */
    IndexInfo readIndex(final Path path) throws IOException
    {
        final String file = path.getFileName().toString();
        long seq = -1;
        try
        {
            seq = Long.parseLong(file.substring(0, file.length() - SegmentFiles.INDEX_SUFFIX.length()));
        }
        catch (final NumberFormatException ex)
        {
            return new IndexInfo(path, -1, "not named <sequence>.idx", 0, 0, 0, 0, 0, null, null, null);
        }
        final ByteBuffer bytes;
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ))
        {
            final long size = ch.size();
            if (size < IndexFileDescriptor.HEADER_LENGTH + 4 || size > Integer.MAX_VALUE)
            {
                return new IndexInfo(path, seq, "the file is " + size + " bytes", 0, 0, 0, 0, 0, null, null, null);
            }
            bytes = ByteBuffer.allocate((int)size);
            while (bytes.hasRemaining() && ch.read(bytes) >= 0)
            {
                // read it all
            }
        }
        final UnsafeBuffer b = new UnsafeBuffer(bytes.array(), 0, bytes.position());
        if (b.getLong(IndexFileDescriptor.MAGIC_OFFSET) != IndexFileDescriptor.MAGIC)
        {
            return new IndexInfo(path, seq, "bad magic", 0, 0, 0, 0, 0, null, null, null);
        }
        if (b.getInt(IndexFileDescriptor.VERSION_OFFSET) != IndexFileDescriptor.VERSION)
        {
            return new IndexInfo(path, seq, "unsupported version " + b.getInt(IndexFileDescriptor.VERSION_OFFSET), 0, 0, 0,
                0, 0, null, null, null);
        }
        final int count = b.getInt(IndexFileDescriptor.COUNT_OFFSET);
        if (count < 0 || (long)IndexFileDescriptor.crcOffset(count) + 4 > b.capacity())
        {
            return new IndexInfo(path, seq, "entry count " + count + " does not fit the file", 0, 0, 0, 0, 0, null, null,
                null);
        }
        final int crcAt = IndexFileDescriptor.crcOffset(count);
        if (b.getInt(crcAt) != io.directlog.storage.format.Checksums.crc32c(b, 0, crcAt))
        {
            return new IndexInfo(path, seq, "CRC mismatch", count, 0, 0, 0, 0, null, null, null);
        }
        String error = null;
        if (meta != null && b.getLong(IndexFileDescriptor.LOG_ID_OFFSET) != meta.logId())
        {
            error = "log id differs from log.meta's";
        }
        else if (b.getLong(IndexFileDescriptor.SEQUENCE_OFFSET) != seq)
        {
            error = "sequence " + b.getLong(IndexFileDescriptor.SEQUENCE_OFFSET) + " differs from its name";
        }
        else if (meta != null && b.getInt(IndexFileDescriptor.SEGMENT_SIZE_OFFSET) > meta.segmentSize())
        {
            error = "segment size is over log.meta's"; // a rung of the segment-size ladder is at most that
        }
        final long[] offsets = new long[count];
        final long[] timestamps = new long[count];
        final int[] positions = new int[count];
        for (int i = 0; i < count; i++)
        {
            final int at = IndexFileDescriptor.HEADER_LENGTH + i * IndexFileDescriptor.ENTRY_LENGTH;
            offsets[i] = b.getLong(at);
            timestamps[i] = b.getLong(at + 8);
            positions[i] = b.getInt(at + 16);
        }
        return new IndexInfo(path, seq, error, count, b.getLong(IndexFileDescriptor.BASE_OFFSET_OFFSET),
            b.getLong(IndexFileDescriptor.END_OFFSET_OFFSET), b.getInt(IndexFileDescriptor.END_POSITION_OFFSET),
            b.getLong(IndexFileDescriptor.MAX_TIMESTAMP_OFFSET), offsets, timestamps, positions);
    }
}
