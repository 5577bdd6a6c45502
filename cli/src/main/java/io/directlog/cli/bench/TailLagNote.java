package io.directlog.cli.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Completes the {@code engine-tail-read} row's note once every row is in: its latency is a reader queued behind a
 * writer running flat out, which reads as alarming beside the engine's latency at a set rate, so the note names the
 * fixed-rate {@code tail-lag-*} rows of the same run and gives their p50 and p99 beside it.
 * <p>
 * Stateless; thread-safe.
 */
final class TailLagNote
{
    static final String TAIL_READ = "engine-tail-read";
    private static final String LAG_PREFIX = "tail-lag-";

    private TailLagNote()
    {
    }

    /**
     * @param rows every row of a run, in table order.
     * @return the same rows, the measured engine-tail-read row's note followed by the tail-lag rows' p50/p99 when
     * any of them was measured.
     */
    static List<BenchRow> apply(final List<BenchRow> rows)
    {
        final Optional<String> lags = summary(rows);
        if (lags.isEmpty())
        {
            return rows;
        }
        final List<BenchRow> out = new ArrayList<>(rows.size());
        for (final BenchRow r : rows)
        {
            out.add(r.isMeasured() && r.scenario().equals(TAIL_READ) ? withNote(r, join(r.note(), lags.get())) : r);
        }
        return out;
    }

    /** @return "at fixed rates (tail-lag rows), p50/p99 us: memory-10k 3.1/8.0, ...", or empty without lag rows. */
    static Optional<String> summary(final List<BenchRow> rows)
    {
        final List<String> parts = new ArrayList<>();
        for (final BenchRow r : rows)
        {
            if (r.isMeasured() && r.scenario().startsWith(LAG_PREFIX))
            {
                parts.add(String.format(Locale.ROOT, "%s %s/%s", r.scenario().substring(LAG_PREFIX.length()),
                    ResultTable.micros(r.p50Us()), ResultTable.micros(r.p99Us())));
            }
        }
        return parts.isEmpty() ? Optional.empty() :
            Optional.of("at fixed rates (tail-lag rows), p50/p99 us: " + String.join(", ", parts));
    }

    private static String join(final String note, final String lags)
    {
        return note == null || note.isEmpty() ? lags : note + "; " + lags;
    }

    private static BenchRow withNote(final BenchRow r, final String note)
    {
        return new BenchRow(r.scenario(), r.threads(), r.recordBytes(), r.status(), r.opsPerSec(), r.mbPerSec(),
            r.p50Us(), r.p99Us(), r.p999Us(), note);
    }
}
