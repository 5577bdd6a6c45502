package io.directlog.cli.store;

import java.io.PrintStream;
import java.nio.file.Files;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.directlog.cli.Command;
import io.directlog.cli.UsageException;
import io.directlog.storage.format.RecordDescriptor;

/**
 * {@code ./directlog dump DIR [--log NAME] [--from OFFSET] [--records] [--json]}: what is in a store, as Kafka's
 * DumpLogSegments shows a Kafka log: each log's identity, checkpoint and watermark, its segment files (base offset,
 * size, recycled flag, records, first and last timestamp), and with {@code --records} every record's offset,
 * length, timestamp and CRC state. Reads only; does not take the store's lock (use verify for a consistent check).
 * <p>
 * Used from the main thread only.
 */
public final class DumpCommand implements Command
{
    private static final String USAGE = """
        usage: ./directlog dump DIR [--log NAME] [--from OFFSET] [--records] [--json]

        Shows the logs of the store DIR: each log's id and segment size, its checkpoint (the durable watermark and
        the clean-shutdown flag), and its segment files with base offset, size, recycled flag, records and the
        first and last record timestamps.

          --log NAME     only this log
          --from OFFSET  leave out segments and records wholly below this offset
          --records      also every record: segment position, offset, count, length, timestamp, CRC state
          --json         one JSON object on stdout instead of text

        Reads only, and does not take the store's lock: on an open store the active segment may be changing.
        Progress goes to stderr for stores over 256 MiB.
        """;

    private final PrintStream out;
    private final PrintStream err;

    /** Prints to the process's stdout and stderr. */
    public DumpCommand()
    {
        this(System.out, System.err);
    }

    DumpCommand(final PrintStream out, final PrintStream err)
    {
        this.out = out;
        this.err = err;
    }

    @Override
    public String name()
    {
        return "dump";
    }

    @Override
    public String summary()
    {
        return "show a store's logs, segments, checkpoints and (--records) records";
    }

    @Override
    public int run(final String[] args) throws Exception
    {
        final ToolArgs a = ToolArgs.parse(name(), args, Set.of("--log", "--from", "--records", "--json"));
        if (a.help)
        {
            out.print(USAGE);
            return 0;
        }
        if (!Files.isDirectory(a.dir))
        {
            throw new UsageException(a.dir + " is not a directory");
        }
        LogFiles.checkIsStore(a.dir, name());
        final List<LogFiles> logs = new ArrayList<>();
        for (final LogFiles log : LogFiles.find(a.dir))
        {
            if (a.log == null || a.log.equals(log.name))
            {
                log.load();
                logs.add(log);
            }
        }
        if (a.log != null && logs.isEmpty())
        {
            throw new UsageException("no log '" + a.log + "' in " + a.dir);
        }
        final Progress progress = new Progress(err, "dump", logs.stream().mapToLong(LogFiles::segmentBytes).sum());
        final List<Map<String, Object>> dumped = new ArrayList<>();
        for (final LogFiles log : logs)
        {
            dumped.add(dump(log, a, progress));
        }
        progress.finish();
        if (a.json)
        {
            final Map<String, Object> m = new LinkedHashMap<>();
            m.put("store", a.dir.toString());
            m.put("logs", dumped);
            out.println(Json.write(m));
        }
        return 0;
    }

