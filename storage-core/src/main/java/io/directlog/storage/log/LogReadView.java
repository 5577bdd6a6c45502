package io.directlog.storage.log;

import java.nio.file.Path;

/**
 * The {@link ReadSource} of one log: its parts as readers see them (volatile reads, no lock).
 */
final class LogReadView implements ReadSource
{
    private final LogParts parts;
    private final LogAppender appender;
    private final int recordLogId;

    LogReadView(final LogParts parts, final LogAppender appender)
    {
        this.parts = parts;
        this.appender = appender;
        this.recordLogId = io.directlog.storage.format.RecordDescriptor.recordLogId(parts.meta().logId());
    }

    @Override
    public String name()
    {
        return parts.name();
    }

    @Override
    public Path directory()
    {
        return parts.dir();
    }

    @Override
    public long logId()
    {
        return parts.meta().logId();
    }

    @Override
    public int recordLogId()
    {
        return recordLogId;
    }

    @Override
    public Segment[] segments()
    {
        return parts.segments().all();
    }

    @Override
    public long activeSequence()
    {
        return parts.segments().activeSequence();
    }

    @Override
    public long startOffset()
    {
        return parts.segments().startOffset();
    }

    @Override
    public long visibleEndOffset()
    {
        return parts.visibility().visibleEndOffset();
    }

    @Override
    public long endOffset()
    {
        return appender.endOffset();
    }

    @Override
    public IoBlock block()
    {
        return parts.block();
    }

    @Override
    public void checkOpenForRead()
    {
        parts.lifecycle().checkOpenForRead();
    }

    @Override
    public boolean isClosed()
    {
        return parts.lifecycle().isClosed();
    }
}
