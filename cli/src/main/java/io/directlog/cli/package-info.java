/**
 * The {@code ./directlog} command line: the dispatcher ({@link io.directlog.cli.Main}) and the
 * {@link io.directlog.cli.Command} contract every subcommand implements.
 * <p>
 * Nothing depends on this package; it depends on every module's public API.
 */
package io.directlog.cli;
