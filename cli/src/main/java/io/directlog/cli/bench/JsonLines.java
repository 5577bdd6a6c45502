package io.directlog.cli.bench;

import static io.directlog.cli.JsonText.number;
import static io.directlog.cli.JsonText.string;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The --json output: one JSON object per row and line, with the fields scripts compare runs by:
 * {@code scenario, threads, recordBytes, opsPerSec, mbPerSec, p50Us, p99Us, p999Us}, plus {@code note} when the row
 * has one. A row without numbers has null numbers and its "failed: ..." or "unavailable: ..." text as its note.
 * <p>
 * Stateless; thread-safe.
 */
final class JsonLines
{
    private JsonLines()
    {
    }

    /**
     * @param file where to write; replaced.
     * @param rows the run's rows.
     * @throws IOException when it cannot be written.
     */
    static void write(final Path file, final List<BenchRow> rows) throws IOException
    {
        final StringBuilder sb = new StringBuilder();
        for (final BenchRow row : rows)
        {
            sb.append(line(row)).append('\n');
        }
        final Path parent = file.toAbsolutePath().getParent();
        if (parent != null)
        {
            Files.createDirectories(parent);
        }
        Files.writeString(file, sb.toString(), StandardCharsets.UTF_8);
    }

    /**
     * @param row a row.
     * @return its JSON object, on one line.
     */
    static String line(final BenchRow row)
    {
        final StringBuilder sb = new StringBuilder(256).append('{');
        sb.append("\"scenario\":").append(string(row.scenario()));
        sb.append(",\"threads\":").append(row.threads());
        sb.append(",\"recordBytes\":").append(row.recordBytes());
        sb.append(",\"opsPerSec\":").append(number(row.opsPerSec(), 1));
        sb.append(",\"mbPerSec\":").append(number(row.mbPerSec(), 3));
        sb.append(",\"p50Us\":").append(number(row.p50Us(), 3));
        sb.append(",\"p99Us\":").append(number(row.p99Us(), 3));
        sb.append(",\"p999Us\":").append(number(row.p999Us(), 3));
        final String note = row.isMeasured() ? row.note() : row.statusText();
        if (note != null)
        {
            sb.append(",\"note\":").append(string(note));
        }
        return sb.append('}').toString();
    }
}
