package io.directlog.storage.io.sim;

/**
 * A post-crash image and the faults that made it.
 *
 * @param io     the image as a fresh device (all of it durable; its own trace starts empty).
 * @param faults what was applied.
 */
public record CrashImage(SimulatedBlockIo io, Faults faults)
{
    /** Counts of faults applied to non-durable writes. */
    public static final class Faults
    {
        /** Writes kept whole. */
        public int kept;
        /** Writes lost. */
        public int dropped;
        /** Writes torn at 512 B. */
        public int tornSector;
        /** Writes torn at 4 KiB. */
        public int tornPage;
        /** Writes with garbage in some sectors. */
        public int garbage;
        /** Sectors filled (in part) with garbage. */
        public int garbageSectors;
        /** Directory operations lost. */
        public int lostDirOps;

        void count(final CrashReplayer.Fault fault)
        {
            switch (fault)
            {
                case KEEP -> kept++;
                case DROP -> dropped++;
                case TEAR_SECTOR -> tornSector++;
                case TEAR_PAGE -> tornPage++;
                case GARBAGE -> garbage++;
                default -> throw new IllegalStateException(fault.toString());
            }
        }

        @Override
        public String toString()
        {
            return "kept=" + kept + " dropped=" + dropped + " tornSector=" + tornSector + " tornPage=" + tornPage +
                " garbage=" + garbage + " (sectors " + garbageSectors + ") lostDirOps=" + lostDirOps;
        }
    }
}
