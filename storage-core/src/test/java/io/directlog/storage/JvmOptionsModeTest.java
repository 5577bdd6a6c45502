package io.directlog.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import io.directlog.nativeio.JvmOptions;
import io.directlog.nativeio.NativeIo;
import io.directlog.storage.buffer.Buffers;
import io.directlog.storage.buffer.ByteBufferAtomicBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

/**
 * Which engine a JVM gets, by the options it was started with (issue 19). The default test run has every option,
 * so the native layer and Agrona's Unsafe buffers; the build's {@code no-jvm-options} run (storage-core's pom) runs
 * this test and the API suites it names again in a JVM with none, where the engine must run on the JDK's own
 * O_DIRECT and on buffers of its own, with the same records read back.
 */
class JvmOptionsModeTest
{
    /** Set by the build's run without JVM options. */
    static final boolean NO_JVM_OPTIONS = Boolean.getBoolean("directlog.test.nojvmoptions");

    @Test
    void theEngineUsesWhatTheJvmAllowsAndReadsBackWhatItWrote() throws Exception
    {
        final Path dir = TestDirs.create("jvm-options-mode");
        try (LogStore store = LogStore.open(TestStores.store(dir).build()))
        {
            final String io = store.deviceInfo().io();
            if (NO_JVM_OPTIONS)
            {
                assertFalse(JvmOptions.agronaUnsafeWorks(), "the run without options must not open jdk.internal.misc");
                assertFalse(NativeIo.isAvailable(), "no native layer without the options");
                assertFalse(Buffers.unsafe());
                assertTrue(io.contains("through the JDK"), io);
                assertTrue(store.deviceInfo().directIo(), "O_DIRECT through the JDK");
            }
            else
            {
                assertTrue(JvmOptions.agronaUnsafeWorks());
                assertTrue(NativeIo.isAvailable(), () -> String.valueOf(NativeIo.unavailabilityCause()));
                assertTrue(Buffers.unsafe());
                assertTrue(io.startsWith("native"), io);
            }
            final Log log = store.log("mode");
            int offset = 0;
            for (final Durability durability : Durability.values())
            {
                final byte[] payload = ("record-" + durability).getBytes(StandardCharsets.UTF_8);
                assertEquals(offset++, log.append(payload, durability).get(10, TimeUnit.SECONDS));
            }
            try (RecordBatch batch = log.read(0, 1 << 16))
            {
                assertEquals(Durability.values().length, batch.size());
                int i = 0;
                for (final Record record : batch)
                {
                    final byte[] read = new byte[record.payload().capacity()];
                    record.payload().getBytes(0, read);
                    assertEquals("record-" + Durability.values()[i++], new String(read, StandardCharsets.UTF_8));
                    if (NO_JVM_OPTIONS)
                    {
                        assertInstanceOf(ByteBufferAtomicBuffer.class, record.payload());
                    }
                    else
                    {
                        assertInstanceOf(UnsafeBuffer.class, record.payload());
                    }
                }
            }
        }
        try (LogStore store = LogStore.open(TestStores.store(dir).build()))
        {
            assertEquals(Durability.values().length, store.log("mode").endOffset(), "all of it back after a reopen");
        }
    }
}
