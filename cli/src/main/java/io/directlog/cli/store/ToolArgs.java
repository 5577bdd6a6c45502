package io.directlog.cli.store;

import java.nio.file.Path;
import java.util.Set;

import io.directlog.cli.UsageException;

/**
 * The command line of dump and verify: one store directory and flags, some with a value.
 * <p>
 * Not thread-safe; parsed once on the main thread.
 */
final class ToolArgs
{
    Path dir;
    String log;
    long from = Long.MIN_VALUE;
    boolean records;
    boolean json;
    boolean forceReadOnly;
    boolean help;

    static ToolArgs parse(final String command, final String[] args, final Set<String> allowed) throws UsageException
    {
        final ToolArgs a = new ToolArgs();
        for (int i = 0; i < args.length; i++)
        {
            final String arg = args[i];
            if (arg.startsWith("-") && !allowed.contains(arg) && !"--help".equals(arg) && !"-h".equals(arg))
            {
                throw new UsageException("unknown option '" + arg + "'");
            }
            switch (arg)
            {
                case "--help", "-h" -> a.help = true;
                case "--log" -> a.log = value(args, ++i, arg);
                case "--from" ->
                {
                    final String v = value(args, ++i, arg);
                    try
                    {
                        a.from = Long.parseLong(v);
                    }
                    catch (final NumberFormatException ex)
                    {
                        throw new UsageException("--from takes an offset (a number), not '" + v + "'");
                    }
                }
                case "--records" -> a.records = true;
                case "--json" -> a.json = true;
                case "--force-read-only" -> a.forceReadOnly = true;
                default ->
                {
                    if (a.dir != null)
                    {
                        throw new UsageException("one store directory only; got '" + a.dir + "' and '" + arg + "'");
                    }
                    a.dir = Path.of(arg);
                }
            }
        }
        if (a.dir == null && !a.help)
        {
            throw new UsageException("which store? usage: ./directlog " + command + " DIR ...");
        }
        return a;
    }

    private static String value(final String[] args, final int i, final String option) throws UsageException
    {
        if (i >= args.length)
        {
            throw new UsageException(option + " needs a value");
        }
        return args[i];
    }
}
