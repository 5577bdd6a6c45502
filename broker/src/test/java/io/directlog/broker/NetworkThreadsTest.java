package io.directlog.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code networkThreads} (Kafka's num.network.threads): the broker serves every connection on exactly that many
 * event loops, one per CPU unless set, and refuses a count below one by name.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class NetworkThreadsTest
{
    @Test
    void theDefaultIsTwoLoopsPerAvailableCpu() throws Exception
    {
        final Path dir = BrokerTestSupport.newDirectory("netdefault");
        try
        {
            assertEquals(2 * Runtime.getRuntime().availableProcessors(),
                BrokerConfig.builder(dir).build().networkThreads());
        }
        finally
        {
            deleteTree(dir);
        }
    }

    @Test
    void fewerThanOneIsRefusedByName() throws Exception
    {
        final Path dir = BrokerTestSupport.newDirectory("netbad");
        try
        {
            final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> BrokerConfig.builder(dir).networkThreads(0).build());
            assertTrue(e.getMessage().contains("networkThreads"), e.getMessage());
        }
        finally
        {
            deleteTree(dir);
        }
    }

    @Test
    void oneLoopServesEveryConnection() throws Exception
    {
        assertEquals(1, loopsServing(1, 4));
    }

    @Test
    void connectionsSpreadOverTheLoopsSet() throws Exception
    {
        assertEquals(2, loopsServing(2, 6));
    }

    /** @return how many network threads this broker started while {@code connections} clients were answered. */
    private static int loopsServing(final int loops, final int connections) throws Exception
    {
        final Set<Thread> before = networkThreads();
        final Path dir = BrokerTestSupport.newDirectory("netloops");
        try (KafkaBroker broker = KafkaBroker.start(BrokerTestSupport.configBuilder(dir).networkThreads(loops).build()))
        {
            final List<RawClient> clients = new ArrayList<>();
            try
            {
                for (int i = 0; i < connections; i++)
                {
                    final RawClient c = new RawClient(broker);
                    clients.add(c);
                    final ApiVersionsResponse r = (ApiVersionsResponse)c.call(new ApiVersionsRequestData()
                        .setClientSoftwareName("loops").setClientSoftwareVersion("1"), (short)3);
                    assertEquals(Errors.NONE.code(), r.data().errorCode(), "connection " + i);
                }
                final Set<Thread> started = networkThreads();
                started.removeAll(before);
                return started.size();
            }
            finally
            {
                for (final RawClient c : clients)
                {
                    c.close();
                }
            }
        }
        finally
        {
            deleteTree(dir);
        }
    }

    private static void deleteTree(final Path dir) throws java.io.IOException
    {
        try (java.util.stream.Stream<Path> all = java.nio.file.Files.walk(dir))
        {
            for (final Path p : all.sorted(java.util.Comparator.reverseOrder()).toList())
            {
                java.nio.file.Files.deleteIfExists(p);
            }
        }
    }

    private static Set<Thread> networkThreads()
    {
        return Thread.getAllStackTraces().keySet().stream()
            .filter(t -> t.isAlive() && t.getName().startsWith(KafkaBroker.NETWORK_THREAD_PREFIX))
            .collect(Collectors.toSet());
    }
}
