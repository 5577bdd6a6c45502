package io.directlog.benchmarks.log;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import io.directlog.benchmarks.report.Json;
import io.directlog.nativeio.NativeIo;
import io.directlog.storage.Durability;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The harness runs end to end in a smoke-sized run, so it cannot rot between benchmark runs. */
class InterleavedLatencyPairTest
{
    @TempDir
    Path dir;

    @Test
    void measuresBothSidesInEveryRoundAndWritesThemAsJson() throws Exception
    {
        assumeTrue(NativeIo.isAvailable(), () -> "native I/O unavailable: " + NativeIo.unavailabilityCause());
        final Path json = dir.resolve("pairs.json");
        final InterleavedLatencyPair.Options options = InterleavedLatencyPair.Options.parse(new String[] {
            "--rounds", "3", "--round-ms", "40", "--warmup-ms", "80", "--json", json.toString() });
        final ByteArrayOutputStream text = new ByteArrayOutputStream();
        final InterleavedLatencyPair.PairResult result = InterleavedLatencyPair.measure(Durability.DIRECT, options,
            new PrintStream(text, true, StandardCharsets.UTF_8));

        assertEquals(3, result.rounds().size());
        for (final InterleavedLatencyPair.Round round : result.rounds())
        {
            assertTrue(round.engineOps() > 0 && round.rawOps() > 0, round.toString());
            assertTrue(round.engineP50Micros() > 0 && round.engineP99Micros() >= round.engineP50Micros(),
                round.toString());
            assertTrue(round.rawP50Micros() > 0 && round.rawP99Micros() >= round.rawP50Micros(), round.toString());
        }
        assertTrue(text.toString(StandardCharsets.UTF_8).contains("DIRECT: median ratio"), text.toString());

        Files.writeString(json, InterleavedLatencyPair.toJson(List.of(result), options));
        @SuppressWarnings("unchecked")
        final Map<String, Object> parsed = (Map<String, Object>)Json.parse(Files.readString(json));
        @SuppressWarnings("unchecked")
        final Map<String, Object> pair = (Map<String, Object>)((List<Object>)parsed.get("pairs")).get(0);
        assertEquals("DIRECT", pair.get("durability"));
        assertEquals(result.medianRatio(), Json.number(pair.get("medianRatio")), 0.001);
        assertEquals(3, ((List<?>)pair.get("rounds")).size());
    }

    @Test
    void badOptionsAreNamed()
    {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> InterleavedLatencyPair.Options.parse(
            new String[] { "--durability", "MEMORY" })).getMessage().contains("expected DIRECT or DSYNC"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> InterleavedLatencyPair.Options.parse(
            new String[] { "--rounds", "0" })).getMessage().contains("--rounds 0: must be at least 1"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> InterleavedLatencyPair.Options.parse(
            new String[] { "--rounds" })).getMessage().contains("--rounds needs a value"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> InterleavedLatencyPair.Options.parse(
            new String[] { "--frobnicate", "1" })).getMessage().contains("unknown option --frobnicate"));
    }
}
