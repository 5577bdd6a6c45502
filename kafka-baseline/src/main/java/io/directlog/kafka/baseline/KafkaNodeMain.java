package io.directlog.kafka.baseline;

import java.io.IOException;
import java.util.concurrent.CountDownLatch;

/**
 * Runs a {@link KafkaNode} in the foreground until Ctrl-C, printing its bootstrap address: for trying the compat
 * scripts by hand. Arguments: none.
 *
 * <p>Not thread-safe; one per process.
 */
public final class KafkaNodeMain
{
    private KafkaNodeMain()
    {
    }

    /**
     * Starts Kafka and blocks until the JVM is asked to stop.
     *
     * @param args ignored.
     * @throws IOException          if Kafka does not start.
     * @throws InterruptedException if interrupted while running.
     */
    public static void main(final String[] args) throws IOException, InterruptedException
    {
        final KafkaNode node = KafkaNode.start(new KafkaNode.Config());
        final CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() ->
        {
            node.close();
            stopped.countDown();
        }, "kafka-node-stop"));
        System.out.println("BOOTSTRAP " + node.bootstrap());
        System.out.println(node);
        System.out.flush();
        stopped.await();
    }
}
