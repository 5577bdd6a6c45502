package io.directlog.cli;

import java.math.BigDecimal;
import java.math.RoundingMode;

/**
 * The two JSON literals every command's --json output writes by hand: strings (escaped) and numbers (plain
 * decimals). One place, so bench, bench-broker, dump and verify escape alike.
 * <p>
 * Stateless; thread-safe.
 */
public final class JsonText
{
    private JsonText()
    {
    }

    /**
     * @param value    the number.
     * @param decimals digits after the point at most (trailing zeros dropped).
     * @return a plain decimal, never exponent notation; NaN and infinities, which JSON lacks, become null.
     */
    public static String number(final double value, final int decimals)
    {
        if (Double.isNaN(value) || Double.isInfinite(value))
        {
            return "null";
        }
        return BigDecimal.valueOf(value).setScale(decimals, RoundingMode.HALF_UP).stripTrailingZeros().toPlainString();
    }

    /**
     * @param s the text.
     * @return it as a JSON string literal, quotes included.
     */
    public static String string(final String s)
    {
        final StringBuilder sb = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++)
        {
            final char c = s.charAt(i);
            switch (c)
            {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default ->
                {
                    if (c < 0x20)
                    {
                        sb.append(String.format("\\u%04x", (int)c));
                    }
                    else
                    {
                        sb.append(c);
                    }
                }
            }
        }
        return sb.append('"').toString();
    }
}
