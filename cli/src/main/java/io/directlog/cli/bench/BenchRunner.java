package io.directlog.cli.bench;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * Runs the chosen scenarios one after the other and collects their rows. A scenario that throws does not stop the
 * run: its missing rows become "failed: reason" (or "unavailable: reason") and the next scenario starts.
 * <p>
 * Each scenario's directory is deleted when it ends, so at most one scenario's files (plus the shared sequential
 * file) are on disk at a time. Not thread-safe.
 */
final class BenchRunner
{
    private final BenchContext context;
    private final PrintStream progress;

    /**
     * @param context  the run.
     * @param progress where the one-line-per-scenario progress goes (stderr).
     */
    BenchRunner(final BenchContext context, final PrintStream progress)
    {
        this.context = context;
        this.progress = progress;
    }

    /**
     * @param scenarios what to run, in order.
     * @return every row of every scenario, in order.
     */
    List<BenchRow> run(final List<Scenario> scenarios)
    {
        final List<BenchRow> rows = new ArrayList<>();
        for (int i = 0; i < scenarios.size(); i++)
        {
            final Scenario s = scenarios.get(i);
            progress.printf(Locale.ROOT, "[%d/%d] %s: %s%n", i + 1, scenarios.size(), s.name(), s.summary());
            progress.flush();
            rows.addAll(runOne(s));
        }
        return rows;
    }

    private List<BenchRow> runOne(final Scenario scenario)
    {
        final List<BenchRow> rows = new ArrayList<>();
        try
        {
            scenario.run(context, (threads, m, note) ->
            {
                final BenchRow row = BenchRow.measured(scenario, threads, m, note);
                rows.add(row);
                context.progress(String.format(Locale.ROOT, "%d thread%s: %s ops/s, %s MB/s, p50 %s us",
                    threads, threads == 1 ? "" : "s", String.format(Locale.ROOT, "%,.0f", row.opsPerSec()),
                    ResultTable.megabytes(row.mbPerSec()), ResultTable.micros(row.p50Us())));
            });
        }
        catch (final ScenarioUnavailableException ex)
        {
            context.progress("unavailable: " + ex.getMessage());
            return complete(scenario, rows, BenchRow.Status.UNAVAILABLE, ex.getMessage());
        }
        catch (final Throwable t)
        {
            if (t instanceof InterruptedException)
            {
                Thread.currentThread().interrupt();
            }
            context.progress("failed: " + reason(t));
            return complete(scenario, rows, BenchRow.Status.FAILED, reason(t));
        }
        finally
        {
            BenchDirectory.delete(context.directory().resolve(scenario.name()));
        }
        return complete(scenario, rows, BenchRow.Status.FAILED, "the scenario reported no row for these threads");
    }

    /** @return the rows in the scenario's thread order, with the missing ones filled in as not measured. */
    private static List<BenchRow> complete(final Scenario scenario, final List<BenchRow> measured,
        final BenchRow.Status status, final String reason)
    {
        final List<BenchRow> rows = new ArrayList<>();
        for (final int threads : scenario.threadCounts())
        {
            rows.add(measured.stream().filter(r -> r.threads() == threads).findFirst()
                .orElseGet(() -> BenchRow.notMeasured(scenario, threads, status, reason)));
        }
        return rows;
    }

    /**
     * @param t a failure.
     * @return its type and message, unwrapped from executor wrappers: "NativeIoException: pwrite(...) EINVAL".
     */
    static String reason(final Throwable t)
    {
        Throwable cause = t;
        while ((cause instanceof ExecutionException || cause instanceof CompletionException) && cause.getCause() != null)
        {
            cause = cause.getCause();
        }
        final String message = cause.getMessage();
        return cause.getClass().getSimpleName() + (message == null || message.isBlank() ? "" : ": " + message);
    }
}
