package io.directlog.storage.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.Set;

import io.directlog.nativeio.BlockDeviceInfo;
import io.directlog.nativeio.DirectIoProbe;
import io.directlog.nativeio.FileSystemInfo;
import io.directlog.nativeio.NativeFileSystem;
import io.directlog.nativeio.NativeIo;
import io.directlog.nativeio.NativeIoException;
import io.directlog.storage.DeviceInfo;
import io.directlog.storage.StorageException;
import io.directlog.storage.StoreConfig;
import io.directlog.storage.spi.BlockIo;
import io.directlog.storage.io.BufferedBlockIo;
import io.directlog.storage.io.JdkDirectBlockIo;
import io.directlog.storage.io.NativeBlockIo;

/**
 * Chooses the I/O layer for a store's directory and describes the device under it: O_DIRECT where a real
 * aligned write and read-back succeed there (through the native layer, or through the JDK alone when the JVM
 * was started without the options the native layer needs), else the buffered fallback (with one warning), and
 * whether overwrites stay in place (not on btrfs, zfs, or a filesystem the probe cannot name).
 *
 * @param io         the chosen I/O layer.
 * @param deviceInfo what was found.
 */
record IoSelection(BlockIo io, DeviceInfo deviceInfo)
{
    private static final System.Logger LOG = System.getLogger(IoSelection.class.getName());

    static IoSelection choose(final StoreConfig config, final Path directory)
    {
        final Probe probe = Probe.of(directory);
        if (probe.noSpace != null && !probe.direct && config.blockIo() == null)
        {
            // not "no O_DIRECT": a full filesystem. The buffered fallback would run until the store is closed, also
            // after space is freed (issue 17, defect 6); there is nothing to open a store with here
            throw new StorageException("no space left in " + directory + " to open the store (" + probe.noSpace + ")");
        }
        if (probe.noSpace != null && probe.direct)
        {
            LOG.log(System.Logger.Level.WARNING, directory + ": " + probe.noSpace + "; O_DIRECT is used. Appends that " +
                "need a new segment fail with LogFullException until space is freed");
        }
        final BlockIo io = chooseIo(config, directory, probe);
        final boolean direct = config.blockIo() != null ? io.isDirect() : probe.direct;
        final int alignment = config.blockIo() != null ? io.blockAlignment() : probe.alignment;
        if ("tmpfs".equals(probe.fsType))
        {
            LOG.log(System.Logger.Level.WARNING, directory + " is on tmpfs: nothing written there survives a reboot");
        }
        return new IoSelection(io, new DeviceInfo(probe.fsType, probe.device, probe.volatileCache, probe.fua,
            probe.rotational, probe.logicalBlockSize, probe.physicalBlockSize, direct, alignment, probe.copyOnWrite,
            io.describe()));
    }

    /** The configured I/O layer, else O_DIRECT where the probe found it, else the buffered fallback if allowed. */
    private static BlockIo chooseIo(final StoreConfig config, final Path directory, final Probe probe)
    {
        if (config.blockIo() != null)
        {
            return config.blockIo();
        }
        if (probe.direct)
        {
            return probe.jdkDirect ? new JdkDirectBlockIo(probe.alignment) : new NativeBlockIo(probe.alignment);
        }
        if (config.allowBufferedFallback())
        {
            LOG.log(System.Logger.Level.WARNING, "O_DIRECT unavailable in " + directory + " (" + probe.whyNotDirect +
                "): using buffered I/O with fdatasync per durable flush");
            return new BufferedBlockIo(probe.alignment);
        }
        throw new StorageException("O_DIRECT unavailable in " + directory + " (" + probe.whyNotDirect + ") and " +
            "allowBufferedFallback is off");
    }

