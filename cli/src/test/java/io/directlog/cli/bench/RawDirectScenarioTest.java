package io.directlog.cli.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * One real, short run of raw-direct-4k through the runner, on the test directory's filesystem.
 */
class RawDirectScenarioTest
{
    @Test
    @Timeout(60)
    void rawDirect4kMeasuresRealWritesAndCleansUp() throws Exception
    {
        final String nativeUnavailable = DirectIoSupport.nativeUnavailableReason();
        assumeTrue(nativeUnavailable == null, () -> "skipped: " + nativeUnavailable);
        final Path parent = Path.of(System.getProperty("directlog.test.dir", System.getProperty("java.io.tmpdir")));
        final BenchOptions options = BenchOptions.parse(new String[] {"--only", "raw-direct-4k", "--duration", "0.4"});
        final ByteArrayOutputStream progress = new ByteArrayOutputStream();

        final List<BenchRow> rows;
        final Path used;
        try (BenchDirectory dir = BenchDirectory.create(parent))
        {
            used = dir.path();
            final DirectIoSupport directIo = DirectIoSupport.probe(dir.path());
            assumeTrue(directIo.directSupported(), () -> "skipped: O_DIRECT " + directIo.describe());
            final PrintStream out = new PrintStream(progress, true, StandardCharsets.UTF_8);
            final BenchContext context = new BenchContext(dir.path(), options, out, directIo);
            rows = new BenchRunner(context, out).run(Scenarios.select(options.scenarios()));
            assertFalse(Files.exists(dir.path().resolve("raw-direct-4k")), "scenario directory removed after it");
        }

        assertFalse(Files.exists(used), "run directory removed");
        assertEquals(1, rows.size(), progress.toString(StandardCharsets.UTF_8));
        final BenchRow row = rows.get(0);
        assertTrue(row.isMeasured(), row::toString);
        assertEquals("raw-direct-4k", row.scenario());
        assertEquals(4096, row.recordBytes());
        assertTrue(row.opsPerSec() > 0, row::toString);
        assertEquals(row.opsPerSec() * 4096 / 1e6, row.mbPerSec(), 1e-6);
        assertTrue(row.p50Us() > 0 && row.p50Us() <= row.p99Us() && row.p99Us() <= row.p999Us(), row::toString);
        assertTrue(progress.toString(StandardCharsets.UTF_8).startsWith("[1/1] raw-direct-4k: "));
    }
}
