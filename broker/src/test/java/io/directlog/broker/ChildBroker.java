package io.directlog.broker;

import java.nio.file.Path;
import java.time.Duration;

import io.directlog.storage.Durability;

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
        // a 32 MiB budget holds the write pages of the two 2 MiB partitions and the two 4 MiB internal logs
        final KafkaBroker broker = KafkaBroker.start(BrokerConfig.builder(Path.of(args[0])).port(0)
            .segmentBytes(2 << 20).memoryBudget(32L << 20).durability(Durability.DSYNC)
            .initialRebalanceDelay(Duration.ZERO).build());
        System.out.println("PORT " + broker.port());
        System.out.flush();
        Thread.currentThread().join(); // until the test kills this process
    }
}
