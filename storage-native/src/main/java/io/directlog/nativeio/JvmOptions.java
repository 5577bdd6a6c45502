package io.directlog.nativeio;

import java.lang.reflect.Method;

import org.agrona.concurrent.UnsafeBuffer;

/**
 * Whether the JVM was started with the two options the native layer needs to run silently, found out without
 * making the JVM print anything:
 * <ul>
 * <li>{@value #ADD_OPENS_FLAG}: the layer passes Agrona 2 buffers to the kernel, and Agrona reaches
 * {@code jdk.internal.misc.Unsafe} through {@code org.agrona.UnsafeApi}, which fails with an
 * {@link IllegalAccessError} unless {@code java.base} opens that package (a command-line flag, an executable
 * jar's {@code Add-Opens} attribute, or an agent);</li>
 * <li>{@value #NATIVE_ACCESS_FLAG}, on JDK 24 and later: JNA loads its library with {@code System.load}, a
 * restricted method, and without the flag the JDK prints a warning to stderr when it is called.</li>
 * </ul>
 * Without either, the engine does not use this layer: it runs on the JDK's own I/O (see storage-core's
 * {@code IoSelection}), so that an application started with no option at all opens a store with nothing printed.
 * <p>
 * Design note: the Agrona check makes the access it guards (one read of an on-heap {@link UnsafeBuffer}) rather than
 * asking {@link Module#isOpen}, because only the access itself says whether it works, whichever way the package was
 * opened. The native-access check cannot do the same (the access is what prints the warning), so it asks the JDK's
 * {@code Module.isNativeAccessEnabled()} (JDK 22+) of JNA's module, without initialising JNA.
 * <p>
 * Thread-safe; each outcome is computed once.
 */
public final class JvmOptions
{
    /** The option Agrona 2 needs, on the class path. */
    public static final String ADD_OPENS_FLAG = "--add-opens java.base/jdk.internal.misc=ALL-UNNAMED";
    /** The option that lets JNA load its library without a warning on JDK 24 and later, on the class path. */
    public static final String NATIVE_ACCESS_FLAG = "--enable-native-access=ALL-UNNAMED";
    /** The first JDK that warns when a restricted method (JNI's {@code System.load}) is called without the flag. */
    static final int FIRST_WARNING_JDK = 24;

    private static final String AGRONA_REFUSAL = probeAgrona();
    private static final String NATIVE_ACCESS_REFUSAL = probeNativeAccess(Runtime.version().feature());

    private JvmOptions()
    {
    }

    /** @return true when Agrona's Unsafe-based buffers work in this JVM. */
    public static boolean agronaUnsafeWorks()
    {
        return AGRONA_REFUSAL == null;
    }

    /** @return why Agrona's buffers do not work (naming the option), or null when they do. */
    public static String agronaRefusal()
    {
        return AGRONA_REFUSAL;
    }

    /** @return why loading JNA would make the JDK print a warning (naming the option), or null when it would not. */
    public static String nativeAccessRefusal()
    {
        return NATIVE_ACCESS_REFUSAL;
    }

    /**
     * @throws IllegalStateException naming the missing option, when the native layer cannot run silently here.
     */
    static void requireForNativeLayer()
    {
        if (AGRONA_REFUSAL != null)
        {
            throw new IllegalStateException(AGRONA_REFUSAL);
        }
        if (NATIVE_ACCESS_REFUSAL != null)
        {
            throw new IllegalStateException(NATIVE_ACCESS_REFUSAL);
        }
    }

    private static String probeAgrona()
    {
        try
        {
            // the first access runs UnsafeApi's static initializer, which is where the JVM says no
            new UnsafeBuffer(new byte[Long.BYTES]).getLong(0);
            return null;
        }
        catch (final IllegalAccessError | ExceptionInInitializerError | NoClassDefFoundError ex)
        {
            return "java.base does not open jdk.internal.misc to Agrona (" +
                "--add-opens java.base/jdk.internal.misc=" + moduleName(UnsafeBuffer.class) + "; the JVM said: " +
                ex + ")";
        }
    }

    /**
     * @param feature the JDK's feature release.
     * @return why loading JNA would print a warning on that JDK, or null.
     */
    static String probeNativeAccess(final int feature)
    {
        if (feature < FIRST_WARNING_JDK)
        {
            return null;
        }
        final Class<?> jna;
        try
        {
            jna = Class.forName("com.sun.jna.Native", false, JvmOptions.class.getClassLoader()); // not initialised
        }
        catch (final ClassNotFoundException | LinkageError ex)
        {
            return "JNA is not on the class path (" + ex + ")";
        }
        try
        {
            final Method enabled = Module.class.getMethod("isNativeAccessEnabled");
            if (Boolean.TRUE.equals(enabled.invoke(jna.getModule())))
            {
                return null;
            }
        }
        catch (final ReflectiveOperationException | RuntimeException ex)
        {
            return "cannot tell whether native access is enabled for JNA (" + ex + ")";
        }
        return "native access is not enabled for JNA (--enable-native-access=" + moduleName(jna) + "); loading it " +
            "would make the JDK print a warning";
    }

    /**
     * @param type a class.
     * @return the module an option must name for the class: its module's name, or ALL-UNNAMED on the class path.
     */
    public static String moduleName(final Class<?> type)
    {
        final Module module = type.getModule();
        return module.isNamed() ? module.getName() : "ALL-UNNAMED";
    }
}
