package io.directlog.cli.brokerbench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads one JSON value, as bench-broker's JSON lines hold them: objects become {@code Map<String, Object>} (in the
 * order written), arrays {@code List<Object>}, numbers {@code Double}, strings {@code String}, true/false
 * {@code Boolean}, null {@code null}. Enough JSON for reading back what this package writes, and any other valid
 * JSON; a malformed text gets an {@link IllegalArgumentException} naming the position and what was expected.
 * <p>
 * One instance per text; not thread-safe.
 */
final class JsonLineParser
{
    private final String text;
    private int at;

    private JsonLineParser(final String text)
    {
        this.text = text;
    }

    /**
     * @param text one JSON value, e.g. a line of {@code --json} output.
     * @return the value.
     * @throws IllegalArgumentException when the text is not one JSON value.
     */
    static Object parse(final String text)
    {
        final JsonLineParser p = new JsonLineParser(text);
        final Object value = p.value();
        p.skipSpace();
        if (p.at != text.length())
        {
            throw p.error("end of the text");
        }
        return value;
    }

    private Object value()
    {
        skipSpace();
        if (at >= text.length())
        {
            throw error("a value");
        }
        final char c = text.charAt(at);
        return switch (c)
        {
            case '{' -> object();
            case '[' -> array();
            case '"' -> string();
            case 't' -> literal("true", Boolean.TRUE);
            case 'f' -> literal("false", Boolean.FALSE);
            case 'n' -> literal("null", null);
            default -> number();
        };
    }

    private Map<String, Object> object()
    {
        final Map<String, Object> out = new LinkedHashMap<>();
        at++;
        skipSpace();
        if (peek('}'))
        {
            at++;
            return out;
        }
        while (true)
        {
            skipSpace();
            if (!peek('"'))
            {
                throw error("a member name in quotes");
            }
            final String name = string();
            skipSpace();
            expect(':');
            out.put(name, value());
            skipSpace();
            if (peek(','))
            {
                at++;
                continue;
            }
            expect('}');
            return out;
        }
    }

    private List<Object> array()
    {
        final List<Object> out = new ArrayList<>();
        at++;
        skipSpace();
        if (peek(']'))
        {
            at++;
            return out;
        }
        while (true)
        {
            out.add(value());
            skipSpace();
            if (peek(','))
            {
                at++;
                continue;
            }
            expect(']');
            return out;
        }
    }

    private String string()
    {
        at++;
        final StringBuilder sb = new StringBuilder();
        while (at < text.length())
        {
            final char c = text.charAt(at++);
            if (c == '"')
            {
                return sb.toString();
            }
            if (c != '\\')
            {
                sb.append(c);
                continue;
            }
            if (at >= text.length())
            {
                break;
            }
            final char e = text.charAt(at++);
            switch (e)
            {
                case '"', '\\', '/' -> sb.append(e);
                case 'b' -> sb.append('\b');
                case 'f' -> sb.append('\f');
                case 'n' -> sb.append('\n');
                case 'r' -> sb.append('\r');
                case 't' -> sb.append('\t');
                case 'u' ->
                {
                    if (at + 4 > text.length())
                    {
                        throw error("four hex digits after \\u");
                    }
                    sb.append((char)Integer.parseInt(text.substring(at, at + 4), 16));
                    at += 4;
                }
                default -> throw error("an escape (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u), not \\" + e);
            }
        }
        throw error("the closing quote of a string");
    }

    private Double number()
    {
        final int start = at;
        while (at < text.length() && "+-0123456789.eE".indexOf(text.charAt(at)) >= 0)
        {
            at++;
        }
        if (start == at)
        {
            throw error("a value");
        }
        try
        {
            return Double.valueOf(text.substring(start, at));
        }
        catch (final NumberFormatException ex)
        {
            at = start;
            throw error("a number");
        }
    }

    private Object literal(final String word, final Object value)
    {
        if (!text.startsWith(word, at))
        {
            throw error(word);
        }
        at += word.length();
        return value;
    }

    private void expect(final char c)
    {
        if (!peek(c))
        {
            throw error("'" + c + "'");
        }
        at++;
    }

    private boolean peek(final char c)
    {
        return at < text.length() && text.charAt(at) == c;
    }

    private void skipSpace()
    {
        while (at < text.length() && Character.isWhitespace(text.charAt(at)))
        {
            at++;
        }
    }

    private IllegalArgumentException error(final String expected)
    {
        final String found = at < text.length() ? "'" + text.charAt(at) + "'" : "the end";
        return new IllegalArgumentException("JSON: expected " + expected + " at character " + (at + 1) + ", found " +
            found);
    }
}
