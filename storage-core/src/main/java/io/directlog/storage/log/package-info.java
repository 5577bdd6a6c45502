/**
 * A log on disk and in memory: segments and their files, roll and retention, the segment index and its file, the
 * checkpoint (durable watermark), crash recovery, the writer-side state machine of a log (copy into the page,
 * group-commit flush, acknowledgements, fail-stop) and its read path.
 *
 * <p>Implements the API's {@link io.directlog.storage.Log} on top of {@code format}, {@code io}, {@code page},
 * {@code cache} and {@code writer}; only {@code internal} depends on it.
 */
package io.directlog.storage.log;
