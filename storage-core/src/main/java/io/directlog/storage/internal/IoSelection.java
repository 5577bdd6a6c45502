package io.directlog.storage.internal;

import java.nio.file.Path;
import java.util.Optional;

import io.directlog.nativeio.BlockDeviceInfo;
import io.directlog.nativeio.DirectIoProbe;
import io.directlog.nativeio.FileSystemInfo;
import io.directlog.nativeio.NativeFileSystem;
import io.directlog.nativeio.NativeIo;
import io.directlog.storage.DeviceInfo;
import io.directlog.storage.StorageException;
import io.directlog.storage.StoreConfig;
import io.directlog.storage.spi.BlockIo;
import io.directlog.storage.io.BufferedBlockIo;
import io.directlog.storage.io.NativeBlockIo;

/**
 * Chooses the I/O layer for a store's directory and describes the device under it: O_DIRECT where a real
 * aligned write and read-back succeed there, else the buffered fallback (with one warning), and whether
 * overwrites stay in place (not on btrfs, zfs, or a filesystem the probe cannot name).
 *
 * @param io         the chosen I/O layer.
 * @param deviceInfo what was found.
 */
record IoSelection(BlockIo io, DeviceInfo deviceInfo)
{
    private static final System.Logger LOG = System.getLogger(IoSelection.class.getName());

    static IoSelection choose(final StoreConfig config, final Path directory)
    {
        String fsType = "unknown";
        boolean cow = true;
        String device = "unknown";
        boolean volatileCache = true;
        boolean fua = false;
        boolean rotational = false;
        int logical = 0;
        int physical = 0;
        boolean direct = false;
        int alignment = BlockIo.MIN_BLOCK_ALIGNMENT;
        String noSpace = null;
        final boolean nativeOn = NativeIo.isAvailable() && !Boolean.getBoolean(StoreConfig.BUFFERED_IO_PROP_NAME);
        String why = nativeOn ? null : (NativeIo.isAvailable() ? StoreConfig.BUFFERED_IO_PROP_NAME + "=true" :
            String.valueOf(NativeIo.unavailabilityCause()));
        if (NativeIo.isAvailable())
        {
            try
            {
                final FileSystemInfo fs = NativeFileSystem.statfs(directory);
                fsType = fs.typeName();
                cow = fs.isCopyOnWrite() || fsType.startsWith("unknown");
                final Optional<BlockDeviceInfo> dev = BlockDeviceInfo.forPath(directory);
                if (dev.isPresent())
                {
                    device = dev.get().disk();
                    volatileCache = dev.get().volatileWriteCache();
                    fua = dev.get().fua();
                    rotational = dev.get().rotational();
                    logical = dev.get().logicalBlockSize();
                    physical = dev.get().physicalBlockSize();
                }
                if (nativeOn)
                {
                    final DirectIoProbe.Result probe = DirectIoProbe.probe(directory);
                    direct = probe.supported();
                    alignment = Math.max(BlockIo.MIN_BLOCK_ALIGNMENT, probe.alignment());
                    why = probe.supported() ? null : probe.reason();
                    if (probe.noSpace())
                    {
                        noSpace = probe.reason();
                    }
                }
            }
            catch (final Exception e)
            {
                why = "probe failed: " + e.getMessage();
            }
        }
        if (noSpace != null && !direct && config.blockIo() == null)
        {
            // not "no O_DIRECT": a full filesystem. The buffered fallback would run until the store is closed, also
            // after space is freed (issue 17, defect 6); there is nothing to open a store with here
            throw new StorageException("no space left in " + directory + " to open the store (" + noSpace + ")");
        }
        if (noSpace != null && direct)
        {
            LOG.log(System.Logger.Level.WARNING, directory + ": " + noSpace + "; O_DIRECT is used. Appends that need a " +
                "new segment fail with LogFullException until space is freed");
        }
        final BlockIo io;
        if (config.blockIo() != null)
        {
            io = config.blockIo();
            direct = io.isDirect();
            alignment = io.blockAlignment();
        }
        else if (direct)
        {
            io = new NativeBlockIo(alignment);
        }
        else if (config.allowBufferedFallback())
        {
            LOG.log(System.Logger.Level.WARNING, "O_DIRECT unavailable in " + directory + " (" + why + "): using " +
                "buffered I/O with fdatasync per durable flush");
            io = new BufferedBlockIo(alignment);
        }
        else
        {
            throw new StorageException("O_DIRECT unavailable in " + directory + " (" + why + ") and " +
                "allowBufferedFallback is off");
        }
        if ("tmpfs".equals(fsType))
        {
            LOG.log(System.Logger.Level.WARNING, directory + " is on tmpfs: nothing written there survives a reboot");
        }
        return new IoSelection(io, new DeviceInfo(fsType, device, volatileCache, fua, rotational, logical, physical,
            direct, alignment, cow, io.describe()));
    }
}
