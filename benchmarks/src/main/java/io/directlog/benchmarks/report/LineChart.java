package io.directlog.benchmarks.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A line chart over categorical x values and a log-scale y axis, written as standalone SVG. Each series is a
 * {@code <g class="series" data-series="...">} holding its polyline and points, so the output can be checked by
 * an XML parser as well as looked at. Missing points (NaN) break nothing: the line joins the points present.
 * <p>
 * Not thread-safe; build, then {@link #toSvg()}.
 */
public final class LineChart
{
    private static final String[] COLORS = {
        "#d62728", "#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf" };
    private static final int WIDTH = 860;
    private static final int HEIGHT = 480;
    private static final int LEFT = 80;
    private static final int RIGHT = 290;
    private static final int TOP = 50;
    private static final int BOTTOM = 60;

    private final String title;
    private final String xLabel;
    private final String yLabel;
    private final List<String> categories;
    private final List<Series> series = new ArrayList<>();

    /**
     * @param title      the chart's title.
     * @param xLabel     the x axis's label.
     * @param yLabel     the y axis's label (log scale).
     * @param categories the x values, left to right.
     */
    public LineChart(final String title, final String xLabel, final String yLabel, final List<String> categories)
    {
        this.title = title;
        this.xLabel = xLabel;
        this.yLabel = yLabel;
        this.categories = List.copyOf(categories);
    }

    /**
     * Adds a series; one value per category, NaN where there is none.
     *
     * @param label  the legend's text.
     * @param dashed true to draw a dashed line (reference series such as the raw device).
     * @param values y values in category order.
     * @return this
     */
    public LineChart series(final String label, final boolean dashed, final double[] values)
    {
        if (values.length != categories.size())
        {
            throw new IllegalArgumentException("series '" + label + "' has " + values.length + " values for " +
                categories.size() + " categories");
        }
        series.add(new Series(label, dashed, values.clone()));
        return this;
    }

    /** @return the labels of the series added, in order. */
    public List<String> seriesLabels()
    {
        final List<String> labels = new ArrayList<>();
        series.forEach(s -> labels.add(s.label));
        return labels;
    }

    /** @return true when no series has a value. */
    public boolean isEmpty()
    {
        return series.stream().allMatch(s -> java.util.Arrays.stream(s.values).allMatch(Double::isNaN));
    }

    /** @return the chart as a standalone SVG document. */
    public String toSvg()
    {
        double min = Double.POSITIVE_INFINITY;
        double max = Double.NEGATIVE_INFINITY;
        for (final Series s : series)
        {
            for (final double v : s.values)
            {
                if (v > 0 && !Double.isInfinite(v))
                {
                    min = Math.min(min, v);
                    max = Math.max(max, v);
                }
            }
        }
        if (min > max)
        {
            min = 1;
            max = 10;
        }
        final int lo = (int)Math.floor(Math.log10(min));
        final int hi = Math.max(lo + 1, (int)Math.ceil(Math.log10(max)));
        final StringBuilder svg = new StringBuilder(8192);
        svg.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
            .append("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"").append(WIDTH).append("\" height=\"")
            .append(HEIGHT).append("\" viewBox=\"0 0 ").append(WIDTH).append(' ').append(HEIGHT)
            .append("\" font-family=\"sans-serif\" font-size=\"12\">\n")
            .append("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
        text(svg, WIDTH / 2.0 - RIGHT / 2.0, 28, "middle", 15, title);
        axes(svg, lo, hi);
        for (int i = 0; i < series.size(); i++)
        {
            plot(svg, series.get(i), COLORS[i % COLORS.length], i, lo, hi);
        }
        svg.append("</svg>\n");
        return svg.toString();
    }

    private void axes(final StringBuilder svg, final int lo, final int hi)
    {
        final double plotRight = WIDTH - RIGHT;
        final double plotBottom = HEIGHT - BOTTOM;
        svg.append("<g class=\"axes\" stroke=\"#444\" fill=\"none\">\n");
        line(svg, LEFT, plotBottom, plotRight, plotBottom, "#444");
        line(svg, LEFT, TOP, LEFT, plotBottom, "#444");
        svg.append("</g>\n<g class=\"grid\">\n");
        for (int d = lo; d <= hi; d++)
        {
            final double y = y(Math.pow(10, d), lo, hi);
            line(svg, LEFT, y, plotRight, y, "#ddd");
            text(svg, LEFT - 6, y + 4, "end", 11, decade(d));
        }
        for (int i = 0; i < categories.size(); i++)
        {
            final double x = x(i);
            line(svg, x, plotBottom, x, plotBottom + 5, "#444");
            text(svg, x, plotBottom + 20, "middle", 11, categories.get(i));
        }
        svg.append("</g>\n");
        text(svg, (LEFT + plotRight) / 2, HEIGHT - 18, "middle", 12, xLabel);
        svg.append("<text transform=\"translate(18,").append(fmt((TOP + plotBottom) / 2))
            .append(") rotate(-90)\" text-anchor=\"middle\">").append(escape(yLabel)).append("</text>\n");
    }

    private void plot(final StringBuilder svg, final Series s, final String color, final int index, final int lo,
        final int hi)
    {
        svg.append("<g class=\"series\" data-series=\"").append(escape(s.label)).append("\">\n");
        final StringBuilder points = new StringBuilder();
        for (int i = 0; i < s.values.length; i++)
        {
            if (s.values[i] > 0 && !Double.isInfinite(s.values[i]))
            {
                points.append(fmt(x(i))).append(',').append(fmt(y(s.values[i], lo, hi))).append(' ');
            }
        }
        svg.append("<polyline fill=\"none\" stroke=\"").append(color).append("\" stroke-width=\"2\"")
            .append(s.dashed ? " stroke-dasharray=\"6,4\"" : "").append(" points=\"").append(points.toString().trim())
            .append("\"/>\n");
        for (int i = 0; i < s.values.length; i++)
        {
            if (s.values[i] > 0 && !Double.isInfinite(s.values[i]))
            {
                svg.append("<circle cx=\"").append(fmt(x(i))).append("\" cy=\"").append(fmt(y(s.values[i], lo, hi)))
                    .append("\" r=\"3.5\" fill=\"").append(color).append("\"><title>").append(escape(s.label))
                    .append(": ").append(escape(categories.get(i))).append(" = ").append(escape(human(s.values[i])))
                    .append("</title></circle>\n");
            }
        }
        final double ly = TOP + 10 + index * 20;
        final double lx = WIDTH - RIGHT + 20;
        svg.append("<line x1=\"").append(fmt(lx)).append("\" y1=\"").append(fmt(ly)).append("\" x2=\"")
            .append(fmt(lx + 24)).append("\" y2=\"").append(fmt(ly)).append("\" stroke=\"").append(color)
            .append("\" stroke-width=\"2\"").append(s.dashed ? " stroke-dasharray=\"6,4\"" : "").append("/>\n");
        text(svg, lx + 30, ly + 4, "start", 11, s.label);
        svg.append("</g>\n");
    }

    private double x(final int category)
    {
        final double width = WIDTH - RIGHT - LEFT;
        return LEFT + width * (category + 0.5) / categories.size();
    }

    private static double y(final double value, final int lo, final int hi)
    {
        final double height = HEIGHT - BOTTOM - TOP;
        return HEIGHT - BOTTOM - height * (Math.log10(value) - lo) / (hi - lo);
    }

    private static void line(final StringBuilder svg, final double x1, final double y1, final double x2,
        final double y2, final String color)
    {
        svg.append("<line x1=\"").append(fmt(x1)).append("\" y1=\"").append(fmt(y1)).append("\" x2=\"")
            .append(fmt(x2)).append("\" y2=\"").append(fmt(y2)).append("\" stroke=\"").append(color).append("\"/>\n");
    }

    private static void text(final StringBuilder svg, final double x, final double y, final String anchor,
        final int size, final String text)
    {
        svg.append("<text x=\"").append(fmt(x)).append("\" y=\"").append(fmt(y)).append("\" text-anchor=\"")
            .append(anchor).append("\" font-size=\"").append(size).append("\">").append(escape(text))
            .append("</text>\n");
    }

    private static String decade(final int d)
    {
        if (d == -1 || d == -2)
        {
            return d == -1 ? "0.1" : "0.01";
        }
        if (d >= 0 && d <= 2)
        {
            return String.valueOf((long)Math.pow(10, d));
        }
        if (d >= 3 && d <= 9)
        {
            return new String[] { "1k", "10k", "100k", "1M", "10M", "100M", "1G" }[d - 3];
        }
        return "1e" + d;
    }

    static String human(final double v)
    {
        if (v >= 1e6)
        {
            return String.format(Locale.ROOT, "%.2fM", v / 1e6);
        }
        if (v >= 1e4)
        {
            return String.format(Locale.ROOT, "%.1fk", v / 1e3);
        }
        return String.format(Locale.ROOT, v >= 100 ? "%.0f" : "%.2f", v);
    }

    private static String fmt(final double v)
    {
        return String.format(Locale.ROOT, "%.1f", v);
    }

    static String escape(final String s)
    {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }

    private static final class Series
    {
        final String label;
        final boolean dashed;
        final double[] values;

        Series(final String label, final boolean dashed, final double[] values)
        {
            this.label = label;
            this.dashed = dashed;
            this.values = values;
        }
    }
}
