/**
 * DirectLog's engine: named durable append-only logs under one directory.
 * <p>
 * The API is {@code io.directlog.storage}, and {@code io.directlog.storage.spi} holds what an application may
 * implement (block I/O). Every other package is the engine's inside and is not exported: on the module path an
 * application cannot compile or link against it (on the class path module descriptors are ignored, which is how
 * the broker, the benchmarks and the CLI reach internals).
 */
module io.directlog.storage
{
    // the API hands out Agrona buffers (Log.append(DirectBuffer, ...), Record.payload()), so a reader of this
    // module reads Agrona too
    requires transitive org.agrona;
    requires io.directlog.nativeio;
    // com.sun.nio.file.ExtendedOpenOption.DIRECT: O_DIRECT through the JDK when the native layer is off
    requires jdk.unsupported;
    // Micrometer is an optional dependency: StoreConfig.meterRegistry takes one only when the application has it
    // (static: not needed at run time or by a consumer's javac; not transitive, because javac then demands the
    // module from every consumer; an application that passes a registry requires micrometer.core itself)
    requires static micrometer.core;

    exports io.directlog.storage;
    exports io.directlog.storage.spi;
}
