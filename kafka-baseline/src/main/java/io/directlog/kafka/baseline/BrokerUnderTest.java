package io.directlog.kafka.baseline;

/**
 * A running Kafka-protocol broker that clients are pointed at: Apache Kafka from {@link KafkaNode}, DirectLog's
 * broker, or one somebody started by hand.
 *
 * <p>Implementations are thread-safe.
 */
public interface BrokerUnderTest extends AutoCloseable
{
    /**
     * The address clients bootstrap from.
     *
     * @return {@code host:port}, e.g. {@code 127.0.0.1:40231}.
     */
    String bootstrap();

    /**
     * Stops the broker if this object started it, and releases what it holds. Idempotent.
     */
    @Override
    void close();
}
