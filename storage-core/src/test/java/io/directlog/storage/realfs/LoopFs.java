package io.directlog.storage.realfs;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * One filesystem image on a loop device that this test attached itself. Devices are allocated with
 * {@code losetup -f --show} and detached in {@link #close()}; nothing here touches a device it did not create.
 * <p>
 * Not thread-safe; the real-filesystem tests run serially.
 */
final class LoopFs implements AutoCloseable
{
    /** The filesystems the suite formats. */
    enum Kind
    {
        EXT4, XFS
    }

    final Kind kind;
    final Path image;
    final Path mountPoint;
    final int sectorSize;
    /** Descriptors the engine left open after a store closed (see {@link #leakedByEngine()}). */
    static final java.util.List<String> ENGINE_FD_LEAKS = java.util.Collections.synchronizedList(new ArrayList<>());
    private String device;
    private boolean leaked;
    private boolean mounted;
    /** What e2fsck fixed at the last {@link #repairAndMount()} beyond replaying the journal; null when nothing. */
    String lastFsckFixes;

    private LoopFs(final Kind kind, final Path image, final Path mountPoint, final int sectorSize)
    {
        this.kind = kind;
        this.image = image;
        this.mountPoint = mountPoint;
        this.sectorSize = sectorSize;
    }

    /** How to get the run these tests skip, for every skip message a fresh machine meets. */
    static final String FULL_RUN = "for the full run, as root: apt-get install xfsprogs e2fsprogs, then " +
        "mvn -B verify (or .ci/run, which installs them)";

    /**
     * Why the real-filesystem tests cannot run here, or null when they can.
     *
     * @param kinds the filesystems wanted.
     * @return a reason to skip, or null.
     */
    static String skipReason(final Kind... kinds)
    {
        if (!"Linux".equals(System.getProperty("os.name")))
        {
            return "not Linux";
        }
        if (!isRoot())
        {
            return "not root (loop devices and mount need root); " + FULL_RUN;
        }
        if (!Files.exists(Path.of("/dev/loop-control")))
        {
            return "/dev/loop-control is missing (no loop devices: load the loop module, or give the container them)";
        }
        final List<String> tools = new ArrayList<>(List.of("losetup", "mount", "umount", "cp", "kill"));
        for (final Kind k : kinds)
        {
            tools.addAll(k == Kind.EXT4 ? List.of("mkfs.ext4", "e2fsck", "xfs_io") : List.of("mkfs.xfs", "xfs_io"));
        }
        for (final String tool : tools)
        {
            if (!Sh.has(tool))
            {
                return tool + " is not installed; " + FULL_RUN;
            }
        }
        return null;
    }

    private static boolean isRoot()
    {
        try
        {
            for (final String line : Files.readAllLines(Path.of("/proc/self/status")))
            {
                if (line.startsWith("Uid:"))
                {
                    return "0".equals(line.split("\\s+")[2]);
                }
            }
        }
        catch (final IOException e)
        {
            return false;
        }
        return false;
    }

    /**
     * Creates a sparse image, attaches it, formats it and mounts it.
     *
     * @param kind       the filesystem.
     * @param dir        where the image and the mount point go.
     * @param name       a name unique within {@code dir}.
     * @param sizeMiB    the image size.
     * @param sectorSize the loop device's logical sector size (512, or 4096 for a 4Kn device).
     * @return the mounted filesystem; close it.
     */
    static LoopFs format(final Kind kind, final Path dir, final String name, final int sizeMiB, final int sectorSize)
        throws IOException
    {
        final LoopFs fs = new LoopFs(kind, dir.resolve(name + ".img"), dir.resolve(name + ".mnt"), sectorSize);
        try
        {
            Files.createDirectories(fs.mountPoint);
            try (RandomAccessFile f = new RandomAccessFile(fs.image.toFile(), "rw"))
            {
                f.setLength((long)sizeMiB << 20);
            }
            fs.attach();
            if (kind == Kind.EXT4)
            {
                // 4 KiB blocks (mkfs picks 1 KiB for small images); no root reserve, so "full" is really full;
                // no lazy init thread writing behind the test's back.
                Sh.run("mkfs.ext4", "-q", "-F", "-b", "4096", "-m", "0", "-E",
                    "lazy_itable_init=0,lazy_journal_init=0", fs.device);
            }
            else
            {
                Sh.run("mkfs.xfs", "-q", "-f", fs.device);
            }
            fs.mount();
            return fs;
        }
        catch (final IOException | RuntimeException e)
        {
            fs.close();
            throw e;
        }
    }

    /**
     * Copies the image (sparse) as a crash image: everything the loop device completed, nothing more.
     *
     * @param name the copy's name.
     * @return the copy, neither attached nor mounted; close it.
     */
    LoopFs copyImage(final String name)
    {
        final Path dir = image.getParent();
        final LoopFs copy = new LoopFs(kind, dir.resolve(name + ".img"), dir.resolve(name + ".mnt"), sectorSize);
        Sh.run("cp", "--sparse=always", image.toString(), copy.image.toString());
        return copy;
    }

    /** Attaches a crash image, replays the journal (e2fsck for ext4, log recovery at mount for XFS), mounts it. */
    void repairAndMount() throws IOException
    {
        Files.createDirectories(mountPoint);
        attach();
        if (kind == Kind.EXT4)
        {
            final Sh.Result r = Sh.exec("e2fsck", "-fy", device);
            lastFsckFixes = fixes(r.output());
            if (r.exitCode() > 1)
            {
                throw new IllegalStateException("e2fsck -fy " + image + " exited " + r.exitCode() + ": " + r.output());
            }
        }
        mount();
    }

    /**
     * @param output e2fsck's output.
     * @return the questions it answered "yes" to, less the summary counters that ext4 does not journal exactly
     * (fixing those after a journal replay is routine), or null.
     */
    static String fixes(final String output)
    {
        final StringBuilder fixes = new StringBuilder();
        String previous = "";
        for (final String line : output.split("\n"))
        {
            // e2fsck asks on the line after the problem: "Free blocks count wrong (...).\nFix? yes"
            final String question = line.contains("?") ? previous + " " + line : "";
            if (!question.isEmpty() && !question.contains("count wrong") && !question.contains("Padding at end"))
            {
                fixes.append(question.trim()).append("; ");
            }
            previous = line;
        }
        return fixes.length() == 0 ? null : fixes.toString();
    }

    void mount()
    {
        final String options = kind == Kind.EXT4 ? "commit=60" : "nouuid"; // nouuid: the original may be mounted
        Sh.run("mount", "-o", options, device, mountPoint.toString());
        mounted = true;
    }

    void umount()
    {
        if (mounted)
        {
            final Sh.Result r = Sh.exec("umount", mountPoint.toString());
            if (r.exitCode() != 0 && !leakedByEngine())
            {
                throw new IllegalStateException("umount " + mountPoint + ": " + r.output() + holders());
            }
            mounted = false;
        }
    }

    /**
     * The engine bug this suite found: a segment prepared while its log closes keeps its two descriptors open
     * for good, so the filesystem cannot be unmounted. When every holder is such a segment file in this JVM,
     * the leak is recorded in {@link #ENGINE_FD_LEAKS}, the mount is detached lazily (the kernel lets it go, and
     * the loop device auto-clears, when this JVM exits), and the test goes on; the suite then fails in its
     * {@code @AfterAll} (the bug was fixed in 242752c, so a leak is a regression).
     *
     * @return true when the leak was recorded and the mount detached.
     */
    private boolean leakedByEngine()
    {
        try
        {
            final java.util.List<String> open = RealFilesystemTest.openFilesUnder(mountPoint);
            if (open.isEmpty() || !open.stream().allMatch(f -> f.endsWith(".log")))
            {
                return false;
            }
            ENGINE_FD_LEAKS.add(open.toString());
            Sh.run("umount", "-l", mountPoint.toString());
            leaked = true;
            return true;
        }
        catch (final IOException | RuntimeException e)
        {
            return false;
        }
    }

    /** @return who keeps the mount busy: this JVM's descriptors under it, and fuser's view. */
    String holders()
    {
        try
        {
            return " open here: " + RealFilesystemTest.openFilesUnder(mountPoint) + "; fuser: " +
                Sh.exec("fuser", "-vm", mountPoint.toString()).output();
        }
        catch (final IOException | RuntimeException e)
        {
            return " (" + e + ")";
        }
    }

    /** Shuts the filesystem down as a crash would: the ioctl xfstests uses, on ext4 and XFS. */
    void shutdown(final boolean flushLog)
    {
        if (flushLog)
        {
            Sh.run("xfs_io", "-x", "-c", "shutdown -f", mountPoint.toString());
        }
        else
        {
            Sh.run("xfs_io", "-x", "-c", "shutdown", mountPoint.toString());
        }
    }

    /** @return bytes free to root. */
    long freeBytes() throws IOException
    {
        return Files.getFileStore(mountPoint).getUnallocatedSpace();
    }

    String device()
    {
        return device;
    }

    private void attach()
    {
        device = sectorSize == 512 ?
            Sh.run("losetup", "-f", "--show", image.toString()) :
            Sh.run("losetup", "-f", "--show", "--sector-size", Integer.toString(sectorSize), image.toString());
    }

    @Override
    public void close()
    {
        RuntimeException failure = null;
        if (mounted)
        {
            final Sh.Result r = Sh.exec("umount", mountPoint.toString());
            if (r.exitCode() != 0 && !leakedByEngine())
            {
                failure = new IllegalStateException("umount " + mountPoint + ": " + r.output() + holders());
                // a stuck mount must not keep the device: detach lazily, report the first failure
                Sh.exec("umount", "-l", mountPoint.toString());
            }
            mounted = false;
        }
        if (device != null)
        {
            final Sh.Result r = Sh.exec("losetup", "-d", device);
            if (r.exitCode() != 0 && failure == null && !leaked)
            {
                failure = new IllegalStateException("losetup -d " + device + ": " + r.output());
            }
            device = null;
        }
        try
        {
            Files.deleteIfExists(image);
            Files.deleteIfExists(mountPoint);
        }
        catch (final IOException e)
        {
            // the mount point may be busy after a lazy umount; it is in target/ and goes with mvn clean
        }
        if (failure != null)
        {
            throw failure;
        }
    }
}
