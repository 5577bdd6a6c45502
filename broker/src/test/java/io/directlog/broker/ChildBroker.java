package io.directlog.broker;

import java.nio.file.Path;

/** A broker in a process of its own, for kill -9 tests: prints {@code PORT n} once it listens, then runs until killed. */
public final class ChildBroker
{
    private ChildBroker()
    {
    }

    /**
     * @param args the data directory.
     * @throws Exception when the broker cannot start.
     */
    public static void main(final String[] args) throws Exception
    {
        final KafkaBroker broker = KafkaBroker.start(BrokerTestSupport.config(Path.of(args[0])));
        System.out.println("PORT " + broker.port());
        System.out.flush();
        Thread.currentThread().join(); // until the test kills this process
    }
}
