package io.directlog.cli.store;

import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.function.Consumer;

import io.directlog.storage.format.Checksums;
import io.directlog.storage.format.RecordDescriptor;
import io.directlog.storage.format.SegmentHeaderDescriptor;
import io.directlog.storage.log.RecordScanner;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * One segment file read the way the engine reads it: its header through {@link SegmentHeaderDescriptor}, its
 * records through the engine's own {@link RecordScanner}, so that the tools judge a file by the same rules as
 * recovery. Nothing here writes.
 * <p>
 * The file is mapped read-only, and at most its length is mapped: a segment file is never shortened by the
 * engine (files are recycled at their full size, and deleted files stay readable while mapped), so a mapped
 * read cannot run past the end of a file even on a store that is open.
 * <p>
 * Not thread-safe; one per file and thread.
 */
final class SegmentScan
{
    /** What the record walk of {@link #records} reports for each record. */
    record RecordEntry(int position, long offset, int length, int recordCount, long timestamp, String crc, String problem)
    {
    }

    final Path path;
    final long sequence;
    final long fileSize;
    /** True when the first block is all zero: a prepared segment no writer has taken. */
    boolean blank;
    /** Null when the header is valid (or the file is blank). */
    String headerError;
    long logId;
    long baseOffset;
    /** Where the hole in the offsets before this segment starts (FLAG_HOLE_BEFORE), or -1. */
    long holeFrom = -1;
    int segmentSize;
    int blockSize;
    long created;
    boolean recycled;

    // filled by scan()
    boolean scanned;
    int records;
    long firstTimestamp = -1;
    long lastTimestamp = -1;
    int endPosition;
    long nextOffset;
    RecordScanner.Stop stop;
    String stopReason;
    int damagePosition;
    /** For a segment not flagged recycled: the first non-zero byte after the end (past a gap), or -1. */
    long nonZeroAfterEnd = -1;

    private UnsafeBuffer buffer;
    private int mapped;

    SegmentScan(final Path path, final long sequence, final long fileSize)
    {
        this.path = path;
        this.sequence = sequence;
        this.fileSize = fileSize;
    }

