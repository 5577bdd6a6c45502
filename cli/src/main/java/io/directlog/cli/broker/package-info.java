/**
 * The {@code broker} command: runs {@link io.directlog.broker.KafkaBroker} in the foreground.
 */
package io.directlog.cli.broker;
