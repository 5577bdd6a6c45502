package io.directlog.nativeio;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ThreadAffinityTest
{
    @Test
    void pinsOnlyTheCallingThread() throws Exception
    {
        NativeTestSupport.assumeNative();
        final CpuSet allowed = ThreadAffinity.currentThread();
        assertFalse(allowed.isEmpty());
        final CpuSet one = CpuSet.parse(allowed.toString().split("[,-]")[0]);

        final CompletableFuture<CpuSet> pinned = new CompletableFuture<>();
        final Thread thread = new Thread(() ->
        {
            try
            {
                ThreadAffinity.pinCurrentThread(one);
                pinned.complete(ThreadAffinity.currentThread());
            }
            catch (final Throwable t)
            {
                pinned.completeExceptionally(t);
            }
        });
        thread.start();
        assertEquals(one, pinned.get(30, TimeUnit.SECONDS));
        thread.join();
        assertEquals(allowed, ThreadAffinity.currentThread(), "the caller's own affinity is untouched");
    }

    @Test
    void refusesEmptyAndImpossibleSets()
    {
        NativeTestSupport.assumeNative();
        assertThrows(IllegalArgumentException.class, () -> ThreadAffinity.pinCurrentThread(CpuSet.parse("0")
            .and(CpuSet.parse("1"))));
        final CpuSet before = currentOrFail();
        final NativeIoException e = assertThrows(NativeIoException.class,
            () -> ThreadAffinity.pinCurrentThread(CpuSet.parse("1023")));
        assertTrue(e.getMessage().contains("EINVAL") && e.getMessage().contains("CPUs 1023"), e.getMessage());
        assertEquals(before, currentOrFail(), "a refused pin changes nothing");
    }

    private static CpuSet currentOrFail()
    {
        try
        {
            return ThreadAffinity.currentThread();
        }
        catch (final NativeIoException e)
        {
            throw new AssertionError(e);
        }
    }
}
