package io.directlog.storage.io.sim;

import java.nio.file.Path;

/**
 * One recorded call on a {@link SimulatedBlockIo}: what a crash after it may keep, lose or damage.
 *
 * @param kind     what the call did.
 * @param inode    the file it touched, or -1.
 * @param position byte position (writes), or the new size (SIZE).
 * @param data     the written bytes, null when they are all zero.
 * @param length   bytes written.
 * @param dsync    true for a write through an O_DSYNC descriptor.
 * @param path     the path (create, rename source, delete, directory sync).
 * @param target   the rename target.
 */
public record IoCall(Kind kind, int inode, long position, byte[] data, int length, boolean dsync, Path path,
    Path target)
{
    /** Kinds of recorded calls. */
    public enum Kind
    {
        /** A completed positional write. */
        WRITE,
        /** fdatasync of one file. */
        SYNC,
        /** fallocate or truncate: the file's size changed (durable after SYNC). */
        SIZE,
        /** A file created (durable after SYNCDIR of its directory). */
        CREATE,
        /** A rename (durable after SYNCDIR). */
        RENAME,
        /** An unlink (durable after SYNCDIR). */
        DELETE,
        /** fsync of a directory. */
        SYNCDIR,
        /** A call that changes nothing durable (read, open, list, size, close, mkdir). */
        OTHER
    }

    static IoCall other()
    {
        return new IoCall(Kind.OTHER, -1, 0, null, 0, false, null, null);
    }

    @Override
    public String toString()
    {
        return kind + (inode >= 0 ? " inode=" + inode : "") + (kind == Kind.WRITE ? " @" + position + "+" + length +
            (dsync ? " dsync" : "") + (data == null ? " zeros" : "") : "") + (kind == Kind.SIZE ? " size=" + position : "") +
            (path != null ? " " + path.getFileName() : "") + (target != null ? " -> " + target.getFileName() : "");
    }
}
