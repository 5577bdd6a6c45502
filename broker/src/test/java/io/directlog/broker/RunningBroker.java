package io.directlog.broker;

import java.nio.file.Path;
import java.util.function.Function;

import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One broker per test, registered on an instance field with {@code @RegisterExtension}: started on a free loopback
 * port over a fresh directory before each test (before the class's own {@code @BeforeEach} methods, which may use
 * it), closed after the class's own {@code @AfterEach} methods (which may release what would hold its close up),
 * and restartable over the same directory in between.
 * <p>
 * Not thread-safe: used by the test's thread.
 */
final class RunningBroker implements BeforeEachCallback, AfterEachCallback
{
    private final String name;
    private final Function<Path, BrokerConfig.Builder> config;
    private Path dir;
    private KafkaBroker broker;

    /** @param name the prefix of the broker's directory; the broker has {@link BrokerTestSupport#config}. */
    RunningBroker(final String name)
    {
        this(name, BrokerTestSupport::configBuilder);
    }

    /**
     * @param name the prefix of the broker's directory.
     * @param config the broker's settings for a directory; its port is replaced on a restart on the same port.
     */
    RunningBroker(final String name, final Function<Path, BrokerConfig.Builder> config)
    {
        this.name = name;
        this.config = config;
    }

    @Override
    public void beforeEach(final ExtensionContext context) throws Exception
    {
        dir = BrokerTestSupport.newDirectory(name);
        broker = KafkaBroker.start(config.apply(dir).build());
    }

    @Override
    public void afterEach(final ExtensionContext context)
    {
        close();
    }

    /** @return the running broker (a new instance after each restart). */
    KafkaBroker broker()
    {
        if (broker == null)
        {
            throw new IllegalStateException("no broker running in " + dir + ": not started, or closed");
        }
        return broker;
    }

    /** @return the broker's directory, kept across restarts. */
    Path dir()
    {
        return dir;
    }

    /** Closes the broker and starts another over the same directory, on a free port. */
    void restart() throws InterruptedException
    {
        close();
        broker = KafkaBroker.start(config.apply(dir).build());
    }

    /** Closes the broker and starts another over the same directory on its port: running clients reconnect. */
    void restartOnSamePort() throws InterruptedException
    {
        final int port = broker().port();
        close();
        broker = KafkaBroker.start(config.apply(dir).port(port).build());
    }

    private void close()
    {
        if (broker != null)
        {
            final KafkaBroker closing = broker;
            broker = null; // a failed restart leaves nothing to close twice
            closing.close();
        }
    }
}
