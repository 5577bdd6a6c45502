package io.directlog.storage.internal;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import io.directlog.storage.CorruptLogException;
import io.directlog.storage.Durability;
import io.directlog.storage.LogStore;
import io.directlog.storage.StoreConfig;
import io.directlog.storage.TestDirs;
import io.directlog.storage.TestStores;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * A store whose open fails because one log is refused closes what it opened, and writes no store manifest: one
 * naming only the logs opened before the refusal would not describe the store (found by issue 17's lost-checkpoint
 * work: the next open rejected it with a WARNING, but the file was wrong).
 */
@Timeout(120)
class RefusedOpenWritesNoManifestTest
{
    @Test
    void aStoreOpenRefusedForOneLogLeavesNoManifest() throws Exception
    {
        final Path dir = TestDirs.create("refused-open-manifest");
        final StoreConfig config = TestStores.store(dir).build();
        try (LogStore store = LogStore.open(config))
        {
            for (final String name : List.of("a", "b", "c"))
            {
                store.log(name).append(name.getBytes(StandardCharsets.UTF_8), Durability.DSYNC).join();
            }
        }
        Files.delete(dir.resolve(StoreManifest.FILE)); // the open then goes through every log's files
        final List<Path> segments;
        try (java.util.stream.Stream<Path> files = Files.list(dir.resolve("b")))
        {
            segments = files.filter(p -> p.getFileName().toString().matches("\\d{20}\\.log")).toList();
        }
        assertEquals(1, segments.size(), "segments of b: " + segments);
        Files.delete(segments.get(0)); // the clean checkpoint names it: refused (durability.md, lost files)

        assertThrows(CorruptLogException.class, () -> LogStore.open(config).close());

        assertFalse(Files.exists(dir.resolve(StoreManifest.FILE)), "the failed open's close wrote a manifest");
    }
}
