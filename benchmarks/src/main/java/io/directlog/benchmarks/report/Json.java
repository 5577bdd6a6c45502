package io.directlog.benchmarks.report;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A small JSON reader for JMH result files: objects become {@code LinkedHashMap<String, Object>}, arrays
 * {@code List<Object>}, numbers {@code Double}, and true/false/null their Java values. JMH writes "NaN" and
 * "Infinity" as strings; {@link #number(Object)} reads those too.
 * <p>
 * Not thread-safe; one parse per instance.
 */
public final class Json
{
    private final String text;
    private int pos;

    private Json(final String text)
    {
        this.text = text;
    }

    /**
     * @param text a JSON document.
     * @return its value.
     * @throws IllegalArgumentException naming the position of the first syntax error.
     */
    public static Object parse(final String text)
    {
        final Json json = new Json(text);
        final Object value = json.value();
        json.skipSpace();
        if (json.pos != text.length())
        {
            throw json.error("trailing characters");
        }
        return value;
    }

    /**
     * @param value a parsed number, or a string JMH used for a non-finite number.
     * @return the number, NaN when absent.
     */
    public static double number(final Object value)
    {
        if (value instanceof Double)
        {
            return (Double)value;
        }
        if (value instanceof String)
        {
            try
            {
                return Double.parseDouble((String)value);
            }
            catch (final NumberFormatException ex)
            {
                return Double.NaN;
            }
        }
        return Double.NaN;
    }

    private Object value()
    {
        skipSpace();
        if (pos >= text.length())
        {
            throw error("unexpected end");
        }
        final char c = text.charAt(pos);
        switch (c)
        {
            case '{':
                return object();
            case '[':
                return array();
            case '"':
                return string();
            case 't':
                return literal("true", Boolean.TRUE);
            case 'f':
                return literal("false", Boolean.FALSE);
            case 'n':
                return literal("null", null);
            default:
                return number();
        }
    }

    private Map<String, Object> object()
    {
        final Map<String, Object> map = new LinkedHashMap<>();
        pos++;
        skipSpace();
        if (peek() == '}')
        {
            pos++;
            return map;
        }
        while (true)
        {
            skipSpace();
            if (peek() != '"')
            {
                throw error("expected a key");
            }
            final String key = string();
            skipSpace();
            expect(':');
            map.put(key, value());
            skipSpace();
            final char c = next();
            if (c == '}')
            {
                return map;
            }
            if (c != ',')
            {
                throw error("expected ',' or '}'");
            }
        }
    }

    private List<Object> array()
    {
        final List<Object> list = new ArrayList<>();
        pos++;
        skipSpace();
        if (peek() == ']')
        {
            pos++;
            return list;
        }
        while (true)
        {
            list.add(value());
            skipSpace();
            final char c = next();
            if (c == ']')
            {
                return list;
            }
            if (c != ',')
            {
                throw error("expected ',' or ']'");
            }
        }
    }

    private String string()
    {
        expect('"');
        final StringBuilder sb = new StringBuilder();
        while (true)
        {
            final char c = next();
            if (c == '"')
            {
                return sb.toString();
            }
            if (c != '\\')
            {
                sb.append(c);
                continue;
            }
            final char e = next();
            switch (e)
            {
                case 'n':
                    sb.append('\n');
                    break;
                case 't':
                    sb.append('\t');
                    break;
                case 'r':
                    sb.append('\r');
                    break;
                case 'b':
                    sb.append('\b');
                    break;
                case 'f':
                    sb.append('\f');
                    break;
                case 'u':
                    if (pos + 4 > text.length())
                    {
                        throw error("short \\u escape");
                    }
                    sb.append((char)Integer.parseInt(text.substring(pos, pos + 4), 16));
                    pos += 4;
                    break;
                default:
                    sb.append(e);
            }
        }
    }

    private Object literal(final String word, final Object value)
    {
        if (!text.startsWith(word, pos))
        {
            throw error("expected " + word);
        }
        pos += word.length();
        return value;
    }

    private Double number()
    {
        final int start = pos;
        while (pos < text.length() && "+-0123456789.eE".indexOf(text.charAt(pos)) >= 0)
        {
            pos++;
        }
        if (start == pos)
        {
            throw error("unexpected character '" + text.charAt(pos) + "'");
        }
        try
        {
            return Double.valueOf(text.substring(start, pos));
        }
        catch (final NumberFormatException ex)
        {
            throw error("bad number '" + text.substring(start, pos) + "'");
        }
    }

    private void skipSpace()
    {
        while (pos < text.length() && Character.isWhitespace(text.charAt(pos)))
        {
            pos++;
        }
    }

    private char peek()
    {
        if (pos >= text.length())
        {
            throw error("unexpected end");
        }
        return text.charAt(pos);
    }

    private char next()
    {
        final char c = peek();
        pos++;
        return c;
    }

    private void expect(final char c)
    {
        if (next() != c)
        {
            pos--;
            throw error("expected '" + c + "'");
        }
    }

    private IllegalArgumentException error(final String what)
    {
        return new IllegalArgumentException("JSON: " + what + " at character " + pos);
    }
}
