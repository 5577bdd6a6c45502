package io.directlog.cli;

import java.io.PrintStream;
import java.util.Arrays;
import java.util.List;

import io.directlog.cli.bench.BenchCommand;
import io.directlog.cli.broker.BrokerCommand;
import io.directlog.cli.brokerbench.BrokerBenchCommand;
import io.directlog.cli.cluster.ClusterCommand;
import io.directlog.cli.store.DumpCommand;
import io.directlog.cli.store.VerifyCommand;

/**
 * The entry point of {@code ./directlog}: picks the subcommand and turns its outcome into an exit code.
 * <p>
 * Exit codes: 0 success, 1 the command failed, 2 bad usage. Errors are one line on stderr, never a stack
 * trace, unless {@code -Ddirectlog.debug=true}.
 */
public final class Main
{
    /** The commands, in the order {@code --help} lists them. */
    static final List<Command> COMMANDS = List.of(new BenchCommand(), new BrokerCommand(), new ClusterCommand(),
        new DumpCommand(),
        new VerifyCommand(), new BrokerBenchCommand());

    private static final String DEBUG_PROP_NAME = "directlog.debug";

    private Main()
    {
    }

    /**
     * @param args the command's name and its arguments.
     */
    public static void main(final String[] args)
    {
        System.exit(run(args, COMMANDS, System.out, System.err));
    }

    static int run(final String[] args, final List<Command> commands, final PrintStream out, final PrintStream err)
    {
        if (args.length == 0 || "--help".equals(args[0]) || "-h".equals(args[0]) || "help".equals(args[0]))
        {
            out.print(usage(commands));
            return 0;
        }

        final Command command = find(commands, args[0]);
        if (command == null)
        {
            err.println("directlog: unknown command '" + args[0] + "'");
            err.print(usage(commands));
            return 2;
        }

        try
        {
            return command.run(Arrays.copyOfRange(args, 1, args.length));
        }
        catch (final UsageException ex)
        {
            err.println("directlog " + command.name() + ": " + ex.getMessage());
            err.println("Run './directlog " + command.name() + " --help' for the options.");
            return 2;
        }
        catch (final Exception ex)
        {
            err.println("directlog " + command.name() + ": error: " + ex);
            if (Boolean.getBoolean(DEBUG_PROP_NAME))
            {
                ex.printStackTrace(err);
            }
            return 1;
        }
    }

    static String usage(final List<Command> commands)
    {
        final StringBuilder sb = new StringBuilder()
            .append("DirectLog: a durable append-only log engine for message queues.\n\n")
            .append("usage: ./directlog <command> [options]\n\n")
            .append("commands:\n");
        final int width = commands.stream().mapToInt(c -> c.name().length()).max().orElse(0);
        for (final Command c : commands)
        {
            sb.append("  ").append(pad(c.name(), width)).append("  ").append(c.summary()).append('\n');
        }
        return sb.append("\nRun './directlog <command> --help' for a command's options.\n").toString();
    }

    private static Command find(final List<Command> commands, final String name)
    {
        for (final Command c : commands)
        {
            if (c.name().equals(name))
            {
                return c;
            }
        }
        return null;
    }

    private static String pad(final String s, final int width)
    {
        return s + " ".repeat(Math.max(0, width - s.length()));
    }
}
