package io.directlog.nativeio;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

import static io.directlog.nativeio.NativeTestSupport.assumeNative;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class DirectIoProbeTest
{
    private Path dir;

    @BeforeEach
    void setUp()
    {
        assumeNative();
        dir = NativeTestSupport.newDir("probe");
    }

    @AfterEach
    void tearDown()
    {
        NativeTestSupport.deleteTree(dir);
    }

    @Test
    void directIoIsSupportedOnTheTestDirectoryAndLeavesNoFile() throws Exception
    {
        final DirectIoProbe.Result result = DirectIoProbe.probe(dir);
        assumeTrue(!result.fileSystemType().equals("tmpfs"), "the test directory must be on a disk filesystem");
        assertTrue(result.supported(), result::toString);
        assertTrue(result.alignment() >= 512, result::toString);
        assertEquals(NativeFileSystem.statfs(dir).typeName(), result.fileSystemType());
        try (Stream<Path> left = Files.list(dir))
        {
            assertEquals(0, left.count(), "probe file deleted");
        }
    }

    @Test
    void missingDirectoryIsReportedNotThrown()
    {
        final DirectIoProbe.Result result = DirectIoProbe.probe(dir.resolve("missing"));
        assertFalse(result.supported());
        assertTrue(result.reason().contains("ENOENT"), result::toString);
    }
}
