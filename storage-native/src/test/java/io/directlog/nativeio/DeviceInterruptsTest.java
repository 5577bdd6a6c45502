package io.directlog.nativeio;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Fake sysfs and procfs trees shaped like the ones of a virtio VM and an NVMe host. */
class DeviceInterruptsTest
{
    @TempDir
    Path root;

    @Test
    void singleQueueVirtioDiskInterruptsOneCpuAndItsConfigInterruptDoesNotCount() throws IOException
    {
        final Path sys = root.resolve("sys");
        final Path proc = root.resolve("proc");
        final Path pci = disk(sys, "vda", "devices/pci0000:00/0000:00:02.0", "virtio1");
        msi(pci, 35, 36);
        irq(proc, 35, "virtio1-config", "0");
        irq(proc, 36, "virtio1-req.0", "1");

        assertEquals(Optional.of(CpuSet.parse("1")), DeviceInterrupts.completionCpus(sys, proc, "vda"));
    }

    @Test
    void perCpuQueuesCoverEveryCpuAndTheAdminQueueDoesNotCount() throws IOException
    {
        final Path sys = root.resolve("sys");
        final Path proc = root.resolve("proc");
        final Path pci = disk(sys, "nvme0n1", "devices/pci0000:00/0000:00:04.0", "nvme/nvme0");
        msi(pci, 40, 41, 42, 43, 44);
        irq(proc, 40, "nvme0q0", "3");
        irq(proc, 41, "nvme0q1", "0");
        irq(proc, 42, "nvme0q2", "1");
        irq(proc, 43, "nvme0q3", "2");
        irq(proc, 44, null, "3"); // allocated, no handler registered: not counted

        assertEquals(Optional.of(CpuSet.parse("0-2")), DeviceInterrupts.completionCpus(sys, proc, "nvme0n1"));
    }

    @Test
    void fallsBackToTheLegacyInterruptAndToSmpAffinity() throws IOException
    {
        final Path sys = root.resolve("sys");
        final Path proc = root.resolve("proc");
        final Path pci = disk(sys, "sda", "devices/pci0000:00/0000:00:1f.2", "ata1/host0/target0:0:0/0:0:0:0");
        Files.writeString(pci.resolve("irq"), "19\n");
        final Path dir = Files.createDirectories(proc.resolve("irq/19"));
        Files.createDirectories(dir.resolve("ahci[0000:00:1f.2]"));
        Files.writeString(dir.resolve("smp_affinity_list"), "2-3\n");

        assertEquals(Optional.of(CpuSet.parse("2-3")), DeviceInterrupts.completionCpus(sys, proc, "sda"));
    }

    @Test
    void devicesWithoutInterruptsOfTheirOwnGiveNothing() throws IOException
    {
        final Path sys = root.resolve("sys");
        final Path proc = root.resolve("proc");
        Files.createDirectories(sys.resolve("block/dm-0")); // device mapper: no device link
        assertTrue(DeviceInterrupts.completionCpus(sys, proc, "dm-0").isEmpty());
        assertTrue(DeviceInterrupts.completionCpus(sys, proc, "nosuchdisk").isEmpty());

        final Path pci = disk(sys, "vdb", "devices/pci0000:00/0000:00:05.0", "virtio2");
        msi(pci, 50);
        irq(proc, 50, "virtio2-req.0", "not-a-list");
        assertTrue(DeviceInterrupts.completionCpus(sys, proc, "vdb").isEmpty(), "an unreadable affinity is no answer");
    }

    /** sys/block/NAME/device -> sys/PCI/CHILD, with PCI holding the function's files; returns PCI. */
    private static Path disk(final Path sys, final String name, final String pci, final String child)
        throws IOException
    {
        final Path function = Files.createDirectories(sys.resolve(pci));
        final Path device = Files.createDirectories(function.resolve(child));
        final Path block = Files.createDirectories(sys.resolve("block").resolve(name));
        Files.createSymbolicLink(block.resolve("device"), block.relativize(device));
        return function;
    }

    private static void msi(final Path function, final int... irqs) throws IOException
    {
        final Path dir = Files.createDirectories(function.resolve("msi_irqs"));
        for (final int irq : irqs)
        {
            Files.writeString(dir.resolve(Integer.toString(irq)), "msix\n");
        }
    }

    private static void irq(final Path proc, final int irq, final String handler, final String effective)
        throws IOException
    {
        final Path dir = Files.createDirectories(proc.resolve("irq").resolve(Integer.toString(irq)));
        if (handler != null)
        {
            Files.createDirectories(dir.resolve(handler));
        }
        Files.writeString(dir.resolve("effective_affinity_list"), effective + "\n");
        Files.writeString(dir.resolve("smp_affinity_list"), "0-3\n");
        Files.writeString(dir.resolve("spurious"), "count 0\n");
    }
}
