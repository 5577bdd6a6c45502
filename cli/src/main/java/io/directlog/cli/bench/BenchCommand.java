package io.directlog.cli.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;

import io.directlog.cli.Command;
import io.directlog.cli.UsageException;

/**
 * {@code ./directlog bench}: measures the device and the engine in one run and prints a table. The header and
 * table go to stdout, progress to stderr; --json writes the rows for scripts.
 * <p>
 * Exit code 1 when a scenario failed; rows that are only unavailable here (no O_DIRECT, engine not built yet) do
 * not count as failures. Used from the main thread only.
 */
public final class BenchCommand implements Command
{
    private final PrintStream out;
    private final PrintStream err;

    /** Writes to the process's stdout and stderr. */
    public BenchCommand()
    {
        this(System.out, System.err);
    }

    BenchCommand(final PrintStream out, final PrintStream err)
    {
        this.out = out;
        this.err = err;
    }

    @Override
    public String name()
    {
        return "bench";
    }

    @Override
    public String summary()
    {
        return "measure the device and the engine side by side (about three minutes; --quick about 45 s)";
    }

    @Override
    public int run(final String[] args) throws UsageException, IOException
    {
        final BenchOptions options = BenchOptions.parse(args);
        if (options.help())
        {
            out.print(BenchOptions.USAGE);
            return 0;
        }

        EngineLogging.quiet();
        final Path parent = (options.directory() != null ? options.directory() : Path.of("")).toAbsolutePath();
        final List<BenchRow> rows;
        try (BenchDirectory directory = BenchDirectory.create(parent))
        {
            final DirectIoSupport directIo = DirectIoSupport.probe(directory.path());
            out.print(EnvironmentReport.describe(directory.path(), options, directIo));
            out.flush();
            final BenchContext context = new BenchContext(directory.path(), options, err, directIo);
            rows = TailLagNote.apply(new BenchRunner(context, err).run(Scenarios.select(options.scenarios())));
        }

        out.println();
        out.print(ResultTable.format(rows));
        out.flush();
        if (options.jsonFile() != null)
        {
            JsonLines.write(options.jsonFile(), rows);
            err.println("wrote " + rows.size() + " rows to " + options.jsonFile());
        }
        final long failed = rows.stream().filter(r -> r.status() == BenchRow.Status.FAILED).count();
        if (failed > 0)
        {
            err.println(failed + " row" + (failed == 1 ? "" : "s") + " failed");
            return 1;
        }
        return 0;
    }
}
