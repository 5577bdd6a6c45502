package io.directlog.cli.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JsonLinesTest
{
    @Test
    void measuredRowHasEveryFieldAndNoNoteWhenThereIsNone()
    {
        final BenchRow row = new BenchRow("raw-direct-4k", 1, 4096, BenchRow.Status.MEASURED, 26412.66, 108.18718,
            26.255, 49.791, 952.831, null);

        assertEquals("{\"scenario\":\"raw-direct-4k\",\"threads\":1,\"recordBytes\":4096,\"opsPerSec\":26412.7," +
            "\"mbPerSec\":108.187,\"p50Us\":26.255,\"p99Us\":49.791,\"p999Us\":952.831}", JsonLines.line(row));
    }

    @Test
    void largeNumbersArePlainDecimals()
    {
        final BenchRow row = new BenchRow("engine-memory", 16, 100, BenchRow.Status.MEASURED, 12_345_678.0, 1234.5, 1,
            2, 3, "x");

        assertEquals("{\"scenario\":\"engine-memory\",\"threads\":16,\"recordBytes\":100,\"opsPerSec\":12345678," +
            "\"mbPerSec\":1234.5,\"p50Us\":1,\"p99Us\":2,\"p999Us\":3,\"note\":\"x\"}", JsonLines.line(row));
    }

    @Test
    void rowWithoutNumbersHasNullsAndItsStatusAsNote()
    {
        final BenchRow row = new BenchRow("engine-dsync", 16, 100, BenchRow.Status.FAILED, Double.NaN, Double.NaN,
            Double.NaN, Double.NaN, Double.NaN, "IOException: \"disk\" gone\n\tat");

        assertEquals("{\"scenario\":\"engine-dsync\",\"threads\":16,\"recordBytes\":100,\"opsPerSec\":null," +
            "\"mbPerSec\":null,\"p50Us\":null,\"p99Us\":null,\"p999Us\":null," +
            "\"note\":\"failed: IOException: \\\"disk\\\" gone\\n\\tat\"}", JsonLines.line(row));
    }

    @Test
    void controlCharactersAreEscaped()
    {
        assertEquals("\"a\\u0001b\\\\c\"", io.directlog.cli.JsonText.string("a\u0001b\\c"));
    }

    @Test
    void writesOneLinePerRow(@TempDir final Path dir) throws Exception
    {
        final Path file = dir.resolve("sub/b.json");
        final BenchRow row = ResultTableTest.row("raw-seq-1m", 1, 1 << 20, 1000, 800);

        JsonLines.write(file, List.of(row, row));

        assertEquals(List.of(JsonLines.line(row), JsonLines.line(row)), Files.readAllLines(file));
    }
}
