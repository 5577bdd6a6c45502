package io.directlog.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.lang.reflect.InvocationTargetException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * kafka-clients 3.9.1 against the broker. The broker's codec is kafka-clients 4.4.0 on the test classpath, so the
 * old client runs in its own class loader: the 3.9.1 jar, the compression and logging jars of the classpath, and
 * this module's test classes for {@link OldClientScenario}, with the platform loader as parent.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class OldClientTest
{
    @Test
    void kafkaClients391AdminProducerAndConsumersWork() throws Exception
    {
        final Path jar = Path.of(System.getProperty("directlog.kafka39.jar", "target/old-clients/kafka-clients-3.9.1.jar"));
        assertTrue(Files.isRegularFile(jar), "missing " + jar + " (copied by maven-dependency-plugin)");
        final List<URL> urls = new ArrayList<>();
        urls.add(jar.toUri().toURL());
        for (final String entry : System.getProperty("java.class.path").split(File.pathSeparator))
        {
            final String name = Path.of(entry).getFileName().toString();
            if (name.startsWith("zstd-jni") || name.startsWith("lz4") || name.startsWith("snappy-java") ||
                name.startsWith("slf4j-api") || entry.endsWith("test-classes"))
            {
                urls.add(Path.of(entry).toUri().toURL());
            }
        }
        try (KafkaBroker broker = KafkaBroker.start(BrokerTestSupport.config(BrokerTestSupport.newDirectory("old")));
             URLClassLoader loader = new URLClassLoader(urls.toArray(new URL[0]), ClassLoader.getPlatformClassLoader()))
        {
            final Class<?> scenario = loader.loadClass(OldClientScenario.class.getName());
            assertTrue(scenario.getClassLoader() == loader, "the scenario runs in the old client's loader");
            final Thread t = Thread.currentThread();
            final ClassLoader previous = t.getContextClassLoader();
            t.setContextClassLoader(loader);
            try
            {
                assertEquals("kafka-clients-3.9.1.jar", scenario.getMethod("run", String.class).invoke(null, broker.bootstrapServers()));
            }
            catch (final InvocationTargetException e)
            {
                throw new AssertionError("kafka-clients 3.9.1: " + e.getCause(), e.getCause());
            }
            finally
            {
                t.setContextClassLoader(previous);
            }
        }
    }
}
