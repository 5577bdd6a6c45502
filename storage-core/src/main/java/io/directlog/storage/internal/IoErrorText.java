package io.directlog.storage.internal;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.util.Locale;

/**
 * The words a store uses for the JDK's file exceptions when a store or a log cannot be opened: the JDK's own
 * message of some of them is the file's name alone.
 * <p>
 * Thread-safe (stateless).
 */
final class IoErrorText
{
    private IoErrorText()
    {
    }

    /**
     * @param e why a file could not be used.
     * @return the problem in words, naming the file.
     */
    static String describe(final IOException e)
    {
        final String file = e instanceof FileSystemException fse && fse.getFile() != null ? fse.getFile() : null;
        if (e instanceof AccessDeniedException)
        {
            return "permission denied on " + file + " (the process needs to create, write and lock files there)";
        }
        if (e instanceof FileAlreadyExistsException)
        {
            return file + " exists and is not a directory";
        }
        if (e instanceof NoSuchFileException)
        {
            return "no such file or directory: " + file;
        }
        if (e instanceof FileSystemException fse && fse.getReason() != null)
        {
            return fse.getReason().toLowerCase(Locale.ROOT) + ": " + file;
        }
        return String.valueOf(e.getMessage());
    }
}
