package io.directlog.storage.log;

import java.nio.file.Path;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Supplier;

import io.directlog.storage.LogConfig;

/**
 * What the parts of one log share, built once by {@link DefaultLog}: who the log is (name, directory, context,
 * meta, settings), and the state two or more parts touch, each piece with its own owner or lock (see each type).
 *
 * @param name           the log's name.
 * @param dir            its directory.
 * @param context        what it shares with the store.
 * @param meta           its identity and segment size.
 * @param config         its current settings (reconfigure may change them at any time).
 * @param block          the direct-I/O block.
 * @param lifecycle      open, closing, closed, failed.
 * @param segments       the segment set.
 * @param visibility     what readers may see, and the readers waiting.
 * @param spares         the prepared and recycled segment files.
 * @param watermark      the newest written watermark (writer publishes, syncer reads).
 * @param ackGate        acknowledgements against the syncer's fdatasync.
 * @param rolledUnsynced rolled segments not synced yet (writer adds, syncer drains).
 * @param locks          the tick and index locks, and the lock order.
 * @param checkpoint     the durable watermark file.
 * @param slot           the log's slot in its writer, for commands.
 * @param events         what the parts report to the store's meters.
 */
record LogParts(String name, Path dir, LogContext context, LogMeta meta, Supplier<LogConfig> config, IoBlock block,
    LogLifecycle lifecycle, SegmentSet segments, Visibility visibility, SpareSegments spares,
    WatermarkCell watermark, AckSyncGate ackGate, ConcurrentLinkedQueue<Segment> rolledUnsynced, LogLocks locks,
    Checkpoint checkpoint, WriterSlot slot, LogEventSink events)
{
}
