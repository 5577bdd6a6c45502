package io.directlog.cli.store;

import java.nio.file.Path;
import java.util.Set;

import io.directlog.cli.CommandLine;
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
        final CommandLine line = new CommandLine(args);
        while (line.next())
        {
            final String name = line.name();
            if (line.isOption() && !allowed.contains(name) && !"--help".equals(name) && !"-h".equals(name))
            {
                throw line.unknown();
            }
            switch (name)
            {
                case "--help", "-h" -> a.help = line.flag();
                case "--log" -> a.log = line.value();
                case "--from" -> a.from = line.longValue("an offset (a number)");
                case "--records" -> a.records = line.flag();
                case "--json" -> a.json = line.flag();
                case "--force-read-only" -> a.forceReadOnly = line.flag();
                default ->
                {
                    if (a.dir != null)
                    {
                        throw new UsageException("one store directory only; got '" + a.dir + "' and '" + name + "'");
                    }
                    a.dir = Path.of(name);
                }
            }
        }
        if (a.dir == null && !a.help)
        {
            throw new UsageException("which store? usage: ./directlog " + command + " DIR ...");
        }
        return a;
    }
}