    private Map<String, Object> dump(final LogFiles log, final ToolArgs a, final Progress progress) throws Exception
    {
        final Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", log.name);
        if (log.meta == null)
        {
            m.put("error", log.metaError);
            if (!a.json)
            {
                out.printf("log %s: %s%n", log.name, log.metaError);
            }
            return m;
        }
        m.put("logId", "0x" + Long.toHexString(log.meta.logId()));
        m.put("segmentSize", log.meta.segmentSize());
        m.put("created", time(log.meta.created()));
        final LogFiles.CheckpointSlot cp = log.checkpoint();
        m.put("checkpoint", cp == null ? null : checkpoint(cp));
        m.put("checkpointSlots", log.slots.stream().map(s -> Map.of("slot", s.slot(), "valid", s.valid(),
            "generation", s.generation())).toList());
        if (!a.json)
        {
            out.printf("log %s  id %s  segment size %d  created %s%n", log.name, m.get("logId"), log.meta.segmentSize(),
                m.get("created"));
            if (cp == null)
            {
                out.printf("  checkpoint  %s%n", log.checkpointError != null ? log.checkpointError : "none valid (no watermark yet)");
            }
            else
            {
                out.printf("  checkpoint  slot %d, generation %d, written %s%s%s%n", cp.slot(), cp.generation(),
                    time(cp.written()), cp.clean() ? ", clean shutdown" : ", not a clean shutdown",
                    cp.truncating() ? ", truncating" : "");
                out.printf("  watermark   offset %d: segment %d, position %d (last record below it: offset %d at %d)%n",
                    cp.offset(), cp.sequence(), cp.position(), cp.lastRecordOffset(), cp.lastRecordPosition());
            }
            out.printf("  %-26s %10s %12s %10s %8s %8s %12s  %-24s  %-24s%n", "segment file", "sequence", "base offset",
                "size", "recycled", "records", "next offset", "first timestamp", "last timestamp");
        }
        final List<Map<String, Object>> segments = new ArrayList<>();
        final List<Map<String, Object>> records = new ArrayList<>();
        for (final SegmentScan s : log.segments)
        {
            s.open(); // headers first: which segment is the last used one decides how the others are read
        }
        final List<SegmentScan> used = log.usedSegments();
        final int recordLogId = RecordDescriptor.recordLogId(log.meta.logId());
        for (final SegmentScan s : log.segments)
        {
            final Map<String, Object> sm = new LinkedHashMap<>();
            sm.put("file", s.path.getFileName().toString());
            sm.put("sequence", s.sequence);
            sm.put("size", s.fileSize);
            if (s.blank)
            {
                sm.put("state", "prepared");
            }
            else if (s.headerError != null)
            {
                sm.put("state", "invalid header: " + s.headerError);
            }
            else
            {
                s.scan(recordLogId, false);
                progress.advance(s.fileSize);
                final int i = used.indexOf(s);
                final boolean last = i == used.size() - 1;
                if (!last && used.get(i + 1).baseOffset <= a.from)
                {
                    s.release();
                    continue; // wholly below --from
                }
                sm.put("state", last ? "active" : "rolled");
                sm.put("baseOffset", s.baseOffset);
                sm.put("nextOffset", s.nextOffset);
                sm.put("recycled", s.recycled);
                if (s.holeFrom >= 0)
                {
                    sm.put("holeFrom", s.holeFrom); // offsets [holeFrom, baseOffset) belong to no record
                }
                sm.put("blockSize", s.blockSize);
                sm.put("records", s.records);
                sm.put("endPosition", s.endPosition);
                sm.put("firstTimestamp", s.firstTimestamp < 0 ? null : time(s.firstTimestamp));
                sm.put("lastTimestamp", s.lastTimestamp < 0 ? null : time(s.lastTimestamp));
                sm.put("scanStop", s.stop.name().toLowerCase() + (s.stopReason == null ? "" : ": " + s.stopReason));
            }
            segments.add(sm);
            if (!a.json)
            {
                out.printf("  %-26s %10d %12s %10d %8s %8s %12s  %-24s  %-24s%s%n", sm.get("file"), s.sequence,
                    opt(sm.get("baseOffset")), s.fileSize, opt(sm.get("recycled")), opt(sm.get("records")),
                    opt(sm.get("nextOffset")), opt(sm.get("firstTimestamp")), opt(sm.get("lastTimestamp")),
                    (s.holeFrom >= 0 ? "  after a hole [" + s.holeFrom + ", " + s.baseOffset + ")" : "") +
                    (s.hasRecords() ? (s.stopReason == null ? "" : "  scan stopped: " + s.stopReason) : "  " + sm.get("state")));
            }
            if (a.records && s.hasRecords())
            {
                s.records(a.from, e ->
                {
                    final Map<String, Object> r = new LinkedHashMap<>();
                    r.put("segment", s.sequence);
                    r.put("position", e.position());
                    r.put("offset", e.offset());
                    r.put("recordCount", e.recordCount());
                    r.put("length", e.length());
                    r.put("timestamp", time(e.timestamp()));
                    r.put("crc", e.crc());
                    if (e.problem() != null)
                    {
                        r.put("problem", e.problem());
                    }
                    if (a.json)
                    {
                        records.add(r);
                    }
                    else
                    {
                        out.printf("    record offset %d%s  position %d  length %d  timestamp %s  crc %s%s%n", e.offset(),
                            e.recordCount() > 1 ? " (+" + (e.recordCount() - 1) + ")" : "", e.position(), e.length(),
                            r.get("timestamp"), e.crc(), e.problem() == null ? "" : "  INVALID: " + e.problem());
                    }
                });
            }
            s.release();
        }
        m.put("segments", segments);
        if (a.records)
        {
            m.put("records", records);
        }
        if (!a.json && !log.transientFiles.isEmpty())
        {
            out.printf("  transient files (deleted at the next open): %s%n",
                log.transientFiles.stream().map(p -> p.getFileName().toString()).toList());
        }
        return m;
    }

    private static Map<String, Object> checkpoint(final LogFiles.CheckpointSlot cp)
    {
        final Map<String, Object> m = new LinkedHashMap<>();
        m.put("slot", cp.slot());
        m.put("generation", cp.generation());
        m.put("cleanShutdown", cp.clean());
        m.put("truncating", cp.truncating());
        m.put("sequence", cp.sequence());
        m.put("position", cp.position());
        m.put("watermarkOffset", cp.offset());
        m.put("lastRecordPosition", cp.lastRecordPosition());
        m.put("lastRecordOffset", cp.lastRecordOffset());
        m.put("written", time(cp.written()));
        return m;
    }

    private static String time(final long epochMillis)
    {
        return Instant.ofEpochMilli(epochMillis).toString();
    }

    private static String opt(final Object o)
    {
        return o == null ? "-" : o.toString();
    }
}
