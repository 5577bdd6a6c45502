package io.directlog.cli.brokerbench;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The command end to end at its cheapest: DirectLog's broker only (no Kafka), max-throughput only, --quick (about
 * 10 s of load after the broker's start).
 */
class BrokerBenchCommandSmokeTest
{
    @Test
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void quickMaxThroughputAgainstDirectLogWritesATableAndJson(@TempDir final Path dir) throws Exception
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final Path json = dir.resolve("broker.json");
        final int exit = new BrokerBenchCommand(new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8)).run(new String[] {"--quick", "--systems", "directlog",
            "--only", "max-throughput", "--dir", dir.resolve("brokers").toString(), "--json", json.toString(),
            "--plot", dir.resolve("pictures").toString()});
        final String table = out.toString(StandardCharsets.UTF_8);
        assertEquals(0, exit, () -> table + err.toString(StandardCharsets.UTF_8));
        assertTrue(table.contains("directlog  max-throughput  publish"), table);
        final List<String> lines = Files.readAllLines(json);
        assertEquals(1, lines.size(), lines::toString);
        assertTrue(lines.get(0).startsWith("{\"system\":\"directlog\",\"scenario\":\"max-throughput\""), lines.get(0));
        assertTrue(lines.get(0).contains("\"verdict\":\"MB/s vs kafka n/a"), lines.get(0));
        assertTrue(lines.get(0).contains("\"percentilesMs\":{\"50\":"), lines.get(0));
        assertTrue(Files.readString(dir.resolve("pictures/throughput-max-throughput.svg"))
            .contains("data-system=\"directlog\""));
        // the broker's data directory under --dir went with the broker: runs kept there filled the disk
        try (java.util.stream.Stream<Path> left = Files.list(dir.resolve("brokers")))
        {
            assertEquals(List.of(), left.toList());
        }
    }
}
