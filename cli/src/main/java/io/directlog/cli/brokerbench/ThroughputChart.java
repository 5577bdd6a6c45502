package io.directlog.cli.brokerbench;

import java.util.List;
import java.util.Locale;

/**
 * A bar chart of one throughput figure per system (MB/s of max-throughput, say): a linear axis from 0 to a round
 * number above the largest bar, a bar per system in the given order with its value on top, and "failed" where a
 * system has no figure.
 * <p>
 * Stateless; thread-safe.
 */
final class ThroughputChart
{
    /**
     * @param system the system.
     * @param value  its figure; NaN when it failed or was not measured.
     */
    record Bar(String system, double value)
    {
    }

    private ThroughputChart()
    {
    }

    /**
     * @param title    the picture's title.
     * @param subtitle a line under it, or null.
     * @param unit     the figure's unit, for the axis title (e.g. "MB/s").
     * @param bars     one per system, at least one.
     * @return the SVG document.
     */
    static String render(final String title, final String subtitle, final String unit, final List<Bar> bars)
    {
        if (bars.isEmpty())
        {
            throw new IllegalArgumentException("a throughput chart needs at least one bar");
        }
        final double largest = bars.stream().mapToDouble(Bar::value).filter(v -> !Double.isNaN(v)).max().orElse(0);
        final double step = niceStep(largest > 0 ? largest / 5 : 1);
        final double top = Math.max(step, Math.ceil(largest / step) * step);
        final StringBuilder sb = Svg.open(title, subtitle);
        for (double v = 0; v <= top + step / 2; v += step)
        {
            final double y = y(v, top);
            Svg.line(sb, Svg.LEFT, y, Svg.RIGHT, y, "#e0e0e0");
            Svg.text(sb, "y-tick", Svg.LEFT - 6, y + 4, "end", tick(v, step), "");
        }
        Svg.axes(sb, "system", unit);
        final double slot = (Svg.RIGHT - Svg.LEFT) / (double)bars.size();
        for (int i = 0; i < bars.size(); i++)
        {
            final Bar bar = bars.get(i);
            final double centre = Svg.LEFT + slot * (i + 0.5);
            if (Double.isNaN(bar.value()))
            {
                Svg.text(sb, "bar-value", centre, Svg.BOTTOM - 6, "middle", "failed", "fill=\"#b00\"");
            }
            else
            {
                final double y = y(bar.value(), top);
                final double width = Math.min(90, slot * 0.6);
                sb.append("<rect class=\"bar\" data-system=\"").append(Svg.esc(bar.system())).append("\" x=\"")
                    .append(Svg.px(centre - width / 2)).append("\" y=\"").append(Svg.px(y)).append("\" width=\"")
                    .append(Svg.px(width)).append("\" height=\"").append(Svg.px(Svg.BOTTOM - y)).append("\" fill=\"")
                    .append(Svg.colour(bar.system(), i)).append("\"><title>").append(Svg.esc(bar.system()))
                    .append(": ").append(Svg.value(bar.value())).append(' ').append(Svg.esc(unit))
                    .append("</title></rect>\n");
                Svg.text(sb, "bar-value", centre, y - 5, "middle", Svg.value(bar.value()), "");
            }
            Svg.text(sb, "x-tick", centre, Svg.BOTTOM + 18, "middle", bar.system(), "");
        }
        return Svg.close(sb);
    }

    private static double y(final double v, final double top)
    {
        return Svg.BOTTOM - v / top * (Svg.BOTTOM - Svg.TOP);
    }

    /** @return the smallest of 1, 2 and 5 times a power of ten that is at least {@code rough}. */
    static double niceStep(final double rough)
    {
        final double decade = Math.pow(10, Math.floor(Math.log10(rough)));
        for (final double m : new double[] {1, 2, 5, 10})
        {
            if (m * decade >= rough * (1 - 1e-9))
            {
                return m * decade;
            }
        }
        return 10 * decade;
    }

    private static String tick(final double v, final double step)
    {
        return step >= 1 ? String.format(Locale.ROOT, "%,.0f", v) : BrokerBenchTable.millis(v);
    }
}
