package io.directlog.cli.brokerbench;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What the two chart kinds share: the page (size, margins, title), text escaping, number formats, one colour per
 * system, and the legend. Every element a reader or a test may look for carries a class ({@code bar},
 * {@code series}, {@code point}, {@code x-tick}, {@code y-tick}, {@code legend}) and, where it belongs to a system,
 * {@code data-system}.
 * <p>
 * Stateless; thread-safe.
 */
final class Svg
{
    static final int WIDTH = 760;
    static final int HEIGHT = 440;
    /** The plot area: left, right, top and bottom edges in pixels. */
    static final int LEFT = 84;
    static final int RIGHT = WIDTH - 170;
    static final int TOP = 62;
    static final int BOTTOM = HEIGHT - 58;

    /** Fixed colours for the systems bench-broker runs, so the same system looks the same in every picture. */
    private static final Map<String, String> COLOURS = Map.of(
        BrokerTargets.KAFKA, "#7f7f7f",
        BrokerTargets.KAFKA_FSYNC, "#d9822b",
        BrokerTargets.DIRECTLOG, "#1f6fb4",
        BrokerTargets.KAFKA_RF3, "#8c564b",
        BrokerTargets.DIRECTLOG_RF3, "#2ca02c");
    private static final List<String> OTHER_COLOURS = List.of("#9467bd", "#e377c2", "#17becf", "#bcbd22");

    private Svg()
    {
    }

    /** @return the document's start: the root element, a white background, the title and a smaller subtitle. */
    static StringBuilder open(final String title, final String subtitle)
    {
        final StringBuilder sb = new StringBuilder(8192);
        sb.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        sb.append("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"").append(WIDTH).append("\" height=\"")
            .append(HEIGHT).append("\" viewBox=\"0 0 ").append(WIDTH).append(' ').append(HEIGHT)
            .append("\" font-family=\"sans-serif\" font-size=\"12\">\n");
        sb.append("<title>").append(esc(title)).append("</title>\n");
        sb.append("<rect x=\"0\" y=\"0\" width=\"").append(WIDTH).append("\" height=\"").append(HEIGHT)
            .append("\" fill=\"white\"/>\n");
        text(sb, "title", WIDTH / 2.0, 24, "middle", title, "font-size=\"15\" font-weight=\"bold\"");
        if (subtitle != null && !subtitle.isEmpty())
        {
            text(sb, "subtitle", WIDTH / 2.0, 42, "middle", subtitle, "fill=\"#555\"");
        }
        return sb;
    }

    static String close(final StringBuilder sb)
    {
        return sb.append("</svg>\n").toString();
    }

    static void text(final StringBuilder sb, final String cls, final double x, final double y, final String anchor,
        final String text, final String extra)
    {
        sb.append("<text class=\"").append(cls).append("\" x=\"").append(px(x)).append("\" y=\"").append(px(y))
            .append("\" text-anchor=\"").append(anchor).append('"');
        if (!extra.isEmpty())
        {
            sb.append(' ').append(extra);
        }
        sb.append('>').append(esc(text)).append("</text>\n");
    }

    static void line(final StringBuilder sb, final double x1, final double y1, final double x2, final double y2,
        final String stroke)
    {
        sb.append("<line x1=\"").append(px(x1)).append("\" y1=\"").append(px(y1)).append("\" x2=\"").append(px(x2))
            .append("\" y2=\"").append(px(y2)).append("\" stroke=\"").append(stroke).append("\"/>\n");
    }

    /** The frame of the plot area and the two axis titles. */
    static void axes(final StringBuilder sb, final String xTitle, final String yTitle)
    {
        sb.append("<rect class=\"plot-area\" x=\"").append(LEFT).append("\" y=\"").append(TOP).append("\" width=\"")
            .append(RIGHT - LEFT).append("\" height=\"").append(BOTTOM - TOP)
            .append("\" fill=\"none\" stroke=\"#333\"/>\n");
        text(sb, "x-title", (LEFT + RIGHT) / 2.0, HEIGHT - 14, "middle", xTitle, "");
        text(sb, "y-title", 18, (TOP + BOTTOM) / 2.0, "middle", yTitle,
            "transform=\"rotate(-90 18 " + px((TOP + BOTTOM) / 2.0) + ")\"");
    }

    /** One swatch and name per system, right of the plot area, in the order given. */
    static void legend(final StringBuilder sb, final List<String> systems)
    {
        for (int i = 0; i < systems.size(); i++)
        {
            final double y = TOP + 10 + i * 22;
            sb.append("<g class=\"legend\" data-system=\"").append(esc(systems.get(i))).append("\">");
            sb.append("<rect x=\"").append(RIGHT + 16).append("\" y=\"").append(px(y - 9)).append("\" width=\"14\" " +
                "height=\"10\" fill=\"").append(colour(systems.get(i), i)).append("\"/>");
            sb.append("<text x=\"").append(RIGHT + 36).append("\" y=\"").append(px(y)).append("\">")
                .append(esc(systems.get(i))).append("</text></g>\n");
        }
    }

    /**
     * @param system a system's name.
     * @param index  its position among the systems of the picture, for systems without a fixed colour.
     * @return its colour.
     */
    static String colour(final String system, final int index)
    {
        return COLOURS.getOrDefault(system, OTHER_COLOURS.get(index % OTHER_COLOURS.size()));
    }

    /** @return a pixel coordinate with one decimal. */
    static String px(final double v)
    {
        return String.format(Locale.ROOT, "%.1f", v);
    }

    /** @return a label's value: three significant digits or more, thousands separated (0.412, 3.46, 78.1, 1,234). */
    static String value(final double v)
    {
        return BrokerBenchTable.millis(v);
    }

    static String esc(final String s)
    {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
