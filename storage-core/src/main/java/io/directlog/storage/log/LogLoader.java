package io.directlog.storage.log;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;

import io.directlog.storage.CorruptLogException;
import io.directlog.storage.LogConfig;
import io.directlog.storage.MemoryBudgetExceededException;
import io.directlog.storage.RecoveryMode;
import io.directlog.storage.cache.CachePage;
import io.directlog.storage.format.RecordDescriptor;
import io.directlog.storage.format.SegmentHeaderDescriptor;
import io.directlog.storage.io.BlockFile;
import io.directlog.storage.io.BlockIo;
import io.directlog.storage.io.FileMode;
import io.directlog.storage.page.PageMemory;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Opens a log directory: creates it, or reads its segment headers and recovers the tail of the last segment.
 * <p>
 * Recovery fdatasyncs the last segment before trusting what it reads (after a crash the device cache can hold
 * data that reads back but is not durable), scans its records checking length, log id, offset and CRC, cuts
 * at the first end or invalid record, refuses valid records after a bad one as corruption (unless the mode
 * says truncate), and re-zeroes everything after the cut before the first new acknowledgement.
 * <p>
 * Not thread-safe; used once, on the opening thread.
 */
final class LogLoader
{
    private static final System.Logger LOG = System.getLogger(LogLoader.class.getName());

    private final String name;
    private final Path dir;
    private final LogContext context;
    private final LogConfig config;
    private final BlockIo io;

    LogLoader(final String name, final Path dir, final LogContext context, final LogConfig config)
    {
        this.name = name;
        this.dir = dir;
        this.context = context;
        this.config = config;
        this.io = context.io();
    }

    DefaultLog load() throws IOException
    {
        io.createDirectories(dir);
        final LogMeta meta;
        if (Files.exists(dir.resolve(SegmentFiles.META_FILE)))
        {
            meta = LogMeta.read(io, dir, name);
        }
        else
        {
            meta = new LogMeta(ThreadLocalRandom.current().nextLong() | 1, config.segmentSize(),
                System.currentTimeMillis());
            meta.write(io, dir);
        }
        final LogConfig effective = config.toBuilder().segmentSize(meta.segmentSize()).build();
        final TreeMap<Long, Path> files = new TreeMap<>();
        for (final Path file : io.list(dir))
        {
            final String fileName = file.getFileName().toString();
            if (fileName.endsWith(SegmentFiles.PREPARING_SUFFIX) || fileName.endsWith(".tmp"))
            {
                io.delete(file); // an unfinished preparation or meta write: never used, never acknowledged
                continue;
            }
            final long sequence = SegmentFiles.sequenceOf(fileName);
            if (sequence >= 0)
            {
                files.put(sequence, file);
            }
        }
        final List<Segment> used = new ArrayList<>();
        final List<Long> spareSequences = new ArrayList<>();
        final PageMemory header = PageMemory.allocate(SegmentHeaderDescriptor.LENGTH,
            Math.max(4096, io.alignment()));
        final DefaultLog[] holder = new DefaultLog[1];
        final SegmentHost host = new DeferredHost(holder);
        try
        {
            for (final var e : files.entrySet())
            {
                header.zero();
                try (BlockFile f = io.open(e.getValue(), FileMode.READ, false))
                {
                    f.read(header.byteBuffer(), 0, SegmentHeaderDescriptor.LENGTH, 0);
                }
                final UnsafeBuffer h = header.buffer();
                if (SegmentHeaderDescriptor.isBlank(h))
                {
                    spareSequences.add(e.getKey());
                    continue;
                }
                final String invalid = SegmentHeaderDescriptor.validate(h);
                if (invalid != null || h.getLong(SegmentHeaderDescriptor.LOG_ID_OFFSET) != meta.logId())
                {
                    if (e.getKey().equals(files.lastKey()) && context.recoveryMode() != RecoveryMode.ABSOLUTE_CONSISTENCY)
                    {
                        // the first write into the newest segment was torn: nothing in it was acknowledged
                        LOG.log(System.Logger.Level.WARNING, "log '" + name + "': torn header in " +
                            e.getValue().getFileName() + " (" + invalid + "), reusing it as a prepared segment");
                        spareSequences.add(e.getKey());
                        continue;
                    }
                    throw new CorruptLogException("log '" + name + "': segment " + e.getValue() + " position 0: " +
                        (invalid != null ? invalid : "belongs to another log"));
                }
                used.add(new Segment(host, e.getKey(), h.getLong(SegmentHeaderDescriptor.BASE_OFFSET_OFFSET),
                    e.getValue(), meta.segmentSize()));
            }
        }
        finally
        {
            header.free();
        }
        for (int i = 0; i + 1 < used.size(); i++)
        {
            final Segment s = used.get(i);
            final long nextBase = used.get(i + 1).baseOffset();
            if (nextBase < s.baseOffset())
            {
                throw new CorruptLogException("log '" + name + "': segment " + used.get(i + 1).path() +
                    " starts at offset " + nextBase + ", before its predecessor's " + s.baseOffset());
            }
            s.publishEnd(meta.segmentSize(), nextBase);
        }
        final long nextSequence = files.isEmpty() ? 0 : files.lastKey() + 1;
        final List<PreparedSegment> spares = new ArrayList<>();
        for (final long sequence : spareSequences)
        {
            if (!used.isEmpty() && sequence < used.get(used.size() - 1).sequence())
            {
                io.delete(files.get(sequence)); // a blank file behind the head cannot be used in order
                continue;
            }
            spares.add(reZeroSpare(sequence, files.get(sequence), meta.segmentSize()));
        }
        final DefaultLog log = new DefaultLog(name, dir, context, meta, effective, used.toArray(new Segment[0]),
            nextSequence);
        holder[0] = log;
        try
        {
            if (used.isEmpty())
            {
                log.startWith(null, null, 0, 0, 0, 0, spares);
            }
            else
            {
                recoverTail(log, used.get(used.size() - 1), meta, used.get(0).baseOffset(), spares);
            }
        }
        catch (final IOException | RuntimeException e)
        {
            log.close();
            throw e;
        }
        return log;
    }

