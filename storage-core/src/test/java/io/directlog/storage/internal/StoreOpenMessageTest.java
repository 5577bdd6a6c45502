package io.directlog.storage.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;

import org.junit.jupiter.api.Test;

/**
 * The words a failed store open uses for the JDK's file exceptions, whose own message is often the file alone.
 * ApiMisuseTest checks the real read-only directory, which root (CI containers) cannot reproduce.
 */
class StoreOpenMessageTest
{
    @Test
    void accessDeniedIsNamedAsPermissionDenied()
    {
        assertEquals("permission denied on /x/store.lock (the process needs to create, write and lock files there)",
            IoErrorText.describe(new AccessDeniedException("/x/store.lock")));
    }

    @Test
    void anotherFileSystemErrorNamesItsReasonAndFile()
    {
        assertEquals("read-only file system: /x/store.lock",
            IoErrorText.describe(new FileSystemException("/x/store.lock", null, "Read-only file system")));
    }
}
