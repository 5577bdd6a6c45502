package io.directlog.cli.brokerbench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The table printed at the end of a run: one line per row, numbers right-aligned, DirectLog's rows with their ratios
 * to Kafka's ("vs kafka": kafka-rf3 for directlog-rf3) and the verdicts against the targets ({@link BrokerTargets})
 * at the end of the line. A failed row says
 * "failed: reason" where its numbers would be.
 * <p>
 * Stateless; thread-safe.
 */
final class BrokerBenchTable
{
    static final String[] HEADERS = {"system", "scenario", "measure", "parts", "prod", "msgs/s", "MB/s", "p50 ms",
        "p99 ms", "p99.9 ms", "cpu s/GB", "vs kafka", "vs fsync", "targets"};
    private static final int FIRST_NUMBER_COLUMN = 5;

    private BrokerBenchTable()
    {
    }

    /**
     * @param rows the run's rows, in table order.
     * @return the table, a header line then one line per row, each ending with a newline.
     */
    static String format(final List<BrokerBenchRow> rows)
    {
        final List<String[]> cells = new ArrayList<>();
        cells.add(HEADERS);
        for (final BrokerBenchRow row : rows)
        {
            cells.add(cells(row, rows));
        }
        final int[] widths = new int[HEADERS.length];
        for (final String[] line : cells)
        {
            for (int c = 0; c < Math.min(line.length, HEADERS.length - 1); c++)
            {
                if (line.length == HEADERS.length || c < FIRST_NUMBER_COLUMN)
                {
                    widths[c] = Math.max(widths[c], line[c].length());
                }
            }
        }
        final StringBuilder sb = new StringBuilder();
        for (final String[] line : cells)
        {
            final StringBuilder text = new StringBuilder();
            for (int c = 0; c < line.length; c++)
            {
                final boolean last = c == line.length - 1;
                final boolean left = c < 3 || last;
                text.append(c == 0 ? "" : "  ");
                if (last)
                {
                    text.append(line[c]);
                }
                else
                {
                    text.append(left ? padRight(line[c], widths[c]) : padLeft(line[c], widths[c]));
                }
            }
            sb.append(text.toString().stripTrailing()).append('\n');
        }
        return sb.toString();
    }

    private static String[] cells(final BrokerBenchRow row, final List<BrokerBenchRow> rows)
    {
        final String[] head = {row.system(), row.scenario(), row.measure(), Integer.toString(row.partitions()),
            Integer.toString(row.producers())};
        if (!row.isMeasured())
        {
            final String[] out = new String[FIRST_NUMBER_COLUMN + 1];
            System.arraycopy(head, 0, out, 0, head.length);
            out[FIRST_NUMBER_COLUMN] = row.note();
            return out;
        }
        final String verdict = BrokerTargets.verdict(row, rows);
        final String note = row.note() == null ? "" : row.note();
        return new String[] {head[0], head[1], head[2], head[3], head[4], number(row.msgsPerSec(), "%,.0f"),
            number(row.mbPerSec(), "%.1f"), millis(row.p50Ms()), millis(row.p99Ms()), millis(row.p999Ms()),
            number(row.brokerCpuSecPerGb(), "%.1f"),
            BrokerTargets.ratio(row, rows, BrokerTargets.kafkaFor(row.system())).map(BrokerTargets::times).orElse(""),
            BrokerTargets.ratio(row, rows, BrokerTargets.KAFKA_FSYNC).map(BrokerTargets::times).orElse(""),
            String.join(" | ", List.of(verdict, note).stream().filter(s -> !s.isEmpty()).toList())};
    }

    /** @return three significant digits or more: 0.412, 3.46, 78.1, 1,234; "-" for NaN. */
    static String millis(final double ms)
    {
        if (Double.isNaN(ms))
        {
            return "-";
        }
        if (ms >= 1000)
        {
            return String.format(Locale.ROOT, "%,.0f", ms);
        }
        if (ms >= 100)
        {
            return String.format(Locale.ROOT, "%.0f", ms);
        }
        if (ms >= 10)
        {
            return String.format(Locale.ROOT, "%.1f", ms);
        }
        if (ms >= 1)
        {
            return String.format(Locale.ROOT, "%.2f", ms);
        }
        return String.format(Locale.ROOT, "%.3f", ms);
    }

    private static String number(final double v, final String format)
    {
        return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, format, v);
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
