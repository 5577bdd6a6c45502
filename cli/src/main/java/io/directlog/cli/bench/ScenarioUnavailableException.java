package io.directlog.cli.bench;

/**
 * A scenario cannot run on this machine or with this build (no O_DIRECT here, engine not built yet): its rows say
 * "unavailable", and unlike a failure this does not make the exit code 1.
 */
final class ScenarioUnavailableException extends Exception
{
    private static final long serialVersionUID = 1L;

    /**
     * @param reason why, short enough for a table cell.
     */
    ScenarioUnavailableException(final String reason)
    {
        super(reason);
    }
}
