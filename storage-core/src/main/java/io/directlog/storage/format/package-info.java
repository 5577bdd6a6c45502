/**
 * On-disk layout only: one {@code *Descriptor} per file kind (segment header, record, checkpoint slot, segment
 * index) holding offsets, lengths and the functions that read and write fields over a buffer, plus the CRC32C
 * helper. Each layout has its byte diagram here and in {@code docs/format}.
 *
 * <p>No I/O, no threads, no state: this package depends on no other part of the engine, so a dump or verify tool
 * can read files with it alone. A change here is a change of the file format.
 */
package io.directlog.storage.format;
