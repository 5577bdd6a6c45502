package io.directlog.nativeio;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Optional;

import static io.directlog.nativeio.NativeTestSupport.assumeNative;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class BlockDeviceInfoTest
{
    private Path dir;

    @BeforeEach
    void setUp()
    {
        assumeNative();
        dir = NativeTestSupport.newDir("blockdev");
    }

    @AfterEach
    void tearDown()
    {
        NativeTestSupport.deleteTree(dir);
    }

    @Test
    void findsTheDiskUnderTheTestDirectory() throws Exception
    {
        final Optional<BlockDeviceInfo> info = BlockDeviceInfo.forPath(dir);
        assumeTrue(info.isPresent(), () -> "no block device under " + dir + " (tmpfs, overlay or btrfs?)");
        final BlockDeviceInfo device = info.get();
        assertTrue(device.logicalBlockSize() == 512 || device.logicalBlockSize() == 4096, device::toString);
        assertTrue(device.physicalBlockSize() >= device.logicalBlockSize(), device::toString);
        assertFalse(device.disk().isEmpty());
        assertEquals(device.writeCache().startsWith("write back"), device.volatileWriteCache(), device::toString);
        final FileStat stat;
        try (NativeFile d = NativeFile.openDirectory(dir))
        {
            stat = d.stat();
        }
        assertEquals(stat.deviceMajor(), device.major());
        assertEquals(stat.deviceMinor(), device.minor());
    }

    @Test
    void procHasNoBlockDeviceAndMissingPathGivesEmpty()
    {
        assertTrue(BlockDeviceInfo.forPath(Paths.get("/proc")).isEmpty());
        assertTrue(BlockDeviceInfo.forPath(dir.resolve("missing")).isEmpty());
    }

    @Test
    void partitionResolvesToItsParentDiskQueue() throws Exception
    {
        final Path sys = fakeSysfs();
        final Path disk = Files.createDirectories(sys.resolve("devices/pci/block/sdz"));
        final Path queue = Files.createDirectories(disk.resolve("queue"));
        Files.writeString(queue.resolve("write_cache"), "write through\n");
        Files.writeString(queue.resolve("fua"), "1\n");
        Files.writeString(queue.resolve("rotational"), "1\n");
        Files.writeString(queue.resolve("logical_block_size"), "4096\n");
        Files.writeString(queue.resolve("physical_block_size"), "4096\n");
        final Path partition = Files.createDirectories(disk.resolve("sdz1"));
        Files.writeString(partition.resolve("partition"), "1\n");
        Files.createSymbolicLink(sys.resolve("dev/block/8:1"), Paths.get("../../devices/pci/block/sdz/sdz1"));

        final BlockDeviceInfo info = BlockDeviceInfo.forDevice(sys.resolve("dev/block"), 8, 1).orElseThrow();
        assertEquals(new BlockDeviceInfo("sdz", 8, 1, "sdz1", false, "write through", true, true, 4096, 4096), info);
    }

    @Test
    void missingAttributesTakeDefaultsInsteadOfFailing() throws Exception
    {
        final Path sys = fakeSysfs();
        Files.createDirectories(sys.resolve("devices/virtual/block/md9"));
        Files.createSymbolicLink(sys.resolve("dev/block/9:9"), Paths.get("../../devices/virtual/block/md9"));

        final BlockDeviceInfo info = BlockDeviceInfo.forDevice(sys.resolve("dev/block"), 9, 9).orElseThrow();
        assertEquals("md9", info.disk());
        assertNull(info.partition());
        assertTrue(info.volatileWriteCache());
        assertEquals("unknown", info.writeCache());
        assertFalse(info.fua());
        assertEquals(512, info.logicalBlockSize());
        assertEquals(512, info.physicalBlockSize());
    }

    @Test
    void majorZeroAndUnknownDeviceGiveEmpty() throws Exception
    {
        final Path sys = fakeSysfs();
        assertTrue(BlockDeviceInfo.forDevice(sys.resolve("dev/block"), 0, 42).isEmpty());
        assertTrue(BlockDeviceInfo.forDevice(sys.resolve("dev/block"), 250, 7).isEmpty());
    }

    private Path fakeSysfs() throws Exception
    {
        final Path sys = dir.resolve("sys");
        Files.createDirectories(sys.resolve("dev/block"));
        return sys;
    }
}
