package io.directlog.cli.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The table printed at the end of a run: one line per row, numbers right-aligned, a row without numbers says
 * "failed: reason" or "unavailable: reason" where its numbers would be.
 * <p>
 * Stateless; thread-safe.
 */
final class ResultTable
{
    static final String[] HEADERS = {"scenario", "threads", "bytes", "ops/s", "MB/s", "p50 us", "p99 us", "p99.9 us", "vs",
        "note"};
    /** The columns a row without numbers replaces with its status text. */
    private static final int FIRST_NUMBER_COLUMN = 3;
    private static final int MAX_REASON_CHARS = 120;

    private ResultTable()
    {
    }

    /**
     * @param rows the run's rows, in table order.
     * @return the table, one line per row after a header line, each ending with a newline.
     */
    static String format(final List<BenchRow> rows)
    {
        final List<String[]> cells = new ArrayList<>();
        cells.add(HEADERS);
        for (final BenchRow row : rows)
        {
            cells.add(cells(row, Comparisons.vs(row, rows)));
        }

        final int[] widths = new int[HEADERS.length];
        for (final String[] line : cells)
        {
            final int columns = line.length == HEADERS.length ? HEADERS.length : FIRST_NUMBER_COLUMN;
            for (int c = 0; c < columns; c++)
            {
                widths[c] = Math.max(widths[c], line[c].length());
            }
        }

        final StringBuilder sb = new StringBuilder();
        for (final String[] line : cells)
        {
            final StringBuilder text = new StringBuilder();
            for (int c = 0; c < line.length; c++)
            {
                final boolean left = c == 0 || c >= HEADERS.length - 2 || line.length < HEADERS.length && c == line.length - 1;
                final boolean last = c == line.length - 1;
                text.append(c == 0 ? "" : "  ");
                text.append(left ? (last ? line[c] : padRight(line[c], widths[c])) : padLeft(line[c], widths[c]));
            }
            sb.append(text.toString().stripTrailing()).append('\n');
        }
        return sb.toString();
    }

    private static String[] cells(final BenchRow row, final String vs)
    {
        final String scenario = row.scenario();
        final String threads = Integer.toString(row.threads());
        final String bytes = Integer.toString(row.recordBytes());
        if (!row.isMeasured())
        {
            return new String[] {scenario, threads, bytes, shorten(row.statusText())};
        }
        return new String[] {scenario, threads, bytes, String.format(Locale.ROOT, "%,.0f", row.opsPerSec()),
            megabytes(row.mbPerSec()), micros(row.p50Us()), micros(row.p99Us()), micros(row.p999Us()),
            vs == null ? "" : vs, row.note() == null ? "" : row.note()};
    }

    /** @return three significant digits or more: 3.46, 78.1, 1,234. */
    static String micros(final double us)
    {
        if (Double.isNaN(us))
        {
            return "-";
        }
        return String.format(Locale.ROOT, us < 10 ? "%.2f" : us < 1000 ? "%.1f" : "%,.0f", us);
    }

    static String megabytes(final double mb)
    {
        return String.format(Locale.ROOT, mb < 10 ? "%.2f" : mb < 1000 ? "%.1f" : "%,.0f", mb);
    }

    private static String shorten(final String text)
    {
        final String line = text.lines().findFirst().orElse("");
        return line.length() <= MAX_REASON_CHARS ? line : line.substring(0, MAX_REASON_CHARS - 3) + "...";
    }

    private static String padRight(final String s, final int width)
    {
        return s + " ".repeat(Math.max(0, width - s.length()));
    }

    private static String padLeft(final String s, final int width)
    {
        return " ".repeat(Math.max(0, width - s.length())) + s;
    }
}
