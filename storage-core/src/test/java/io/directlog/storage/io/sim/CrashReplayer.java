package io.directlog.storage.io.sim;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Walks a {@link SimulatedBlockIo}'s trace under one {@link DeviceModel}, keeping what is durable after each
 * call, and builds the post-crash image of a power loss at the current point: the durable state plus each
 * non-durable write independently kept, dropped, torn at 512 B or 4 KiB granularity, or filled with garbage
 * (FoundationDB's per-sector model), and the directory operations not yet made durable by a directory fsync
 * lost from some point on (a journal commits them in order).
 * <p>
 * What is durable (ext4/XFS semantics, §1.1 of reliability.md):
 * <ul>
 * <li>a write through an O_DSYNC descriptor: at completion, for its own sectors (FUA; size and extent state
 * included);</li>
 * <li>a plain O_DIRECT write: on {@link DeviceModel#WRITE_THROUGH} at completion when every 4 KiB block it
 * touches is an already durably written extent inside the durable size (pre-zeroed space); otherwise (an
 * unwritten extent, a size change, or any write on {@link DeviceModel#VOLATILE_CACHE}) at the file's next
 * fdatasync;</li>
 * <li>fallocate size changes: at the file's next fdatasync;</li>
 * <li>on a device that names a flush domain ({@link SimulatedBlockIo#flushDomain(Object)}), an fdatasync of any
 * file also flushes the device cache: every completed write of every other file that needs no metadata (into
 * durably written space inside the durable size) becomes durable, as ext4's and XFS's fdatasync end in
 * {@code blkdev_issue_flush}; writes that need metadata still wait for their own file's fdatasync;</li>
 * <li>create, rename, delete: at the next fsync of their directory.</li>
 * </ul>
 * The call after the crash point, when it is a write, is in flight: on every model it may land in part.
 * "Reordering" is the independence of these choices: a later write may survive while an earlier one is lost.
 * Two writes to the same sector are never applied older-over-newer (a drive's cache holds the newest data of a
 * sector; the engine never has two writes to one sector in flight).
 * <p>
 * Not thread-safe.
 */
public final class CrashReplayer
{
    private final DeviceModel model;
    private final List<IoCall> trace;
    private final int nextInode;
    private final Object flushDomain;
    private final HashSet<Path> dirs;
    /** An fdatasync flushes the device cache for every file, not just its own (see the class comment). */
    private final boolean syncFlushesDevice;
    private final Map<Path, Integer> durableNames = new HashMap<>();
    private final Map<Path, List<IoCall>> pendingDirOps = new HashMap<>();
    private final Map<Integer, DurableFile> files = new HashMap<>();
    private int position;

    /**
     * @param io    a device whose calls are done (its trace is taken now).
     * @param model the device model.
     */
    public CrashReplayer(final SimulatedBlockIo io, final DeviceModel model)
    {
        this(io, model, io.flushDomainKey() != null);
    }

    /**
     * @param io                a device whose calls are done (its trace is taken now).
     * @param model             the device model.
     * @param syncFlushesDevice true: an fdatasync flushes every file's overwrites; false: its own file only (a
     *                          device that names a flush domain it does not honour, for a test that must fail).
     */
    public CrashReplayer(final SimulatedBlockIo io, final DeviceModel model, final boolean syncFlushesDevice)
    {
        this.model = model;
        this.syncFlushesDevice = syncFlushesDevice;
        this.trace = io.trace();
        this.nextInode = io.nextInode();
        this.flushDomain = io.flushDomainKey();
        this.dirs = new HashSet<>(io.directories());
        durableNames.putAll(io.initialNames());
        io.initialFiles().forEach((inode, f) -> files.put(inode, new DurableFile(f.copy())));
    }

    /** @return calls in the trace. */
    public int length()
    {
        return trace.size();
    }

    /** @return the crash point: calls [0, position) completed. */
    public int position()
    {
        return position;
    }

    /**
     * @param index a call index.
     * @return the call.
     */
    public IoCall call(final int index)
    {
        return trace.get(index);
    }

    /**
     * @return true when a crash at the current point has choices: a write not yet durable (or in flight), or a
     * directory operation not yet made durable.
     */
    public boolean hasNonDurableState()
    {
        if (position < trace.size() && trace.get(position).kind() == IoCall.Kind.WRITE || !pendingDirOps.isEmpty())
        {
            return true;
        }
        for (final DurableFile f : files.values())
        {
            if (!f.pending.isEmpty() || f.liveSize != f.content.size)
            {
                return true;
            }
        }
        return false;
    }

    /**
     * Moves the crash point forward.
     *
     * @param point calls [0, point) are completed.
     */
    public void advanceTo(final int point)
    {
        while (position < point)
        {
            apply(trace.get(position++));
        }
    }

    private void apply(final IoCall call)
    {
        switch (call.kind())
        {
            case WRITE ->
            {
                final DurableFile f = files.get(call.inode());
                final long end = call.position() + call.length();
                f.liveSize = Math.max(f.liveSize, end);
                if (call.dsync() || model == DeviceModel.WRITE_THROUGH && end <= f.content.size &&
                    f.allWritten(call.position(), end))
                {
                    f.makeDurable(call, allSectors(call));
                }
                else
                {
                    f.pending.add(new Pending(call, allSectors(call)));
                }
            }
            case SYNC ->
            {
                files.get(call.inode()).sync();
                if (syncFlushesDevice)
                {
                    files.values().forEach(DurableFile::flushOverwrites);
                }
            }
            case SIZE ->
            {
                final DurableFile f = files.get(call.inode());
                f.liveSize = call.position();
            }
            case CREATE ->
            {
                files.put(call.inode(), new DurableFile(new SimulatedBlockIo.SimFile()));
                pendingDirOps.computeIfAbsent(call.path().getParent(), d -> new ArrayList<>()).add(call);
            }
            case RENAME, DELETE ->
                pendingDirOps.computeIfAbsent(call.path().getParent(), d -> new ArrayList<>()).add(call);
            case SYNCDIR ->
            {
                final List<IoCall> ops = pendingDirOps.remove(call.path());
                if (ops != null)
                {
                    ops.forEach(op -> applyDirOp(durableNames, op));
                }
            }
            case OTHER ->
            {
                // nothing durable changes
            }
            default -> throw new IllegalStateException(call.toString());
        }
    }

    private static void applyDirOp(final Map<Path, Integer> names, final IoCall op)
    {
        switch (op.kind())
        {
            case CREATE -> names.put(op.path(), op.inode());
            case RENAME ->
            {
                if (names.get(op.path()) != null && names.get(op.path()) == op.inode())
                {
                    names.remove(op.path());
                }
                names.put(op.target(), op.inode());
            }
            case DELETE -> names.remove(op.path(), op.inode());
            default -> throw new IllegalStateException(op.toString());
        }
    }

    private static BitSet allSectors(final IoCall call)
    {
        final BitSet b = new BitSet();
        b.set(0, call.length() / SimulatedBlockIo.SECTOR);
        return b;
    }

    /**
     * Builds the image a power loss at the current point leaves.
     *
     * @param rng     the choices' randomness.
     * @param profile which faults may happen.
     * @return the image, as a fresh device.
     */
    public CrashImage image(final SplittableRandom rng, final FaultProfile profile)
    {
        final Map<Path, Integer> names = new HashMap<>(durableNames);
        int lostDirOps = 0;
        for (final List<IoCall> ops : pendingDirOps.values())
        {
            final int keep = switch (profile)
            {
                case DROP_ALL -> 0;
                case KEEP_ALL -> ops.size();
                default -> rng.nextInt(ops.size() + 1);
            };
            for (int i = 0; i < keep; i++)
            {
                applyDirOp(names, ops.get(i));
            }
            lostDirOps += ops.size() - keep;
        }
        final IoCall inFlight = position < trace.size() && trace.get(position).kind() == IoCall.Kind.WRITE ?
            trace.get(position) : null;
        final Map<Integer, SimulatedBlockIo.SimFile> contents = new HashMap<>();
        final CrashImage.Faults faults = new CrashImage.Faults();
        faults.lostDirOps = lostDirOps;
        for (final int inode : new HashSet<>(names.values()))
        {
            final DurableFile f = files.get(inode);
            final SimulatedBlockIo.SimFile out = f.content.copy();
            for (final Pending p : f.pending)
            {
                applyWithFault(out, p, profile, rng, faults);
            }
            if (inFlight != null && inFlight.inode() == inode)
            {
                final BitSet sectors = allSectors(inFlight);
                applyWithFault(out, new Pending(inFlight, sectors), profile, rng, faults);
            }
            long size = f.content.size;
            if (f.liveSize != size && (profile == FaultProfile.KEEP_ALL ||
                profile != FaultProfile.DROP_ALL && rng.nextBoolean()))
            {
                size = f.liveSize; // the journal committed the size change on its own
            }
            out.cut(size);
            out.size = size;
            contents.put(inode, out);
        }
        return new CrashImage(new SimulatedBlockIo(names, contents, dirs, nextInode).flushDomain(flushDomain), faults);
    }

    private static void applyWithFault(final SimulatedBlockIo.SimFile out, final Pending p, final FaultProfile profile,
        final SplittableRandom rng, final CrashImage.Faults faults)
    {
        if (p.sectors.isEmpty())
        {
            return;
        }
        final Fault fault = switch (profile)
        {
            case DROP_ALL -> Fault.DROP;
            case KEEP_ALL -> Fault.KEEP;
            case SECTOR_ATOMIC -> Fault.values()[rng.nextInt(Fault.GARBAGE.ordinal())];
            case WITH_GARBAGE -> rng.nextInt(3) == 0 ? Fault.GARBAGE : Fault.values()[rng.nextInt(Fault.GARBAGE.ordinal())];
        };
        faults.count(fault);
        final IoCall call = p.call;
        final int sectorsPerPage = SimulatedBlockIo.PAGE / SimulatedBlockIo.SECTOR;
        final int total = call.length() / SimulatedBlockIo.SECTOR;
        final int tearStyle = rng.nextInt(3); // 0 prefix survives, 1 suffix survives, 2 any subset
        final int cut = rng.nextInt(total + 1);
        final int unitCount = fault == Fault.TEAR_PAGE ? (total + sectorsPerPage - 1) / sectorsPerPage : total;
        final BitSet units = new BitSet(unitCount);
        for (int u = 0; u < unitCount; u++)
        {
            final int first = fault == Fault.TEAR_PAGE ? u * sectorsPerPage : u;
            units.set(u, tearStyle == 0 ? first < cut : tearStyle == 1 ? first >= cut : rng.nextBoolean());
        }
        final byte[] sector = new byte[SimulatedBlockIo.SECTOR];
        for (int s = p.sectors.nextSetBit(0); s >= 0; s = p.sectors.nextSetBit(s + 1))
        {
            final long at = call.position() + (long)s * SimulatedBlockIo.SECTOR;
            final int offset = s * SimulatedBlockIo.SECTOR;
            switch (fault)
            {
                case KEEP -> out.write(at, call.data(), offset, SimulatedBlockIo.SECTOR);
                case DROP ->
                {
                    // the old content stays
                }
                case TEAR_SECTOR ->
                {
                    if (units.get(s))
                    {
                        out.write(at, call.data(), offset, SimulatedBlockIo.SECTOR);
                    }
                }
                case TEAR_PAGE ->
                {
                    if (units.get(s / sectorsPerPage))
                    {
                        out.write(at, call.data(), offset, SimulatedBlockIo.SECTOR);
                    }
                }
                case GARBAGE ->
                {
                    // FoundationDB's FULL_CORRUPTION per sector: correct 1/4, else garbage left, right or whole, or
                    // not written at all
                    final int r = rng.nextInt(16);
                    if (r < 4)
                    {
                        out.write(at, call.data(), offset, SimulatedBlockIo.SECTOR);
                    }
                    else if (r < 13)
                    {
                        if (call.data() != null)
                        {
                            System.arraycopy(call.data(), offset, sector, 0, SimulatedBlockIo.SECTOR);
                        }
                        else
                        {
                            java.util.Arrays.fill(sector, (byte)0);
                        }
                        final int split = 1 + rng.nextInt(SimulatedBlockIo.SECTOR - 1);
                        final int from = r < 7 ? 0 : r < 10 ? split : 0;
                        final int to = r < 7 ? split : SimulatedBlockIo.SECTOR;
                        for (int i = from; i < to; i++)
                        {
                            sector[i] = (byte)rng.nextInt(256);
                        }
                        out.write(at, sector, 0, SimulatedBlockIo.SECTOR);
                        faults.garbageSectors++;
                    }
                }
                default -> throw new IllegalStateException(fault.toString());
            }
        }
    }

    /** The fault applied to one non-durable write. */
    enum Fault
    {
        KEEP, DROP, TEAR_SECTOR, TEAR_PAGE, GARBAGE
    }

    /** Which faults an image may contain. */
    public enum FaultProfile
    {
        /** Every non-durable write lost, every unsynced directory operation lost (RocksDB's DropUnsyncedFileData). */
        DROP_ALL,
        /** Every completed and in-flight write kept (a crash just after the flush). */
        KEEP_ALL,
        /** Each non-durable write kept, dropped or torn at 512 B or 4 KiB (sectors are atomic). */
        SECTOR_ATOMIC,
        /** As SECTOR_ATOMIC, plus garbage in some sectors of a non-durable write (FoundationDB). */
        WITH_GARBAGE
    }

    private static final class Pending
    {
        final IoCall call;
        final BitSet sectors;

        Pending(final IoCall call, final BitSet sectors)
        {
            this.call = call;
            this.sectors = sectors;
        }
    }

    private static final class DurableFile
    {
        final SimulatedBlockIo.SimFile content;
        final BitSet written = new BitSet();
        final List<Pending> pending = new ArrayList<>();
        long liveSize;

        DurableFile(final SimulatedBlockIo.SimFile content)
        {
            this.content = content;
            this.liveSize = content.size;
            written.set(0, (int)((content.size + SimulatedBlockIo.PAGE - 1) / SimulatedBlockIo.PAGE));
        }

        boolean allWritten(final long from, final long to)
        {
            final int first = (int)(from / SimulatedBlockIo.PAGE);
            final int last = (int)((to - 1) / SimulatedBlockIo.PAGE);
            return written.nextClearBit(first) > last;
        }

        void makeDurable(final IoCall call, final BitSet sectors)
        {
            for (int s = sectors.nextSetBit(0); s >= 0; s = sectors.nextSetBit(s + 1))
            {
                content.write(call.position() + (long)s * SimulatedBlockIo.SECTOR, call.data(),
                    s * SimulatedBlockIo.SECTOR, SimulatedBlockIo.SECTOR);
            }
            final long end = call.position() + call.length();
            written.set((int)(call.position() / SimulatedBlockIo.PAGE), (int)((end - 1) / SimulatedBlockIo.PAGE) + 1);
            content.size = Math.max(content.size, end);
            // older non-durable data of these sectors is superseded: it can never land over this
            for (final Pending p : pending)
            {
                final long from = Math.max(p.call.position(), call.position());
                final long to = Math.min(p.call.position() + p.call.length(), end);
                if (from < to)
                {
                    p.sectors.clear((int)((from - p.call.position()) / SimulatedBlockIo.SECTOR),
                        (int)((to - p.call.position()) / SimulatedBlockIo.SECTOR));
                }
            }
        }

        /** The device's cache flushed: completed writes that need no metadata of this file become durable. */
        void flushOverwrites()
        {
            final List<Pending> all = new ArrayList<>(pending);
            pending.clear();
            for (final Pending p : all)
            {
                final long end = p.call.position() + p.call.length();
                if (end <= content.size && allWritten(p.call.position(), end))
                {
                    makeDurable(p.call, p.sectors);
                }
                else
                {
                    pending.add(p);
                }
            }
        }

        void sync()
        {
            final List<Pending> all = new ArrayList<>(pending);
            pending.clear();
            for (final Pending p : all)
            {
                makeDurable(p.call, p.sectors);
            }
            if (liveSize < content.size)
            {
                content.cut(liveSize);
            }
            content.size = liveSize;
        }
    }
}
