package io.directlog.storage.internal;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.directlog.nativeio.CpuSet;
import io.directlog.nativeio.NativeIo;
import io.directlog.nativeio.NativeIoException;
import io.directlog.nativeio.ThreadAffinity;
import io.directlog.storage.LogStore;
import io.directlog.storage.StoreConfig;
import io.directlog.storage.TestDirs;
import io.directlog.storage.writer.LogWriterAgent;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class WriterPlacementTest
{
    @Test
    void autoPinsOnlyWhereInterruptsGoToSomeOfTheAllowedCpus()
    {
        final WriterPlacement virtio = WriterPlacement.auto(CpuSet.parse("1"), CpuSet.parse("0-1"), "vda");
        assertEquals(CpuSet.parse("1"), virtio.cpus());
        assertTrue(virtio.reason().contains("pinned to CPUs 1, where vda's completion interrupts go"),
            virtio.reason());

        assertNull(WriterPlacement.auto(CpuSet.parse("0-3"), CpuSet.parse("0-3"), "nvme0n1").cpus(),
            "interrupts on every CPU: nothing gained by pinning");
        assertNull(WriterPlacement.auto(CpuSet.parse("0-7"), CpuSet.parse("2-3"), "nvme0n1").cpus(),
            "a cpuset inside the interrupt CPUs: nothing gained either");
        assertNull(WriterPlacement.auto(CpuSet.parse("0"), CpuSet.parse("2-3"), "vda").cpus(),
            "the interrupt CPU is not ours to use");
        assertEquals(CpuSet.parse("2"), WriterPlacement.auto(CpuSet.parse("0,2"), CpuSet.parse("1-3"), "vda")
            .cpus(), "only the allowed part of the interrupt CPUs");
    }

    @Test
    void noneAndExplicitListsAreTakenAsTheySay()
    {
        assertNull(WriterPlacement.choose(StoreConfig.WRITER_CPUS_NONE, "vda").cpus());
        assertEquals(CpuSet.parse("0,2-3"), WriterPlacement.choose("0,2-3", "vda").cpus());
    }

    @Test
    void badWriterCpusAreRefusedWhenTheConfigIsBuilt()
    {
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> StoreConfig.builder(Path.of("unused")).writerCpus("1-x").build());
        assertTrue(e.getMessage().contains("writerCpus='1-x'") && e.getMessage().contains("'x' is not a CPU number"),
            e.getMessage());
    }

    @Test
    void writerThreadsRunWhereTheConfigSays() throws Exception
    {
        assumeTrue(NativeIo.isAvailable(), "native I/O unavailable");
        final CpuSet allowed = ThreadAffinity.currentThread();
        final CpuSet first = CpuSet.parse(allowed.toString().split("[,-]")[0]);

        try (LogStore store = StoreEngine.open(StoreConfig.builder(TestDirs.create("writer-pinned"))
            .writerThreads(2).writerCpus(first.toString()).build()))
        {
            for (final LogWriterAgent writer : ((StoreEngine)store).writers())
            {
                assertEquals(first, affinityOf(writer));
            }
        }
        try (LogStore store = StoreEngine.open(StoreConfig.builder(TestDirs.create("writer-unpinned"))
            .writerThreads(1).writerCpus(StoreConfig.WRITER_CPUS_NONE).build()))
        {
            assertEquals(allowed, affinityOf(((StoreEngine)store).writers()[0]));
        }
    }

    /** Asks the writer thread itself, through a command in its queue. */
    private static CpuSet affinityOf(final LogWriterAgent writer) throws Exception
    {
        final CompletableFuture<CpuSet> answer = new CompletableFuture<>();
        assertTrue(writer.offerCommand(0, () ->
        {
            try
            {
                answer.complete(ThreadAffinity.currentThread());
            }
            catch (final NativeIoException e)
            {
                answer.completeExceptionally(e);
            }
        }, Duration.ofSeconds(10)));
        return answer.get(30, TimeUnit.SECONDS);
    }
}
