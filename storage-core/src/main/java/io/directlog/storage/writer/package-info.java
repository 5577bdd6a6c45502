/**
 * The single writer: {@link io.directlog.storage.writer.LogWriterAgent} is the duty cycle of one writer thread
 * (Agrona {@code Agent}) that alone mutates its logs' pages and segments; other threads reach it through
 * {@link io.directlog.storage.writer.LogWriterProxy}, which queues appends and commands into a bounded ring and
 * returns back-pressure instead of blocking; {@link io.directlog.storage.writer.CallbackGuard} runs user
 * completions so that nothing they throw stops the writer.
 *
 * <p>A log appears here only as a {@link io.directlog.storage.writer.WriterClient}, and as a
 * {@link io.directlog.storage.writer.SharedFlushMember} in the one device flush the logs of a writer share per
 * duty cycle ({@code SharedFlush}): this package depends on the API's value types and exceptions and on the
 * block-I/O SPI, never on {@code log}, {@code internal} or the API's facade.
 */
package io.directlog.storage.writer;
