package io.directlog.storage.internal;

import io.directlog.storage.StorageException;

import org.agrona.concurrent.UnsafeBuffer;

/**
 * Checks, before a store touches anything, that the JVM lets the engine's dependencies in: Agrona 2's buffers
 * reach {@code jdk.internal.misc.Unsafe} through {@code org.agrona.UnsafeApi}, which fails with an
 * {@link IllegalAccessError} deep inside the first buffer access unless {@code java.base} opens that package.
 * Failing here instead gives the application one message that names the flag, before any file is opened.
 * <p>
 * Design note: the check makes the access it guards (one read of an on-heap {@link UnsafeBuffer}) rather than
 * asking {@link Module#isOpen}: the package may be opened by a command-line flag, by an executable jar's
 * {@code Add-Opens} manifest attribute, or by an agent, and only the access itself says whether it works.
 * Removing the need (buffers over VarHandles or the FFM API) would change every hot path; see issue 19.
 * <p>
 * Thread-safe; the outcome is computed once.
 */
public final class JvmAccess
{
    /** The flag Agrona 2 needs, as it must be written on the java command line (Agrona on the class path). */
    public static final String ADD_OPENS_FLAG = "--add-opens java.base/jdk.internal.misc=ALL-UNNAMED";
    /** The flag that lets JNA load its native library without a warning on JDK 24 and later (class path). */
    public static final String NATIVE_ACCESS_FLAG = "--enable-native-access=ALL-UNNAMED";

    private static final String FAILURE = probe();

    private JvmAccess()
    {
    }

    /**
     * @throws StorageException when the JVM refuses the access Agrona needs; the message names the flags.
     */
    public static void check()
    {
        if (FAILURE != null)
        {
            throw new StorageException(FAILURE);
        }
    }

    private static String probe()
    {
        try
        {
            // the first access runs UnsafeApi's static initializer, which is where the JVM says no
            new UnsafeBuffer(new byte[Long.BYTES]).getLong(0);
            return null;
        }
        catch (final IllegalAccessError | ExceptionInInitializerError | NoClassDefFoundError ex)
        {
            // on the module path the package must be opened to Agrona's module (org.agrona), not to ALL-UNNAMED
            final String addOpens = "--add-opens java.base/jdk.internal.misc=" + moduleName(UnsafeBuffer.class);
            final String nativeAccess = "--enable-native-access=" + jnaModuleName();
            return "DirectLog cannot start on this JVM without the option " + addOpens +
                " (Agrona 2, which DirectLog uses for off-heap buffers, reads jdk.internal.misc.Unsafe; the JVM said: " +
                ex + "). Add it to the java command line, together with " + nativeAccess +
                " (JNA's native library; JDK 24 and later warn without it), or put 'Add-Opens: java.base/jdk.internal.misc'" +
                " and 'Enable-Native-Access: ALL-UNNAMED' in the manifest of the application's executable jar.";
        }
    }

    /** @return the module JNA's native-access flag must name (loading the class does not load the library). */
    private static String jnaModuleName()
    {
        try
        {
            return moduleName(Class.forName("com.sun.jna.Native", false, JvmAccess.class.getClassLoader()));
        }
        catch (final ClassNotFoundException | LinkageError ex)
        {
            return "ALL-UNNAMED";
        }
    }

    /** @return the module a flag must name for the class: its module's name, or ALL-UNNAMED on the class path. */
    static String moduleName(final Class<?> type)
    {
        final Module module = type.getModule();
        return module.isNamed() ? module.getName() : "ALL-UNNAMED";
    }
}
