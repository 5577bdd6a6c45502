package io.directlog.cli.store;

import java.util.List;
import java.util.Map;

import io.directlog.cli.JsonText;

/**
 * Writes the --json output of dump and verify: maps (in their iteration order), lists, strings, numbers, booleans
 * and null. Enough for the tools' reports; not a general JSON library.
 * <p>
 * Stateless; thread-safe.
 */
final class Json
{
    private Json()
    {
    }

    static String write(final Object value)
    {
        final StringBuilder sb = new StringBuilder();
        write(sb, value);
        return sb.toString();
    }

    private static void write(final StringBuilder sb, final Object value)
    {
        if (value == null)
        {
            sb.append("null");
        }
        else if (value instanceof Map<?, ?> map)
        {
            sb.append('{');
            boolean first = true;
            for (final Map.Entry<?, ?> e : map.entrySet())
            {
                if (!first)
                {
                    sb.append(',');
                }
                first = false;
                sb.append(JsonText.string(String.valueOf(e.getKey())));
                sb.append(':');
                write(sb, e.getValue());
            }
            sb.append('}');
        }
        else if (value instanceof List<?> list)
        {
            sb.append('[');
            for (int i = 0; i < list.size(); i++)
            {
                if (i > 0)
                {
                    sb.append(',');
                }
                write(sb, list.get(i));
            }
            sb.append(']');
        }
        else if (value instanceof Number || value instanceof Boolean)
        {
            sb.append(value);
        }
        else
        {
            sb.append(JsonText.string(value.toString()));
        }
    }
}
