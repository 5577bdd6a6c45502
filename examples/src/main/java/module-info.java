/**
 * The examples as an application module: what a queue on the module path declares. It compiles against the
 * engine's exported API only (io.directlog.storage; Agrona comes through its requires transitive).
 */
module io.directlog.examples
{
    requires io.directlog.storage;
    // QueueExample quiets the engine's java.util.logging output
    requires java.logging;
}
