package io.directlog.storage.log;

import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

import io.directlog.storage.CorruptLogException;
import io.directlog.storage.Durability;
import io.directlog.storage.Log;
import io.directlog.storage.LogStore;
import io.directlog.storage.Record;
import io.directlog.storage.RecordBatch;
import io.directlog.storage.RecoveryMode;
import io.directlog.storage.StoreConfig;
import io.directlog.storage.io.sim.DeviceModel;
import io.directlog.storage.io.sim.SimulatedBlockIo;

/**
 * Opens a crash image and checks what the engine gives back: the recovered log must be a clean prefix of what
 * was appended (offsets 0, 1, 2... with no gap, duplicate or invented record, payloads byte-exact), and appends
 * must continue at its end. How much of it must be there is the caller's oracle.
 * <p>
 * Two paths: the fast one runs the engine's recovery (LogLoader, with a real SegmentPreparer on the image and the
 * shared writer thread), the full one opens a {@link LogStore} over the image (its own threads, IoSelection,
 * StoreEngine's log discovery).
 * <p>
 * Not thread-safe.
 */
final class PowerLossChecker
{
    private final PowerLossWorkload workload;

    PowerLossChecker(final PowerLossWorkload workload)
    {
        this.workload = workload;
    }

    /**
     * What opening an image gave.
     *
     * @param kind       the outcome.
     * @param end        the recovered end offset (OK only).
     * @param message    why, for CORRUPT and VIOLATION.
     */
    record Outcome(Kind kind, long end, String message)
    {
        enum Kind
        {
            /** Opened; the log is a clean prefix and took an append. */
            OK,
            /** Opening refused the image with CorruptLogException. */
            CORRUPT,
            /** Anything else: a wrong record, a gap, a failed append, another exception. */
            VIOLATION
        }
    }

    /**
     * The end offset a crash after call {@code point} must keep, under the durability promise.
     *
     * @param run   the workload.
     * @param point the crash point.
     * @param model the device.
     * @return records [0, end) must be recovered.
     */
    static long requiredEnd(final PowerLossWorkload.Run run, final int point, final DeviceModel model)
    {
        long end = 0;
        for (final PowerLossWorkload.Ack a : run.acks())
        {
            if (a.call() <= point && (a.durability() == Durability.DSYNC ||
                a.durability() == Durability.DIRECT && model == DeviceModel.WRITE_THROUGH))
            {
                end = Math.max(end, a.offset() + 1);
            }
        }
        return end;
    }

    /**
     * @param run        the workload.
     * @param point      the crash point.
     * @param durability acknowledgements of at least this durability count.
     * @return the end of the records acknowledged before the crash at that durability or more.
     */
    static long ackedEnd(final PowerLossWorkload.Run run, final int point, final Durability durability)
    {
        long end = 0;
        for (final PowerLossWorkload.Ack a : run.acks())
        {
            if (a.call() <= point && a.durability().atLeast(durability))
            {
                end = Math.max(end, a.offset() + 1);
            }
        }
        return end;
    }

    Outcome recover(final PowerLossWorkload.Run run, final SimulatedBlockIo image, final Durability mode,
        final RecoveryMode recoveryMode)
    {
        final SegmentPreparer preparer = new SegmentPreparer(image);
        DefaultLog log = null;
        try
        {
            workload.mirrorMeta(image);
            log = new LogLoader(PowerLossWorkload.NAME, workload.dir(),
                workload.context(image, preparer, recoveryMode), PowerLossWorkload.config(mode)).load();
            return verify(run, log);
        }
        catch (final CorruptLogException e)
        {
            return new Outcome(Outcome.Kind.CORRUPT, -1, e.getMessage());
        }
        catch (final Exception | AssertionError e)
        {
            return new Outcome(Outcome.Kind.VIOLATION, -1, "recovery failed: " + e);
        }
        finally
        {
            if (log != null)
            {
                log.close();
            }
            preparer.close();
        }
    }

    Outcome recoverStore(final PowerLossWorkload.Run run, final SimulatedBlockIo image, final Durability mode,
        final RecoveryMode recoveryMode)
    {
        try
        {
            workload.mirrorMeta(image);
            final StoreConfig config = StoreConfig.builder(workload.dir().getParent()).blockIo(image)
                .defaultLogConfig(PowerLossWorkload.config(mode)).memoryBudget(64L << 20)
                .recoveryMode(recoveryMode).appendTimeout(Duration.ofSeconds(10)).writerThreads(1).build();
            try (LogStore store = LogStore.open(config))
            {
                return verify(run, store.log(PowerLossWorkload.NAME));
            }
        }
        catch (final CorruptLogException e)
        {
            return new Outcome(Outcome.Kind.CORRUPT, -1, e.getMessage());
        }
        catch (final Exception | AssertionError e)
        {
            return new Outcome(Outcome.Kind.VIOLATION, -1, "store open failed: " + e);
        }
    }

    private static Outcome verify(final PowerLossWorkload.Run run, final Log log) throws Exception
    {
        if (log.startOffset() != 0)
        {
            return violation("start offset " + log.startOffset() + ", expected 0");
        }
        final long end = log.endOffset();
        if (end > run.payloads().size())
        {
            return violation("recovered end " + end + " beyond the " + run.payloads().size() + " records appended");
        }
        long at = 0;
        while (at < end)
        {
            try (RecordBatch batch = log.read(at, 2 * PowerLossWorkload.SEGMENT))
            {
                if (batch.isEmpty())
                {
                    return violation("read at " + at + " of a log ending at " + end + " gave nothing");
                }
                for (final Record r : batch)
                {
                    if (r.offset() != at || r.recordCount() != 1)
                    {
                        return violation("record at " + r.offset() + " (count " + r.recordCount() + ") where " + at +
                            " was expected");
                    }
                    if (!Arrays.equals(r.payloadBytes(), run.payloads().get((int)at)))
                    {
                        return violation("payload of record " + at + " differs from what was appended");
                    }
                    at++;
                }
            }
        }
        final byte[] next = PowerLossWorkload.payload(-1, end, 64);
        final long offset = log.append(next, Durability.DSYNC).get(30, TimeUnit.SECONDS);
        if (offset != end)
        {
            return violation("the append after recovery got offset " + offset + ", expected " + end);
        }
        try (RecordBatch batch = log.read(end, 4096))
        {
            if (batch.isEmpty() || !Arrays.equals(batch.iterator().next().payloadBytes(), next))
            {
                return violation("the append after recovery does not read back");
            }
        }
        return new Outcome(Outcome.Kind.OK, end, null);
    }

    private static Outcome violation(final String message)
    {
        return new Outcome(Outcome.Kind.VIOLATION, -1, message);
    }
}
