package io.directlog.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.StringWriter;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

import io.directlog.nativeio.NativeIo;

import org.agrona.DirectBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The engine's module descriptor seen from an application on the module path: the API compiles, the internals do
 * not. The tests themselves run on the class path (storage-core's pom), so they compile a consumer module with
 * javax.tools against the built classes of this module, storage-native, Agrona and JNA.
 */
class ModuleDescriptorTest
{
    private static final String MODULE = "io.directlog.storage";

    @TempDir
    Path dir;

    @Test
    void exportsTheApiAndTheSpiOnly() throws Exception
    {
        final Path classes = location(LogStore.class);
        final ModuleDescriptor descriptor = ModuleFinder.of(classes).find(MODULE)
            .orElseThrow(() -> new AssertionError(classes + " holds no module " + MODULE))
            .descriptor();

        final Set<String> exported = descriptor.exports().stream()
            .map(ModuleDescriptor.Exports::source).collect(Collectors.toCollection(TreeSet::new));
        assertEquals(new TreeSet<>(List.of("io.directlog.storage", "io.directlog.storage.spi")), exported);
        assertTrue(descriptor.exports().stream().noneMatch(ModuleDescriptor.Exports::isQualified), "no qualified exports");
        assertTrue(descriptor.opens().isEmpty(), "opens nothing: " + descriptor.opens());
        assertFalse(descriptor.isOpen(), "not an open module");
    }

    @Test
    void aConsumerModuleCompilesAgainstTheApi() throws Exception
    {
        final String errors = compileConsumer(
            "import io.directlog.storage.LogStore;\n" +
            "import io.directlog.storage.StoreConfig;\n" +
            "import io.directlog.storage.spi.BlockIo;\n" +
            "public final class Main {\n" +
            "    public static void main(String[] args) throws Exception {\n" +
            "        try (LogStore store = LogStore.open(StoreConfig.builder(java.nio.file.Path.of(args[0])).build())) {\n" +
            "            store.log(\"q\").append(new byte[8]).join();\n" +
            // Agrona is read through 'requires transitive': the consumer does not require it itself
            "            org.agrona.DirectBuffer view = new org.agrona.concurrent.UnsafeBuffer(new byte[8]);\n" +
            "        }\n" +
            "        BlockIo io = null;\n" +
            "    }\n" +
            "}\n");
        assertEquals("", errors, "the public API must compile from a module that requires " + MODULE);
    }

    @Test
    void aConsumerModuleCannotReachTheInternals() throws Exception
    {
        final String errors = compileConsumer(
            "public final class Main {\n" +
            "    io.directlog.storage.internal.StoreEngine engine;\n" +
            "}\n");
        assertTrue(errors.contains("package io.directlog.storage.internal is not visible"),
            "expected javac to refuse the internal package, got: " + errors);
    }

    /** @return javac's diagnostics for module 'app' (requires the engine) holding app/Main.java; "" on success. */
    private String compileConsumer(final String mainSource) throws IOException, URISyntaxException
    {
        final Path src = Files.createDirectories(dir.resolve("src/app/app"));
        Files.writeString(dir.resolve("src/app/module-info.java"), "module app { requires " + MODULE + "; }\n");
        Files.writeString(src.resolve("Main.java"), "package app;\n" + mainSource);
        final String modulePath = List.of(location(LogStore.class), location(NativeIo.class),
                location(DirectBuffer.class), location(com.sun.jna.Native.class))
            .stream().map(Path::toString).collect(Collectors.joining(java.io.File.pathSeparator));

        final JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        final StringWriter out = new StringWriter();
        final int rc = javac.getTask(out, null, null,
            List.of("--release", "17", "-d", dir.resolve("out").toString(), "-p", modulePath,
                "--module-source-path", dir.resolve("src").toString(), "--module", "app"),
            null, null).call() ? 0 : 1;
        return rc == 0 ? "" : out.toString().isEmpty() ? "javac failed without a message" : out.toString();
    }

    private static Path location(final Class<?> type) throws URISyntaxException
    {
        return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
    }
}