    private void recoverTail(final DefaultLog log, final Segment last, final LogMeta meta, final long start,
        final List<PreparedSegment> spares) throws IOException
    {
        final int size = meta.segmentSize();
        final CachePage page = context.cache().acquire(last, size, true);
        if (page == null)
        {
            throw new MemoryBudgetExceededException("log '" + name + "' cannot get a write page of " + size +
                " bytes: memory budget " + context.cache().pool().budget() + " bytes, " +
                context.cache().pool().usedBytes() + " in use");
        }
        final BlockFile direct = io.open(last.path(), FileMode.DIRECT, false);
        final BlockFile dsync = io.open(last.path(), FileMode.DIRECT_DSYNC, false);
        direct.datasync(); // trust only what is durable
        final int read = direct.read(page.memory().byteBuffer(), 0, size, 0);
        if (read < size)
        {
            page.buffer().setMemory(Math.max(0, read), size - Math.max(0, read), (byte)0);
        }
        final SegmentIndex index = new SegmentIndex(size);
        final RecordScanner scanner = new RecordScanner();
        final int recordLogId = RecordDescriptor.recordLogId(meta.logId());
        final RecordScanner.Stop stop = scanner.scan(page.buffer(), SegmentHeaderDescriptor.LENGTH, size,
            last.baseOffset(), recordLogId, index);
        final int cut = scanner.position();
        if (stop == RecordScanner.Stop.INVALID)
        {
            final String where = "log '" + name + "': segment " + last.path() + " position " + cut + " offset " +
                scanner.nextOffset() + ": " + scanner.reason();
            if (context.recoveryMode() == RecoveryMode.ABSOLUTE_CONSISTENCY)
            {
                throw new CorruptLogException(where + " (recovery mode ABSOLUTE_CONSISTENCY)");
            }
            if (context.recoveryMode() == RecoveryMode.TOLERATE_TORN_TAIL &&
                validRecordAfter(page.buffer(), cut, size, scanner.nextOffset(), recordLogId))
            {
                throw new CorruptLogException(where + ", and valid records follow it: corruption, not a torn tail");
            }
            LOG.log(System.Logger.Level.WARNING, where + ": cut the log there");
        }
        if (stop == RecordScanner.Stop.END && context.recoveryMode() != RecoveryMode.TRUNCATE_AT_CORRUPTION &&
            !RecordScanner.isZero(page.buffer(), cut, size) &&
            validRecordAfter(page.buffer(), cut, size, scanner.nextOffset(), recordLogId))
        {
            // a zeroed block in the middle of acknowledged records is damage, not the end
            throw new CorruptLogException("log '" + name + "': segment " + last.path() + " position " + cut +
                " offset " + scanner.nextOffset() + ": an all-zero header with valid records after it");
        }
        if (!RecordScanner.isZero(page.buffer(), cut, size))
        {
            // torn or stale bytes after the end: zero them in the page and on disk before anything is acknowledged
            page.buffer().setMemory(cut, size - cut, (byte)0);
            final int from = DefaultLog.alignDown(cut);
            direct.write(page.memory().byteBuffer(), from, size - from, from);
            direct.datasync();
        }
        last.index(index);
        last.writeFiles(direct, dsync);
        last.page(page);
        last.maxTimestamp(scanner.lastTimestamp());
        log.startWith(last, page, cut, scanner.nextOffset(), scanner.lastTimestamp(), start, spares);
    }

