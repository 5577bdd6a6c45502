/**
 * The engine's buffers that need no JVM flag: {@link io.directlog.storage.buffer.ByteBufferAtomicBuffer}, an Agrona
 * {@link org.agrona.concurrent.AtomicBuffer} over a {@link java.nio.ByteBuffer} or a {@code byte[]} that reaches
 * memory through {@link java.lang.invoke.VarHandle}s only, for JVMs that do not open {@code jdk.internal.misc} to
 * Agrona (issue 19: a store opens on a bare JDK 17 or 25).
 *
 * <p>Depends on Agrona's interfaces and constants only, never on its {@code UnsafeBuffer} or {@code UnsafeApi}, and
 * on no other part of the engine.
 */
package io.directlog.storage.buffer;