    /**
     * What the native probes found about a directory; the defaults are what is assumed when a probe cannot run
     * (no native I/O) or fails: copy-on-write, a volatile write cache, no O_DIRECT.
     * <p>
     * Not thread-safe; filled and read by the thread opening the store.
     */
    private static final class Probe
    {
        private String fsType = "unknown";
        private boolean copyOnWrite = true;
        private String device = "unknown";
        private boolean volatileCache = true;
        private boolean fua;
        private boolean rotational;
        private int logicalBlockSize;
        private int physicalBlockSize;
        private boolean direct;
        private int alignment = BlockIo.MIN_BLOCK_ALIGNMENT;
        /** Filesystems, by the JDK's names for them, whose overwrites stay in place (not btrfs, zfs, bcachefs). */
        private static final Set<String> IN_PLACE_FILESYSTEMS =
            Set.of("ext2", "ext3", "ext4", "xfs", "f2fs", "tmpfs", "overlay", "nfs", "nfs4");
        /** O_DIRECT through the JDK ({@link JdkDirectBlockIo}) rather than the native layer. */
        private boolean jdkDirect;
        /** Why O_DIRECT is not used, or null when it is. */
        private String whyNotDirect;
        /** The probe's reason when its write found the filesystem full, else null. */
        private String noSpace;

        static Probe of(final Path directory)
        {
            final Probe probe = new Probe();
            final boolean nativeOn = NativeIo.isAvailable() && !Boolean.getBoolean(StoreConfig.BUFFERED_IO_PROP_NAME);
            probe.whyNotDirect = nativeOn ? null : (NativeIo.isAvailable() ?
                StoreConfig.BUFFERED_IO_PROP_NAME + "=true" : String.valueOf(NativeIo.unavailabilityCause()));
            if (NativeIo.isAvailable())
            {
                try
                {
                    probe.readFileSystem(directory);
                    probe.readDevice(directory);
                    if (nativeOn)
                    {
                        probe.tryDirectIo(directory);
                    }
                }
                catch (final Exception e)
                {
                    probe.whyNotDirect = "probe failed: " + e.getMessage();
                }
            }
            else
            {
                probe.readFileSystemType(directory);
                if (!Boolean.getBoolean(StoreConfig.BUFFERED_IO_PROP_NAME))
                {
                    probe.tryJdkDirectIo(directory);
                }
            }
            return probe;
        }

        private void readFileSystem(final Path directory) throws NativeIoException
        {
            final FileSystemInfo fs = NativeFileSystem.statfs(directory);
            fsType = fs.typeName();
            copyOnWrite = fs.isCopyOnWrite() || fsType.startsWith("unknown");
        }

        private void readDevice(final Path directory)
        {
            final Optional<BlockDeviceInfo> dev = BlockDeviceInfo.forPath(directory);
            if (dev.isPresent())
            {
                device = dev.get().disk();
                volatileCache = dev.get().volatileWriteCache();
                fua = dev.get().fua();
                rotational = dev.get().rotational();
                logicalBlockSize = dev.get().logicalBlockSize();
                physicalBlockSize = dev.get().physicalBlockSize();
            }
        }

        /**
         * The filesystem's type as the JDK names it (the mount table's), for a JVM the native layer does not run in:
         * overwrites count as in place only on the filesystems known to keep them there.
         */
        private void readFileSystemType(final Path directory)
        {
            try
            {
                fsType = Files.getFileStore(directory).type();
                copyOnWrite = !IN_PLACE_FILESYSTEMS.contains(fsType);
            }
            catch (final IOException | RuntimeException e)
            {
                whyNotDirect = whyNotDirect + "; the filesystem's type is unknown (" + e + ")";
            }
        }

        /** The same through the JDK alone, for a JVM the native layer does not run in (see JdkDirectBlockIo). */
        private void tryJdkDirectIo(final Path directory)
        {
            final JdkDirectBlockIo.Probe result = JdkDirectBlockIo.probe(directory);
            direct = result.supported();
            jdkDirect = result.supported();
            alignment = result.supported() ? result.alignment() : alignment;
            whyNotDirect = result.supported() ? null : whyNotDirect + "; " + result.whyNot();
            if (result.noSpace())
            {
                noSpace = result.whyNot();
            }
        }

        /** A real aligned write and read-back in the directory. */
        private void tryDirectIo(final Path directory)
        {
            final DirectIoProbe.Result result = DirectIoProbe.probe(directory);
            direct = result.supported();
            alignment = Math.max(BlockIo.MIN_BLOCK_ALIGNMENT, result.alignment());
            whyNotDirect = result.supported() ? null : result.reason();
            if (result.noSpace())
            {
                noSpace = result.reason();
            }
        }
    }
}
