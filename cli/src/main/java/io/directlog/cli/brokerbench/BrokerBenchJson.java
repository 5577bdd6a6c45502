package io.directlog.cli.brokerbench;

import static io.directlog.cli.JsonText.number;
import static io.directlog.cli.JsonText.string;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The --json output: one JSON object per row and line with {@code system, scenario, measure, partitions, producers,
 * recordBytes, msgsPerSec, mbPerSec, p50Ms, p99Ms, p999Ms, brokerCpuSecPerGb, loadGenCpuSecPerGb}, and
 * {@code verdict} and {@code note} when the row has them. Numbers that do not apply are null.
 * <p>
 * Stateless; thread-safe.
 */
final class BrokerBenchJson
{
    private BrokerBenchJson()
    {
    }

    static void write(final Path file, final List<BrokerBenchRow> rows) throws IOException
    {
        final StringBuilder sb = new StringBuilder();
        for (final BrokerBenchRow row : rows)
        {
            sb.append(line(row, rows)).append('\n');
        }
        final Path parent = file.toAbsolutePath().getParent();
        if (parent != null)
        {
            Files.createDirectories(parent);
        }
        Files.writeString(file, sb.toString(), StandardCharsets.UTF_8);
    }

    static String line(final BrokerBenchRow row, final List<BrokerBenchRow> rows)
    {
        final StringBuilder sb = new StringBuilder(320).append('{');
        sb.append("\"system\":").append(string(row.system()));
        sb.append(",\"scenario\":").append(string(row.scenario()));
        sb.append(",\"measure\":").append(string(row.measure()));
        sb.append(",\"partitions\":").append(row.partitions());
        sb.append(",\"producers\":").append(row.producers());
        sb.append(",\"recordBytes\":").append(row.recordBytes());
        sb.append(",\"msgsPerSec\":").append(number(row.msgsPerSec(), 1));
        sb.append(",\"mbPerSec\":").append(number(row.mbPerSec(), 3));
        sb.append(",\"p50Ms\":").append(number(row.p50Ms(), 3));
        sb.append(",\"p99Ms\":").append(number(row.p99Ms(), 3));
        sb.append(",\"p999Ms\":").append(number(row.p999Ms(), 3));
        sb.append(",\"brokerCpuSecPerGb\":").append(number(row.brokerCpuSecPerGb(), 3));
        sb.append(",\"loadGenCpuSecPerGb\":").append(number(row.loadGenCpuSecPerGb(), 3));
        final String verdict = BrokerTargets.verdict(row, rows);
        if (!verdict.isEmpty())
        {
            sb.append(",\"verdict\":").append(string(verdict));
        }
        if (row.note() != null)
        {
            sb.append(",\"note\":").append(string(row.note()));
        }
        return sb.append('}').toString();
    }
}
