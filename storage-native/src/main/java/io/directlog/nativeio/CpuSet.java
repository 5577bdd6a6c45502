package io.directlog.nativeio;

import java.util.BitSet;

/**
 * A set of CPU numbers, read and written in the Linux "cpulist" format of sysfs, procfs and {@code taskset -c}:
 * comma-separated numbers and inclusive ranges, e.g. {@code "0-3,6"}.
 * <p>
 * Immutable; thread-safe.
 */
public final class CpuSet
{
    /** The largest CPU number a set holds: glibc's default cpu_set_t has 1024 bits. */
    public static final int MAX_CPU = 1023;

    private final BitSet cpus;

    private CpuSet(final BitSet cpus)
    {
        this.cpus = cpus;
    }

    /**
     * @param cpuList a cpulist such as {@code "1"}, {@code "0-3,6"}; blanks around the parts are allowed.
     * @return the set.
     * @throws IllegalArgumentException naming the part that is not a CPU number or range, a CPU over
     *                                  {@link #MAX_CPU}, a range that ends before it starts, or an empty list.
     */
    public static CpuSet parse(final String cpuList)
    {
        final BitSet cpus = new BitSet();
        for (final String part : cpuList.trim().split(","))
        {
            final String range = part.trim();
            final int dash = range.indexOf('-');
            final int first = cpu(cpuList, dash < 0 ? range : range.substring(0, dash));
            final int last = dash < 0 ? first : cpu(cpuList, range.substring(dash + 1));
            if (last < first)
            {
                throw new IllegalArgumentException("CPU list '" + cpuList + "': range " + range +
                    " ends before it starts");
            }
            cpus.set(first, last + 1);
        }
        return new CpuSet(cpus);
    }

    private static int cpu(final String cpuList, final String text)
    {
        final int cpu;
        try
        {
            cpu = Integer.parseInt(text.trim());
        }
        catch (final NumberFormatException e)
        {
            throw new IllegalArgumentException("CPU list '" + cpuList + "': '" + text.trim() +
                "' is not a CPU number (expected e.g. 1 or 0-3,6)", e);
        }
        if (cpu < 0 || cpu > MAX_CPU)
        {
            throw new IllegalArgumentException("CPU list '" + cpuList + "': CPU " + cpu + " is not in 0-" + MAX_CPU);
        }
        return cpu;
    }

    /** @param words a cpu_set_t as 64-bit words, CPU 0 in the lowest bit of the first. @return the set. */
    static CpuSet fromWords(final long[] words)
    {
        return new CpuSet(BitSet.valueOf(words));
    }

    /** @return the set as a cpu_set_t of {@link #MAX_CPU} + 1 bits, in 64-bit words. */
    long[] toWords()
    {
        final long[] words = new long[(MAX_CPU + 1) / Long.SIZE];
        final long[] set = cpus.toLongArray();
        System.arraycopy(set, 0, words, 0, set.length);
        return words;
    }

    /** @return true when the set holds no CPU. */
    public boolean isEmpty()
    {
        return cpus.isEmpty();
    }

    /** @return how many CPUs the set holds. */
    public int size()
    {
        return cpus.cardinality();
    }

    /**
     * @param cpu a CPU number.
     * @return whether the set holds it.
     */
    public boolean contains(final int cpu)
    {
        return cpus.get(cpu);
    }

    /**
     * @param other another set.
     * @return the CPUs in both.
     */
    public CpuSet and(final CpuSet other)
    {
        final BitSet both = (BitSet)cpus.clone();
        both.and(other.cpus);
        return new CpuSet(both);
    }

    /**
     * @param other another set.
     * @return the CPUs in either.
     */
    public CpuSet or(final CpuSet other)
    {
        final BitSet either = (BitSet)cpus.clone();
        either.or(other.cpus);
        return new CpuSet(either);
    }

    @Override
    public boolean equals(final Object o)
    {
        return o instanceof CpuSet other && cpus.equals(other.cpus);
    }

    @Override
    public int hashCode()
    {
        return cpus.hashCode();
    }

    /** @return the set as a cpulist, ranges merged: {@code "0-3,6"}; empty for the empty set. */
    @Override
    public String toString()
    {
        final StringBuilder sb = new StringBuilder();
        for (int first = cpus.nextSetBit(0); first >= 0; )
        {
            final int end = cpus.nextClearBit(first);
            if (sb.length() > 0)
            {
                sb.append(',');
            }
            sb.append(first);
            if (end - 1 > first)
            {
                sb.append('-').append(end - 1);
            }
            first = cpus.nextSetBit(end);
        }
        return sb.toString();
    }
}
