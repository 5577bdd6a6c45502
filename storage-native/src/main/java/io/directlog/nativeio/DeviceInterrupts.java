package io.directlog.nativeio;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The CPUs that handle a disk's I/O completion interrupts, from sysfs and procfs.
 * <p>
 * Why it matters: a thread blocked in an O_DIRECT write is woken by the completion, which runs on the CPU that
 * took the interrupt. When the thread last ran on another CPU, waking it there costs an inter-processor
 * interrupt, and on a virtual machine a halted vCPU's wake-up through the hypervisor: on the 2-vCPU VM of
 * {@code docs/benchmarks.md}, whose single-queue virtio disk interrupts only CPU 1, a 4 KiB O_DIRECT write
 * took 68 us at the median from CPU 0 and 45 us from CPU 1. Devices with a queue per CPU (NVMe, multi-queue
 * virtio) complete on the submitting CPU's own queue; for them this set is every CPU and tells nothing.
 * <p>
 * How: {@code /sys/block/<disk>/device} leads to the device's bus function (PCI), whose {@code msi_irqs/}
 * lists its interrupts (or {@code irq} its legacy one). Interrupts that carry no I/O completions are left out:
 * virtio's {@code -config} and NVMe's admin queue ({@code nvme0q0}). The union of the others'
 * {@code /proc/irq/N/effective_affinity_list} is the answer.
 * <p>
 * Stateless; thread-safe.
 */
public final class DeviceInterrupts
{
    static final Path SYS = Paths.get("/sys");
    static final Path PROC = Paths.get("/proc");
    /** How far up from the disk's sysfs node its bus function may be: SATA and SCSI disks sit 4 levels under it. */
    private static final int MAX_PARENT_STEPS = 6;
    /** Entries of /proc/irq/N that are files of the IRQ, not names of handlers registered on it. */
    private static final Set<String> IRQ_FILES = Set.of("affinity_hint", "effective_affinity",
        "effective_affinity_list", "node", "smp_affinity", "smp_affinity_list", "spurious");
    private static final Pattern NOT_COMPLETIONS = Pattern.compile(".*config.*|nvme\\d+q0");

    private DeviceInterrupts()
    {
    }

    /**
     * @param disk a whole-disk name such as {@code "vda"} or {@code "nvme0n1"} ({@link BlockDeviceInfo#disk()}).
     * @return the CPUs its completion interrupts are delivered to, or empty when that cannot be read (no such
     *         disk, a device-mapper or md device with no interrupts of its own, no procfs).
     */
    public static Optional<CpuSet> completionCpus(final String disk)
    {
        return completionCpus(SYS, PROC, disk);
    }

    /** Package-private so tests can point it at fake sysfs and procfs trees. */
    static Optional<CpuSet> completionCpus(final Path sys, final Path proc, final String disk)
    {
        Path node;
        try
        {
            node = sys.resolve("block").resolve(disk).resolve("device").toRealPath();
        }
        catch (final IOException | SecurityException e)
        {
            return Optional.empty();
        }
        for (int step = 0; node != null && step <= MAX_PARENT_STEPS; step++, node = node.getParent())
        {
            final Optional<CpuSet> cpus = completionCpusOfFunction(proc, node);
            if (cpus.isPresent())
            {
                return cpus;
            }
        }
        return Optional.empty();
    }

    private static Optional<CpuSet> completionCpusOfFunction(final Path proc, final Path function)
    {
        CpuSet cpus = null;
        final Path msi = function.resolve("msi_irqs");
        if (Files.isDirectory(msi))
        {
            try (DirectoryStream<Path> irqs = Files.newDirectoryStream(msi))
            {
                for (final Path irq : irqs)
                {
                    cpus = union(cpus, completionCpusOfIrq(proc, irq.getFileName().toString()));
                }
            }
            catch (final IOException | RuntimeException e)
            {
                return Optional.empty();
            }
        }
        else
        {
            final String legacy = read(function.resolve("irq"));
            if (legacy != null && !"0".equals(legacy))
            {
                cpus = completionCpusOfIrq(proc, legacy);
            }
        }
        return cpus == null || cpus.isEmpty() ? Optional.empty() : Optional.of(cpus);
    }

    /** @return the IRQ's CPUs, or null when it has no handler that completes I/O or its affinity is unreadable. */
    private static CpuSet completionCpusOfIrq(final Path proc, final String irq)
    {
        final Path dir = proc.resolve("irq").resolve(irq);
        boolean completes = false;
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir))
        {
            for (final Path entry : entries)
            {
                final String name = entry.getFileName().toString();
                if (!IRQ_FILES.contains(name) && !NOT_COMPLETIONS.matcher(name).matches())
                {
                    completes = true;
                }
            }
        }
        catch (final IOException | RuntimeException e)
        {
            return null;
        }
        if (!completes)
        {
            return null;
        }
        String list = read(dir.resolve("effective_affinity_list"));
        if (list == null || list.isEmpty())
        {
            list = read(dir.resolve("smp_affinity_list"));
        }
        try
        {
            return list == null || list.isEmpty() ? null : CpuSet.parse(list);
        }
        catch (final IllegalArgumentException e)
        {
            return null;
        }
    }

    private static CpuSet union(final CpuSet a, final CpuSet b)
    {
        return a == null ? b : b == null ? a : a.or(b);
    }

    private static String read(final Path file)
    {
        try
        {
            return new String(Files.readAllBytes(file), StandardCharsets.US_ASCII).trim();
        }
        catch (final IOException | RuntimeException e)
        {
            return null;
        }
    }
}