    private static boolean validRecordAfter(final UnsafeBuffer buffer, final int from, final int size,
        final long expectedOffset, final int recordLogId)
    {
        final RecordScanner probe = new RecordScanner();
        for (int p = from + RecordDescriptor.ALIGNMENT; p + RecordDescriptor.HEADER_LENGTH <= size;
            p += RecordDescriptor.ALIGNMENT)
        {
            if (buffer.getInt(p + RecordDescriptor.LOG_ID_OFFSET) != recordLogId)
            {
                continue;
            }
            final long offset = buffer.getLong(p + RecordDescriptor.OFFSET_OFFSET);
            if (offset < expectedOffset)
            {
                continue;
            }
            probe.scan(buffer, p, size, offset, recordLogId, null);
            if (probe.records() > 0)
            {
                return true;
            }
        }
        return false;
    }

    private PreparedSegment reZeroSpare(final long sequence, final Path path, final int size) throws IOException
    {
        final BlockFile direct = io.open(path, FileMode.DIRECT, false);
        final BlockFile dsync = io.open(path, FileMode.DIRECT_DSYNC, false);
        final PageMemory chunk = PageMemory.allocate(1 << 20, Math.max(4096, io.alignment()));
        try
        {
            boolean dirty = direct.size() < size;
            for (int at = 0; at < size && !dirty; at += chunk.size())
            {
                final int n = direct.read(chunk.byteBuffer(), 0, Math.min(chunk.size(), size - at), at);
                dirty = n < Math.min(chunk.size(), size - at) || !RecordScanner.isZero(chunk.buffer(), 0, n);
            }
            if (dirty)
            {
                chunk.zero();
                direct.allocate(size);
                for (int at = 0; at < size; at += chunk.size())
                {
                    direct.write(chunk.byteBuffer(), 0, Math.min(chunk.size(), size - at), at);
                }
                direct.datasync();
            }
        }
        finally
        {
            chunk.free();
        }
        return new PreparedSegment(sequence, path, direct, dsync);
    }

    /** Lets segments be built before the log object exists. */
    private static final class DeferredHost implements SegmentHost
    {
        private final DefaultLog[] holder;

        DeferredHost(final DefaultLog[] holder)
        {
            this.holder = holder;
        }

        @Override
        public long activeSequence()
        {
            return holder[0].activeSequence();
        }

        @Override
        public boolean hasConsumerBefore(final long offset)
        {
            return holder[0].hasConsumerBefore(offset);
        }

        @Override
        public BlockFile openForRead(final Path path) throws IOException
        {
            return holder[0].openForRead(path);
        }

        @Override
        public void freeRetiredPage(final io.directlog.storage.cache.CachePage page)
        {
            holder[0].freeRetiredPage(page);
        }
    }
}
