package io.directlog.cli.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.directlog.cli.UsageException;

class BenchOptionsTest
{
    @Test
    void defaultsRunEveryScenarioButTheManyLogsProbesForThreeSecondsInATemporaryDirectory() throws UsageException
    {
        final BenchOptions o = BenchOptions.parse(new String[0]);

        assertEquals(Scenarios.DEFAULT_NAMES, o.scenarios());
        assertTrue(o.scenarios().contains("engine-dsync"));
        assertFalse(o.scenarios().contains("engine-many-logs"));
        assertFalse(o.scenarios().contains("many-logs-footprint"));
        assertEquals(BenchOptions.DURATION_DEFAULT_SECONDS, o.durationSeconds());
        assertNull(o.directory());
        assertNull(o.jsonFile());
        assertFalse(o.quick());
        assertFalse(o.help());
        assertEquals(BenchOptions.COLD_READ_BYTES_DEFAULT, o.coldReadBytes());
    }

    @Test
    void quickShortensRowsAndColdReadButAnExplicitDurationWins() throws UsageException
    {
        final BenchOptions quick = BenchOptions.parse(new String[] {"--quick"});
        assertEquals(BenchOptions.DURATION_QUICK_SECONDS, quick.durationSeconds());
        assertEquals(BenchOptions.COLD_READ_BYTES_QUICK, quick.coldReadBytes());

        final BenchOptions both = BenchOptions.parse(new String[] {"--quick", "--duration", "0.5"});
        assertEquals(0.5, both.durationSeconds());
        assertEquals(500_000_000L, both.measureNanos());
    }

    @Test
    void warmupIsAQuarterOfTheMeasurementWithinBounds() throws UsageException
    {
        assertEquals(750_000_000L, BenchOptions.parse(new String[0]).warmupNanos());
        assertEquals(50_000_000L, BenchOptions.parse(new String[] {"--duration", "0.01"}).warmupNanos());
        assertEquals(1_000_000_000L, BenchOptions.parse(new String[] {"--duration", "60"}).warmupNanos());
    }

    @Test
    void onlyKeepsTheStableOrderWhateverTheOrderGiven() throws UsageException
    {
        final BenchOptions o = BenchOptions.parse(new String[] {"--only", "rocksdb-sync, raw-direct-4k"});

        assertEquals(List.of("raw-direct-4k", "rocksdb-sync"), o.scenarios());
    }

    @Test
    void valuesCanFollowAnEqualsSign() throws UsageException
    {
        final BenchOptions o = BenchOptions.parse(new String[] {"--dir=/tmp/x", "--json=out.json", "--only=raw-seq-1m"});

        assertEquals(Path.of("/tmp/x"), o.directory());
        assertEquals(Path.of("out.json"), o.jsonFile());
        assertEquals(List.of("raw-seq-1m"), o.scenarios());
    }

    @Test
    void unknownScenarioNamesAreRefusedWithTheValidNames()
    {
        final UsageException ex = assertThrows(UsageException.class,
            () -> BenchOptions.parse(new String[] {"--only", "raw-direct-4k,engine-fast,bogus"}));

        assertTrue(ex.getMessage().startsWith("unknown scenario engine-fast, bogus; valid names: raw-direct-4k, "),
            ex.getMessage());
        for (final String name : Scenarios.NAMES)
        {
            assertTrue(ex.getMessage().contains(name), name);
        }
    }

    @Test
    void unknownOptionIsNamed()
    {
        final UsageException ex = assertThrows(UsageException.class,
            () -> BenchOptions.parse(new String[] {"--fast"}));

        assertEquals("unknown option '--fast'", ex.getMessage());
    }

    @Test
    void strayArgumentIsNamed()
    {
        final UsageException ex = assertThrows(UsageException.class,
            () -> BenchOptions.parse(new String[] {"raw-direct-4k"}));

        assertEquals("unexpected argument 'raw-direct-4k'", ex.getMessage());
    }

    @Test
    void optionWithoutItsValueIsRefused()
    {
        assertEquals("--dir needs a value", assertThrows(UsageException.class,
            () -> BenchOptions.parse(new String[] {"--dir"})).getMessage());
        assertEquals("--only needs a value", assertThrows(UsageException.class,
            () -> BenchOptions.parse(new String[] {"--only", "--quick"})).getMessage());
    }

    @Test
    void durationMustBePositiveSeconds()
    {
        assertTrue(assertThrows(UsageException.class,
            () -> BenchOptions.parse(new String[] {"--duration", "3s"})).getMessage().contains("takes seconds"));
        assertTrue(assertThrows(UsageException.class,
            () -> BenchOptions.parse(new String[] {"--duration", "0"})).getMessage().contains("must be above 0"));
        assertTrue(assertThrows(UsageException.class,
            () -> BenchOptions.parse(new String[] {"--duration", "NaN"})).getMessage().contains("takes seconds"));
    }

    @Test
    void flagsTakeNoValue()
    {
        assertEquals("--quick takes no value", assertThrows(UsageException.class,
            () -> BenchOptions.parse(new String[] {"--quick=yes"})).getMessage());
    }

    @Test
    void usageListsEveryScenario()
    {
        for (final String name : Scenarios.NAMES)
        {
            assertTrue(BenchOptions.USAGE.contains("  " + name + " "), name);
        }
    }

    @Test
    void logsOverridesTheManyLogsScenariosDefaults() throws UsageException
    {
        assertEquals(0, BenchOptions.parse(new String[0]).logs());
        assertEquals(1000, BenchOptions.parse(new String[] {"--logs", "1,000"}).logs());
        assertEquals(250, BenchOptions.parse(new String[] {"--logs=250"}).logs());
    }

    @Test
    void logsRejectsWhatIsNotACountInRange()
    {
        assertTrue(assertThrows(UsageException.class, () -> BenchOptions.parse(new String[] {"--logs", "many"}))
            .getMessage().contains("'many'"));
        assertTrue(assertThrows(UsageException.class, () -> BenchOptions.parse(new String[] {"--logs", "0"}))
            .getMessage().contains("between 1 and"));
        assertTrue(assertThrows(UsageException.class,
            () -> BenchOptions.parse(new String[] {"--logs", String.valueOf(BenchOptions.LOGS_MAX + 1)}))
            .getMessage().contains("between 1 and"));
    }

    @Test
    void segmentSizeTakesBytesOrASuffixAndTheEnginesLimits() throws UsageException
    {
        assertEquals(0, BenchOptions.parse(new String[0]).segmentSize());
        assertEquals(1 << 20, BenchOptions.parse(new String[] {"--segment-size", "1m"}).segmentSize());
        assertEquals(2 << 20, BenchOptions.parse(new String[] {"--segment-size=2048K"}).segmentSize());
        assertEquals(4 << 20, BenchOptions.parse(new String[] {"--segment-size", "4194304"}).segmentSize());
        assertTrue(assertThrows(UsageException.class, () -> BenchOptions.parse(new String[] {"--segment-size", "big"}))
            .getMessage().contains("'big'"));
        assertTrue(assertThrows(UsageException.class, () -> BenchOptions.parse(new String[] {"--segment-size", "4k"}))
            .getMessage().startsWith("--segment-size '4k': "));
    }
}
