package io.directlog.storage.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

import io.directlog.storage.TestDirs;
import io.directlog.storage.spi.BlockIo;
import org.junit.jupiter.api.Test;

/**
 * O_DIRECT through the JDK alone (the layer a JVM started with no option gets) against the {@link BlockIoContract};
 * skipped where the directory has no O_DIRECT (a tmpfs).
 */
class JdkDirectBlockIoContractTest extends BlockIoContract
{
    private Path directory;

    @Override
    BlockIo newIo() throws IOException
    {
        directory = TestDirs.create("jdk-direct-io");
        final JdkDirectBlockIo.Probe probe = JdkDirectBlockIo.probe(directory);
        assumeTrue(probe.supported(), () -> "no O_DIRECT through the JDK in " + directory + ": " + probe.whyNot());
        return new JdkDirectBlockIo(probe.alignment());
    }

    @Override
    Path newDirectory()
    {
        return directory;
    }

    /** The probe leaves no file behind, and says why when it cannot work (a directory that does not exist). */
    @Test
    void theProbeLeavesNothingAndNamesWhyItFailed() throws IOException
    {
        try (Stream<Path> files = Files.list(directory))
        {
            assertEquals(0, files.filter(f -> f.getFileName().toString().startsWith(".directlog")).count());
        }
        final JdkDirectBlockIo.Probe missing = JdkDirectBlockIo.probe(directory.resolve("missing"));
        assertFalse(missing.supported());
        assertNotNull(missing.whyNot());
        assertTrue(missing.whyNot().contains("missing"), missing.whyNot());
        assertTrue(io.isDirect());
    }
}
