package io.directlog.cli.bench;

/**
 * One line of the result: measured, failed, or unavailable on this machine.
 *
 * @param scenario    the scenario's stable name.
 * @param threads     producer (or writer) threads.
 * @param recordBytes payload bytes per operation.
 * @param status      whether the numbers are real.
 * @param opsPerSec   operations per second; NaN unless measured.
 * @param mbPerSec    payload MB (10^6 bytes) per second; NaN unless measured.
 * @param p50Us       median latency in microseconds; NaN when not measured.
 * @param p99Us       99th percentile latency in microseconds.
 * @param p999Us      99.9th percentile latency in microseconds.
 * @param note        a remark (or for failed and unavailable rows, the reason); null when none.
 */
record BenchRow(String scenario, int threads, int recordBytes, Status status, double opsPerSec, double mbPerSec,
    double p50Us, double p99Us, double p999Us, String note)
{
    /** Whether a row holds numbers. */
    enum Status
    {
        MEASURED("measured"),
        FAILED("failed"),
        UNAVAILABLE("unavailable");

        private final String label;

        Status(final String label)
        {
            this.label = label;
        }

        String label()
        {
            return label;
        }
    }

    static BenchRow measured(final Scenario scenario, final int threads, final Measurement m, final String note)
    {
        return new BenchRow(scenario.name(), threads, scenario.recordBytes(), Status.MEASURED, m.opsPerSec(),
            m.mbPerSec(), m.percentileMicros(50), m.percentileMicros(99), m.percentileMicros(99.9), note);
    }

    static BenchRow notMeasured(final Scenario scenario, final int threads, final Status status, final String reason)
    {
        return new BenchRow(scenario.name(), threads, scenario.recordBytes(), status, Double.NaN, Double.NaN,
            Double.NaN, Double.NaN, Double.NaN, reason);
    }

    boolean isMeasured()
    {
        return status == Status.MEASURED;
    }

    /** @return for a row without numbers, "failed: reason" or "unavailable: reason". */
    String statusText()
    {
        return status.label() + ": " + note;
    }
}
