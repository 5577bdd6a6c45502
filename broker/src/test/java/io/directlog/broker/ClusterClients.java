package io.directlog.broker;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/** kafka-clients set up for a {@link BrokerCluster}: short back-offs, so a fail-over is followed within a second. */
final class ClusterClients
{
    static final Duration WAIT = Duration.ofSeconds(60);

    private ClusterClients()
    {
    }

    static KafkaProducer<String, String> producer(final BrokerCluster c)
    {
        final Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, c.bootstrapServers());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, (int)WAIT.toMillis());
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, (int)WAIT.toMillis());
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        p.put(ProducerConfig.LINGER_MS_CONFIG, 2);
        p.put(ProducerConfig.RETRY_BACKOFF_MS_CONFIG, 50);
        p.put(ProducerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 500);
        return new KafkaProducer<>(p, new StringSerializer(), new StringSerializer());
    }

    /**
     * @param group the group id, or null for a consumer that assigns itself.
     * @param extra settings on top.
     */
    static KafkaConsumer<String, String> consumer(final BrokerCluster c, final String group,
        final Map<String, Object> extra)
    {
        final Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, c.bootstrapServers());
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        p.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int)WAIT.toMillis());
        p.put(ConsumerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 500);
        p.put(ConsumerConfig.RETRY_BACKOFF_MS_CONFIG, 50);
        if (group != null)
        {
            p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        }
        p.putAll(extra);
        return new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer());
    }

    static Admin admin(final BrokerCluster c)
    {
        return admin(c.bootstrapServers());
    }

    /** @param bootstrapServers the brokers to ask first, e.g. one node to see what that node answers. */
    static Admin admin(final String bootstrapServers)
    {
        final Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int)WAIT.toMillis());
        p.put(AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 500);
        p.put(AdminClientConfig.RETRY_BACKOFF_MS_CONFIG, 50);
        return Admin.create(p);
    }

    /** @return the index (in the cluster) of the node FindCoordinator names for the group. */
    static int coordinatorOf(final BrokerCluster c, final String group) throws Exception
    {
        try (Admin admin = admin(c))
        {
            final int id = admin.describeConsumerGroups(List.of(group)).all().get(WAIT.toSeconds(), TimeUnit.SECONDS)
                .get(group).coordinator().id();
            for (int i = 0; i < c.size(); i++)
            {
                if (c.config(i).nodeId() == id)
                {
                    return i;
                }
            }
            throw new AssertionError("the coordinator " + id + " is no node of the cluster");
        }
    }
}
