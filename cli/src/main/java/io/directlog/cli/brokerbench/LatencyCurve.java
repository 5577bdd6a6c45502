package io.directlog.cli.brokerbench;

import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

import org.HdrHistogram.Histogram;

/**
 * A row's latency distribution: milliseconds at a fixed series of percentiles (p50 to p99.99, what the pictures
 * plot), and the whole HdrHistogram it came from (compressed, Base64; microseconds), so a later reader can ask for
 * any other percentile. A curve read back from JSON of the older format has only the percentiles it had (p50, p99,
 * p99.9) and no histogram. Immutable.
 *
 * @param msByPercentile milliseconds by percentile (e.g. 99.9), ascending; only the percentiles known.
 * @param histogram      the compressed histogram in Base64, or null.
 */
record LatencyCurve(NavigableMap<Double, Double> msByPercentile, String histogram)
{
    /** The percentiles every measured latency row carries. */
    static final List<Double> PERCENTILES = List.of(50.0, 75.0, 90.0, 95.0, 99.0, 99.5, 99.9, 99.95, 99.99);
    /** A row without latencies (a read row, a failed row). */
    static final LatencyCurve NONE = new LatencyCurve(new TreeMap<>(), null);

    LatencyCurve
    {
        msByPercentile = Collections.unmodifiableNavigableMap(new TreeMap<>(msByPercentile));
    }

    /**
     * @param h a histogram of microseconds.
     * @return its curve at {@link #PERCENTILES} and the histogram itself; {@link #NONE} when it is empty.
     */
    static LatencyCurve of(final Histogram h)
    {
        if (h.getTotalCount() == 0)
        {
            return NONE;
        }
        final TreeMap<Double, Double> points = new TreeMap<>();
        for (final double p : PERCENTILES)
        {
            points.put(p, h.getValueAtPercentile(p) / 1000.0);
        }
        final ByteBuffer buffer = ByteBuffer.allocate(h.getNeededByteBufferCapacity());
        final int length = h.encodeIntoCompressedByteBuffer(buffer);
        buffer.flip();
        final byte[] bytes = new byte[length];
        buffer.get(bytes);
        return new LatencyCurve(points, Base64.getEncoder().encodeToString(bytes));
    }

    /**
     * @param known milliseconds by percentile, NaN where a figure is missing (left out).
     * @return a curve of the known points, no histogram.
     */
    static LatencyCurve ofPoints(final Map<Double, Double> known)
    {
        final TreeMap<Double, Double> points = new TreeMap<>();
        known.forEach((p, ms) ->
        {
            if (ms != null && !ms.isNaN())
            {
                points.put(p, ms);
            }
        });
        return points.isEmpty() ? NONE : new LatencyCurve(points, null);
    }

    /**
     * @param percentile e.g. 99.99.
     * @return milliseconds at it, or NaN when the curve does not have it.
     */
    double ms(final double percentile)
    {
        final Double ms = msByPercentile.get(percentile);
        return ms == null ? Double.NaN : ms;
    }

    boolean isEmpty()
    {
        return msByPercentile.isEmpty();
    }

    /** @return the histogram decoded, or null when the curve has none. */
    Histogram decodeHistogram()
    {
        if (histogram == null)
        {
            return null;
        }
        try
        {
            return Histogram.decodeFromCompressedByteBuffer(ByteBuffer.wrap(Base64.getDecoder().decode(histogram)), 0);
        }
        catch (final java.util.zip.DataFormatException ex)
        {
            throw new IllegalArgumentException("not a compressed HdrHistogram: " + ex.getMessage(), ex);
        }
    }
}
