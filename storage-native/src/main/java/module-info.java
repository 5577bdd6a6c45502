/**
 * JNA bindings for the Linux calls a storage engine needs: O_DIRECT files, aligned memory, fallocate, FIEMAP,
 * block-device facts, errno as exceptions.
 * <p>
 * The package is opened to JNA because JNA builds its proxies of {@code LibC} and fills its {@code Structure}
 * subclasses by reflection; nothing else gets deep access.
 */
module io.directlog.nativeio
{
    requires com.sun.jna;
    // AlignedMemory hands out Agrona buffers
    requires transitive org.agrona;

    exports io.directlog.nativeio;

    opens io.directlog.nativeio to com.sun.jna;
}