    /** Reads and checks the header; maps the file. */
    void open() throws IOException
    {
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ))
        {
            mapped = (int)Math.min(fileSize, Integer.MAX_VALUE & ~7);
            final MappedByteBuffer m = ch.map(FileChannel.MapMode.READ_ONLY, 0, mapped);
            buffer = new UnsafeBuffer(m);
        }
        if (mapped < SegmentHeaderDescriptor.LENGTH)
        {
            headerError = "the file is " + fileSize + " bytes, shorter than a segment header";
            return;
        }
        final UnsafeBuffer header = new UnsafeBuffer(buffer, 0, SegmentHeaderDescriptor.LENGTH);
        if (SegmentHeaderDescriptor.isBlank(header))
        {
            blank = true;
            return;
        }
        headerError = SegmentHeaderDescriptor.validate(header);
        if (headerError != null)
        {
            return;
        }
        logId = header.getLong(SegmentHeaderDescriptor.LOG_ID_OFFSET);
        baseOffset = header.getLong(SegmentHeaderDescriptor.BASE_OFFSET_OFFSET);
        segmentSize = header.getInt(SegmentHeaderDescriptor.SEGMENT_SIZE_OFFSET);
        blockSize = header.getInt(SegmentHeaderDescriptor.BLOCK_SIZE_OFFSET);
        created = header.getLong(SegmentHeaderDescriptor.CREATED_OFFSET);
        recycled = (SegmentHeaderDescriptor.flags(header) & SegmentHeaderDescriptor.FLAG_RECYCLED) != 0;
        holeFrom = SegmentHeaderDescriptor.holeFrom(header);
    }

    /** @return where the previous segment's records end: the base offset, or the start of the hole before it. */
    long precedingEnd()
    {
        return holeFrom >= 0 ? holeFrom : baseOffset;
    }

    /** @return true when the header is valid and records can be scanned. */
    boolean hasRecords()
    {
        return !blank && headerError == null;
    }

    /**
     * Scans the records from the header on, as recovery does.
     *
     * @param recordLogId the 32 bits of the log id each record carries.
     * @param checkZeros  whether to check that a segment not flagged recycled is zero after its end (reads it all).
     */
    void scan(final int recordLogId, final boolean checkZeros)
    {
        final int limit = Math.min(mapped, segmentSize);
        final RecordScanner scanner = new RecordScanner(blockSize);
        stop = scanner.scan(buffer, SegmentHeaderDescriptor.LENGTH, limit, baseOffset, recordLogId, null, 0, segmentSize);
        scanned = true;
        records = scanner.records();
        endPosition = scanner.position();
        nextOffset = scanner.nextOffset();
        stopReason = scanner.reason();
        damagePosition = scanner.damagePosition();
        if (records > 0)
        {
            firstTimestamp = buffer.getLong(SegmentHeaderDescriptor.LENGTH + RecordDescriptor.TIMESTAMP_OFFSET);
            lastTimestamp = scanner.lastTimestamp();
        }
        if (checkZeros && !recycled && stop == RecordScanner.Stop.END)
        {
            nonZeroAfterEnd = firstNonZero(damagePosition, limit);
        }
    }

    private long firstNonZero(final int from, final int to)
    {
        int i = from;
        for (; i < to && (i & 7) != 0; i++)
        {
            if (buffer.getByte(i) != 0)
            {
                return i;
            }
        }
        for (; i + 8 <= to; i += 8)
        {
            if (buffer.getLong(i) != 0)
            {
                for (int j = i; j < i + 8; j++)
                {
                    if (buffer.getByte(j) != 0)
                    {
                        return j;
                    }
                }
            }
        }
        for (; i < to; i++)
        {
            if (buffer.getByte(i) != 0)
            {
                return i;
            }
        }
        return -1;
    }

    /**
     * Walks the records the scan found good, then reports the header where it stopped when that was a failed check.
     *
     * @param fromOffset records whose offsets all lie below this are skipped.
     * @param sink       receives each record.
     */
    void records(final long fromOffset, final Consumer<RecordEntry> sink)
    {
        int pos = SegmentHeaderDescriptor.LENGTH;
        while (pos < endPosition)
        {
            final int length = buffer.getInt(pos + RecordDescriptor.LENGTH_OFFSET);
            if (length == 0)
            {
                pos = RecordDescriptor.gapEnd(pos, blockSize); // a gap: the records go on at the next block
                continue;
            }
            final RecordEntry e = entry(pos, length, null);
            if (e.offset() + e.recordCount() > fromOffset)
            {
                sink.accept(e);
            }
            pos += RecordDescriptor.alignedLength(length);
        }
        if (stop == RecordScanner.Stop.INVALID && damagePosition + RecordDescriptor.HEADER_LENGTH <= Math.min(mapped, segmentSize))
        {
            final int length = buffer.getInt(damagePosition + RecordDescriptor.LENGTH_OFFSET);
            sink.accept(entry(damagePosition, length, stopReason));
        }
    }

    private RecordEntry entry(final int pos, final int length, final String problem)
    {
        final int limit = Math.min(mapped, segmentSize);
        String crc = "unchecked";
        if (length >= RecordDescriptor.HEADER_LENGTH && (long)pos + length <= limit)
        {
            final int stored = buffer.getInt(pos + RecordDescriptor.CRC_OFFSET);
            final int computed = Checksums.crc32c(buffer, pos + RecordDescriptor.CRC_COVERAGE_OFFSET,
                length - RecordDescriptor.CRC_COVERAGE_OFFSET);
            crc = stored == computed ? "ok" : "mismatch";
        }
        return new RecordEntry(pos, buffer.getLong(pos + RecordDescriptor.OFFSET_OFFSET), length,
            buffer.getInt(pos + RecordDescriptor.COUNT_OFFSET), buffer.getLong(pos + RecordDescriptor.TIMESTAMP_OFFSET),
            crc, problem);
    }

    /**
     * @param position a segment position at or below {@link #endPosition}.
     * @return the offset of the first good record at or after it, or {@link #nextOffset} when none is.
     */
    long offsetAtOrAfter(final long position)
    {
        final long[] found = {nextOffset};
        final boolean[] done = {false};
        records(Long.MIN_VALUE, e ->
        {
            if (!done[0] && e.problem() == null && e.position() >= position)
            {
                found[0] = e.offset();
                done[0] = true;
            }
        });
        return found[0];
    }

    /**
     * @param position a segment position.
     * @return the offset field of the record header there.
     */
    long offsetAt(final int position)
    {
        return buffer.getLong(position + RecordDescriptor.OFFSET_OFFSET);
    }

    /**
     * @param position a segment position.
     * @return the timestamp field of the record header there.
     */
    long timestampAt(final int position)
    {
        return buffer.getLong(position + RecordDescriptor.TIMESTAMP_OFFSET);
    }

    /** Lets go of the mapping (the GC unmaps it). */
    void release()
    {
        buffer = null;
    }
}
