package io.directlog.cli.bench;

import java.nio.file.Path;

import io.directlog.nativeio.DirectIoProbe;
import io.directlog.nativeio.NativeIo;

/**
 * Whether the raw scenarios can run in the bench directory: native I/O loaded, and O_DIRECT accepted there
 * (probed with a real write: tmpfs and some overlay setups refuse it).
 * <p>
 * Immutable once probed; thread-safe.
 */
final class DirectIoSupport
{
    /** Raw buffers are at least page aligned, which satisfies every device's O_DIRECT rule we know of. */
    static final int MIN_ALIGNMENT = 4096;

    private final String nativeUnavailable;
    private final DirectIoProbe.Result probe;
    private final String probeFailure;

    private DirectIoSupport(final String nativeUnavailable, final DirectIoProbe.Result probe,
        final String probeFailure)
    {
        this.nativeUnavailable = nativeUnavailable;
        this.probe = probe;
        this.probeFailure = probeFailure;
    }

    /**
     * @param directory where the bench writes.
     * @return what works there; never throws.
     */
    static DirectIoSupport probe(final Path directory)
    {
        final String nativeUnavailable = nativeUnavailableReason();
        if (nativeUnavailable != null)
        {
            return new DirectIoSupport(nativeUnavailable, null, null);
        }
        try
        {
            return new DirectIoSupport(null, DirectIoProbe.probe(directory), null);
        }
        catch (final Exception | LinkageError ex)
        {
            return new DirectIoSupport(null, null, ex.toString());
        }
    }

    /** @return null when JNA and the native layer work, else why not. */
    static String nativeUnavailableReason()
    {
        try
        {
            if (NativeIo.isAvailable())
            {
                return null;
            }
            final Throwable cause = NativeIo.unavailabilityCause();
            return "native I/O unavailable" + (cause != null ? ": " + cause.getMessage() : "");
        }
        catch (final LinkageError ex)
        {
            // storage-native missing or half-built on the classpath.
            return "native I/O unavailable: " + ex;
        }
    }

    /**
     * @throws ScenarioUnavailableException when native I/O cannot be used at all.
     */
    void requireNative() throws ScenarioUnavailableException
    {
        if (nativeUnavailable != null)
        {
            throw new ScenarioUnavailableException(nativeUnavailable);
        }
    }

    /**
     * @throws ScenarioUnavailableException when O_DIRECT does not work in the directory.
     */
    void requireDirect() throws ScenarioUnavailableException
    {
        requireNative();
        if (probe == null)
        {
            throw new ScenarioUnavailableException("O_DIRECT probe failed: " + probeFailure);
        }
        if (!probe.supported())
        {
            throw new ScenarioUnavailableException("no O_DIRECT on " + probe.fileSystemType() + ": " + probe.reason());
        }
    }

    /** @return true when O_DIRECT reads and writes work in the directory. */
    boolean directSupported()
    {
        return nativeUnavailable == null && probe != null && probe.supported();
    }

    /** @return an alignment for buffers, offsets and lengths that satisfies the directory's O_DIRECT rules. */
    int alignment()
    {
        return directSupported() ? Math.max(MIN_ALIGNMENT, probe.alignment()) : MIN_ALIGNMENT;
    }

    /** @return one line for the header, such as "yes (ok: 4096-byte block verified; ...)". */
    String describe()
    {
        if (nativeUnavailable != null)
        {
            return "unknown (" + nativeUnavailable + ")";
        }
        if (probe == null)
        {
            return "unknown (probe failed: " + probeFailure + ")";
        }
        if (!probe.supported())
        {
            return "no (" + probe.reason() + "): raw O_DIRECT rows are unavailable";
        }
        return "yes (" + probe.reason() + ")";
    }
}
