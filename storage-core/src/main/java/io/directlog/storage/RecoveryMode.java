package io.directlog.storage;

/**
 * What opening a log does with damage it finds (after RocksDB's WAL recovery modes).
 * <p>
 * A torn tail is damage beyond the durable watermark, where the last writes before a crash may be
 * incomplete; corruption is damage below the watermark, or valid records after a damaged one.
 */
public enum RecoveryMode
{
    /** Cut a torn tail (those records were never acknowledged); refuse to open on corruption. The default. */
    TOLERATE_TORN_TAIL,
    /** Refuse to open on any damage, torn tail included. */
    ABSOLUTE_CONSISTENCY,
    /** Cut the log at the first damaged record wherever it is, and report how many records were dropped. */
    TRUNCATE_AT_CORRUPTION
}
