package io.directlog.cli;

/**
 * One subcommand of {@code ./directlog}: {@code bench}, {@code dump}, {@code verify}.
 * <p>
 * Adding a command is writing a class like this and listing it in {@link Main#COMMANDS}.
 * <p>
 * Implementations are used from the main thread only.
 */
public interface Command
{
    /** @return the word that selects the command on the command line. */
    String name();

    /** @return one line for the list of commands. */
    String summary();

    /**
     * Runs the command.
     *
     * @param args the arguments after the command's name.
     * @return the process exit code: 0 success, 1 the work failed, 2 bad usage.
     * @throws UsageException when the arguments are wrong; Main prints the message and exits with 2.
     * @throws Exception      when the command fails; Main prints the message (not a stack trace) and exits with 1.
     */
    int run(String[] args) throws Exception;
}
