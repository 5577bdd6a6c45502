package io.directlog.cli.brokerbench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.NavigableMap;

/**
 * Latency by percentile, one curve per system: the x axis spaces percentiles by their nines (p90, p99, p99.9 and
 * p99.99 one step apart: x = log10(100 / (100 - p))), the y axis is milliseconds on a log scale (the systems differ
 * by orders of magnitude in the tail). A curve ends at the last percentile it has (p99.9 for rows of the older
 * JSON format).
 * <p>
 * Stateless; thread-safe.
 */
final class LatencyChart
{
    /** Percentiles labelled on the x axis; the others of a curve get a tick without a label. */
    static final List<Double> LABELLED = List.of(50.0, 90.0, 99.0, 99.9, 99.99, 99.999);
    /** Below this a latency is drawn at it: a log axis has no zero. */
    static final double FLOOR_MS = 0.001;

    /**
     * @param system the system.
     * @param msByPercentile its curve, at least one point.
     */
    record Series(String system, NavigableMap<Double, Double> msByPercentile)
    {
    }

    private LatencyChart()
    {
    }

    /**
     * @param title    the picture's title.
     * @param subtitle a line under it, or null.
     * @param series   one per system, each with at least one point.
     * @return the SVG document.
     */
    static String render(final String title, final String subtitle, final List<Series> series)
    {
        if (series.isEmpty() || series.stream().anyMatch(s -> s.msByPercentile().isEmpty()))
        {
            throw new IllegalArgumentException("a latency chart needs at least one series, each with a point");
        }
        final double lastPercentile = Math.max(99.0,
            series.stream().mapToDouble(s -> s.msByPercentile().lastKey()).max().orElseThrow());
        final double xMin = nines(50);
        final double xMax = nines(lastPercentile);
        final double lowMs = Math.max(FLOOR_MS,
            series.stream().flatMap(s -> s.msByPercentile().values().stream()).mapToDouble(d -> d).min().orElseThrow());
        final double highMs = Math.max(lowMs,
            series.stream().flatMap(s -> s.msByPercentile().values().stream()).mapToDouble(d -> d).max().orElseThrow());
        final int lowDecade = (int)Math.floor(Math.log10(lowMs));
        final int highDecade = Math.max(lowDecade + 1, (int)Math.ceil(Math.log10(highMs)));
        final Scale scale = new Scale(xMin, xMax, lowDecade, highDecade);

        final StringBuilder sb = Svg.open(title, subtitle);
        for (final double ms : yTicks(lowDecade, highDecade))
        {
            final double y = scale.y(ms);
            Svg.line(sb, Svg.LEFT, y, Svg.RIGHT, y, isDecade(ms) ? "#d0d0d0" : "#efefef");
            Svg.text(sb, "y-tick", Svg.LEFT - 6, y + 4, "end", tick(ms), "");
        }
        for (final double p : LatencyCurve.PERCENTILES)
        {
            if (p > lastPercentile)
            {
                continue;
            }
            final double x = scale.x(p);
            Svg.line(sb, x, Svg.BOTTOM, x, Svg.BOTTOM + 4, "#333");
            if (LABELLED.contains(p))
            {
                Svg.line(sb, x, Svg.TOP, x, Svg.BOTTOM, "#efefef");
                Svg.text(sb, "x-tick", x, Svg.BOTTOM + 18, "middle", "p" + percentile(p), "");
            }
        }
        Svg.axes(sb, "percentile", "latency, ms (log scale)");
        final List<String> systems = new ArrayList<>();
        for (int i = 0; i < series.size(); i++)
        {
            final Series s = series.get(i);
            systems.add(s.system());
            curve(sb, s, Svg.colour(s.system(), i), scale);
        }
        Svg.legend(sb, systems);
        return Svg.close(sb);
    }

    private static void curve(final StringBuilder sb, final Series s, final String colour, final Scale scale)
    {
        final StringBuilder points = new StringBuilder();
        final StringBuilder dots = new StringBuilder();
        s.msByPercentile().forEach((p, ms) ->
        {
            final String xy = Svg.px(scale.x(p)) + "," + Svg.px(scale.y(ms));
            points.append(points.length() == 0 ? "" : " ").append(xy);
            dots.append("<circle class=\"point\" data-system=\"").append(Svg.esc(s.system())).append("\" cx=\"")
                .append(Svg.px(scale.x(p))).append("\" cy=\"").append(Svg.px(scale.y(ms))).append("\" r=\"3\" fill=\"")
                .append(colour).append("\"><title>").append(Svg.esc(s.system())).append(" p").append(percentile(p))
                .append(": ").append(Svg.value(ms)).append(" ms</title></circle>\n");
        });
        sb.append("<polyline class=\"series\" data-system=\"").append(Svg.esc(s.system())).append("\" points=\"")
            .append(points).append("\" fill=\"none\" stroke=\"").append(colour).append("\" stroke-width=\"2\"/>\n");
        sb.append(dots);
    }

    /** Decades, and 2x and 5x between them when the axis spans at most two decades. */
    static List<Double> yTicks(final int lowDecade, final int highDecade)
    {
        final List<Double> out = new ArrayList<>();
        for (int d = lowDecade; d <= highDecade; d++)
        {
            final double base = Math.pow(10, d);
            out.add(base);
            if (highDecade - lowDecade <= 2 && d < highDecade)
            {
                out.add(2 * base);
                out.add(5 * base);
            }
        }
        return out;
    }

    /** @return a tick's label: 0.01, 0.5, 10, 2,000 (ticks are 1, 2 or 5 times a power of ten). */
    static String tick(final double ms)
    {
        return ms >= 1 ? String.format(Locale.ROOT, "%,.0f", ms) :
            new java.math.BigDecimal(ms).round(new java.math.MathContext(1)).toPlainString();
    }

    private static boolean isDecade(final double ms)
    {
        final double log = Math.log10(ms);
        return Math.abs(log - Math.rint(log)) < 1e-9;
    }

    /** @return the percentile's nines: 1 for p90, 2 for p99, 3 for p99.9. */
    static double nines(final double percentile)
    {
        return Math.log10(100 / (100 - percentile));
    }

    static String percentile(final double p)
    {
        return p == Math.rint(p) ? String.format(Locale.ROOT, "%.0f", p) :
            new java.math.BigDecimal(Double.toString(p)).stripTrailingZeros().toPlainString();
    }

    /** Data to pixels. */
    private record Scale(double xMin, double xMax, int lowDecade, int highDecade)
    {
        double x(final double percentile)
        {
            return Svg.LEFT + (nines(percentile) - xMin) / (xMax - xMin) * (Svg.RIGHT - Svg.LEFT);
        }

        double y(final double ms)
        {
            final double v = Math.log10(Math.max(FLOOR_MS, ms));
            return Svg.BOTTOM - (v - lowDecade) / (highDecade - lowDecade) * (Svg.BOTTOM - Svg.TOP);
        }
    }
}
