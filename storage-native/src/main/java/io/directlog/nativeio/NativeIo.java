package io.directlog.nativeio;

import com.sun.jna.Native;

import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

/**
 * Whether the native layer can be used, decided once when this class is initialised, plus the process-wide call
 * counters and the sync listener.
 *
 * <p>The layer is unavailable when the property {@value #DISABLE_PROP_NAME} is {@code "true"}, when the OS is not
 * Linux or the CPU is neither x86-64 nor aarch64 (the bindings assume LP64 and Linux flag values), when the JVM was
 * not given the options the layer needs to run without a warning ({@link JvmOptions}), or when JNA cannot load libc
 * or bind one of the functions. The cause is kept, and every facade method then throws
 * {@link UnsupportedOperationException} carrying it instead of an {@link UnsatisfiedLinkError}.
 *
 * <p>Thread-safe: availability is immutable after class initialisation, counters are {@link LongAdder}s and the
 * listener is a volatile field.
 */
public final class NativeIo
{
    /** System property that turns the native layer off when set to {@code "true"}. */
    public static final String DISABLE_PROP_NAME = "directlog.nativeio.disable";

    private static final Throwable UNAVAILABILITY_CAUSE;

    // One adder per counted call; LongAdder keeps concurrent writers (the writer thread and readers) off a
    // shared cache line at the price of a slower, rarely called sum().
    static final LongAdder PWRITE = new LongAdder();
    static final LongAdder PREAD = new LongAdder();
    static final LongAdder FDATASYNC = new LongAdder();
    static final LongAdder FSYNC = new LongAdder();
    static final LongAdder FALLOCATE = new LongAdder();
    static final LongAdder OPEN = new LongAdder();
    static final LongAdder CLOSE = new LongAdder();

    private static volatile Consumer<String> syncListener;

    private static final Charset PATH_CHARSET = pathCharset();

    static
    {
        UNAVAILABILITY_CAUSE = probe(
            System.getProperty("os.name", ""),
            System.getProperty("os.arch", ""),
            System.getProperty(DISABLE_PROP_NAME),
            () ->
            {
                JvmOptions.requireForNativeLayer();
                loadLibC();
            });
    }

    private NativeIo()
    {
    }

    /**
     * Decides availability; package-private so that tests can check the refusal paths without another JVM.
     *
     * @param osName      value of {@code os.name}.
     * @param osArch      value of {@code os.arch}.
     * @param disableProp value of {@value #DISABLE_PROP_NAME}, or null.
     * @param loader      binds libc; any {@link Throwable} it throws makes the layer unavailable.
     * @return null when available, else the cause.
     */
    static Throwable probe(final String osName, final String osArch, final String disableProp, final Runnable loader)
    {
        if ("true".equalsIgnoreCase(disableProp))
        {
            return new IllegalStateException("disabled by -D" + DISABLE_PROP_NAME + "=true");
        }
        if (Platform.detect(osName, osArch) == Platform.UNSUPPORTED)
        {
            return new IllegalStateException(
                "unsupported platform " + osName + "/" + osArch + " (needs Linux on x86-64 or aarch64)");
        }
        try
        {
            loader.run();
            return null;
        }
        catch (final Throwable t)
        {
            // LinkageError (UnsatisfiedLinkError, ExceptionInInitializerError, NoClassDefFoundError) is what JNA
            // throws here; catching Throwable keeps class initialisation of NativeIo itself from ever failing.
            return t;
        }
    }

    private static void loadLibC()
    {
        // Forces LibC's Native.register and makes one real call, so a broken binding fails here, once.
        if (LibC.getpid() <= 0)
        {
            throw new IllegalStateException("getpid() returned a non-positive value");
        }
    }

    /**
     * @return whether the native layer can be used in this JVM.
     */
    public static boolean isAvailable()
    {
        return UNAVAILABILITY_CAUSE == null;
    }

    /**
     * @return why the native layer is unavailable, or null when it is available.
     */
    public static Throwable unavailabilityCause()
    {
        return UNAVAILABILITY_CAUSE;
    }

    /**
     * Throws unless the native layer is available; every facade method calls this first.
     *
     * @throws UnsupportedOperationException {@code "native I/O unavailable: <cause>"}, with the cause attached.
     */
    public static void ensureAvailable()
    {
        if (UNAVAILABILITY_CAUSE != null)
        {
            throw unavailable(UNAVAILABILITY_CAUSE);
        }
    }

    static UnsupportedOperationException unavailable(final Throwable cause)
    {
        return new UnsupportedOperationException("native I/O unavailable: " + cause, cause);
    }

    /**
     * @return a snapshot of the process-wide call counters.
     */
    public static CallCounts callCounts()
    {
        return new CallCounts(
            PWRITE.sum(), PREAD.sum(), FDATASYNC.sum(), FSYNC.sum(), FALLOCATE.sum(), OPEN.sum(), CLOSE.sum());
    }

    /**
     * Sets a listener called on the calling thread, with the call name ({@code "fdatasync"}, {@code "fsync"},
     * {@code "syncfs"} or {@code "sync_file_range"}), just before each sync call. It lets tests assert which thread
     * syncs. It must be fast and must not throw; null (the default) removes it.
     *
     * @param listener the listener, or null.
     */
    public static void setSyncListener(final Consumer<String> listener)
    {
        syncListener = listener;
    }

    static void beforeSync(final String call)
    {
        final Consumer<String> listener = syncListener;
        if (listener != null)
        {
            listener.accept(call);
        }
    }

    /** errno of the last failed native call on this thread; valid only right after that call. */
    static int errno()
    {
        return Native.getLastError();
    }

    /** The NUL-terminated bytes the kernel should see for a path, in the JVM's file-name encoding. */
    static byte[] pathBytes(final Path path)
    {
        return cString(path.toAbsolutePath().toString());
    }

    static byte[] cString(final String s)
    {
        final byte[] encoded = s.getBytes(PATH_CHARSET);
        final byte[] bytes = new byte[encoded.length + 1];
        System.arraycopy(encoded, 0, bytes, 0, encoded.length);
        return bytes;
    }

    private static Charset pathCharset()
    {
        // sun.jnu.encoding is what java.io/java.nio use for file names; follow it so both see the same file.
        final String name = System.getProperty("sun.jnu.encoding");
        try
        {
            return name != null ? Charset.forName(name) : StandardCharsets.UTF_8;
        }
        catch (final RuntimeException ex)
        {
            return StandardCharsets.UTF_8;
        }
    }
}
