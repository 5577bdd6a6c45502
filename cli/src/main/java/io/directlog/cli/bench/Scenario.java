package io.directlog.cli.bench;

import java.util.List;

/**
 * One family of rows of the bench table: the same work at one or more thread counts.
 * <p>
 * A scenario owns everything it creates under {@link BenchContext#scenarioDirectory(String)} and closes it before
 * returning; the runner deletes the directory afterwards. Construction must be cheap and touch nothing: the list of
 * scenarios is built for {@code --help}.
 */
interface Scenario
{
    /** @return the stable name scripts select and compare rows by. */
    String name();

    /** @return what it measures, in one line, shown when it starts. */
    String summary();

    /** @return payload bytes per operation (the "bytes" column). */
    int recordBytes();

    /** @return the thread counts it reports, one row each, in order. */
    List<Integer> threadCounts();

    /**
     * Measures every row and hands each to {@code rows}.
     *
     * @param context the run's directory, timing and progress stream.
     * @param rows    where measured rows go.
     * @throws ScenarioUnavailableException when this machine or this build cannot run it.
     * @throws Exception                    when it fails; rows not yet reported are shown as failed.
     */
    void run(BenchContext context, RowSink rows) throws Exception;

    /**
     * Receives the rows of one scenario.
     */
    interface RowSink
    {
        /**
         * @param threads     the row's thread count (one of {@link #threadCounts()}).
         * @param measurement what was measured.
         * @param note        a remark shown in the table and the JSON, or null.
         */
        void add(int threads, Measurement measurement, String note);
    }
}
