package io.directlog.storage.internal;

import java.util.Optional;

import io.directlog.nativeio.CpuSet;
import io.directlog.nativeio.DeviceInterrupts;
import io.directlog.nativeio.NativeIo;
import io.directlog.nativeio.NativeIoException;
import io.directlog.nativeio.ThreadAffinity;
import io.directlog.storage.StoreConfig;

/**
 * Decides where a store's writer threads run, from {@link StoreConfig#writerCpus()} and the store's device.
 * <p>
 * {@code auto} pins only when the device's completion interrupts go to some, not all, of the CPUs this process may
 * use: then a writer there is woken where its write completes (see {@link DeviceInterrupts} for what that saves).
 * Where they go to every CPU (NVMe, multi-queue virtio), or cannot be read, pinning would only take freedom from
 * the scheduler, so nothing is pinned.
 *
 * @param cpus   where to pin, or null for nowhere.
 * @param reason why, for the store's log line.
 */
record WriterPlacement(CpuSet cpus, String reason)
{
    static final WriterPlacement UNPINNED = new WriterPlacement(null, "not pinned");

    /**
     * @param setting the configured value.
     * @param disk    the store's whole-disk device name, or "unknown".
     * @return the placement.
     */
    static WriterPlacement choose(final String setting, final String disk)
    {
        if (StoreConfig.WRITER_CPUS_NONE.equals(setting))
        {
            return UNPINNED;
        }
        if (!StoreConfig.WRITER_CPUS_AUTO.equals(setting))
        {
            return new WriterPlacement(CpuSet.parse(setting), "writerCpus=" + setting);
        }
        if (!NativeIo.isAvailable())
        {
            return UNPINNED;
        }
        final Optional<CpuSet> interrupts = DeviceInterrupts.completionCpus(disk);
        if (interrupts.isEmpty())
        {
            return UNPINNED;
        }
        final CpuSet allowed;
        try
        {
            allowed = ThreadAffinity.currentThread();
        }
        catch (final NativeIoException e)
        {
            return UNPINNED;
        }
        return auto(interrupts.get(), allowed, disk);
    }

    /** The auto rule, apart from where its inputs come from. */
    static WriterPlacement auto(final CpuSet interrupts, final CpuSet allowed, final String disk)
    {
        final CpuSet target = interrupts.and(allowed);
        if (target.isEmpty() || target.equals(allowed))
        {
            return new WriterPlacement(null, "not pinned: " + disk + "'s completion interrupts go to CPUs " +
                interrupts + ", this process may use " + allowed);
        }
        return new WriterPlacement(target, "pinned to CPUs " + target + ", where " + disk +
            "'s completion interrupts go (this process may use " + allowed + ")");
    }
}
