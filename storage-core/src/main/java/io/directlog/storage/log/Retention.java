package io.directlog.storage.log;

import java.io.IOException;
import java.time.Duration;

import io.directlog.storage.LogConfig;

/**
 * Retention by size ({@link LogConfig#retentionBytes()}) and by age ({@link LogConfig#retentionTime()}): picks the
 * oldest whole rolled segments to drop. A segment goes when the log without it still holds at least
 * {@code retentionBytes} of records, or when its newest record is older than {@code retentionTime}. Never the
 * active segment, never the watermark's segment or one after it, never one with records readers cannot see yet.
 * <p>
 * Runs on the syncer thread, after the checkpoint write; stateless.
 */
final class Retention
{
    private Retention()
    {
    }

    static void apply(final LogSyncer log, final Watermark w, final long nowMillis) throws IOException
    {
        final LogConfig config = log.config();
        final long maxBytes = config.retentionBytes();
        final Duration maxAge = config.retentionTime();
        if ((maxBytes == LogConfig.RETENTION_BYTES_NONE && maxAge == null) || w == null)
        {
            return;
        }
        final Segment[] segments = log.segments();
        final Segment active = log.activeSegment();
        long total = 0;
        for (final Segment s : segments)
        {
            total += s == active ? w.position() : bytes(s);
        }
        int victims = 0;
        for (int i = 0; i + 1 < segments.length; i++)
        {
            final Segment s = segments[i];
            if (s == active || s.sequence() >= w.sequence() || segments[i + 1].baseOffset() > log.visibleEndOffset())
            {
                break;
            }
            final boolean bySize = maxBytes != LogConfig.RETENTION_BYTES_NONE && total - bytes(s) >= maxBytes;
            boolean byAge = false;
            if (!bySize && maxAge != null)
            {
                if (s.index() == null)
                {
                    log.ensureIndex(s); // its newest timestamp: from <seq>.idx, or a scan
                }
                byAge = s.maxTimestamp() < nowMillis - maxAge.toMillis();
            }
            if (!bySize && !byAge)
            {
                break;
            }
            total -= bytes(s);
            victims++;
        }
        if (victims > 0)
        {
            log.dropOldest(java.util.Arrays.copyOf(segments, victims));
        }
    }

    /** Record bytes of a rolled segment (its header included), or its capacity while unknown. */
    private static long bytes(final Segment s)
    {
        return s.sealedPosition() >= 0 ? s.sealedPosition() : s.endPosition() > 0 ? s.endPosition() : s.capacity();
    }
}
