package io.directlog.kafka.baseline;

import java.io.IOException;

/**
 * Chooses the broker the compatibility suite drives, from {@value #TARGET_PROP_NAME}:
 * <ul>
 *   <li>{@code kafka} (default): Apache Kafka from {@link KafkaNode}, started here and stopped afterwards;</li>
 *   <li>{@code external}: a broker somebody already runs, at {@value #BOOTSTRAP_PROP_NAME} ({@code host:port});</li>
 *   <li>{@code directlog}: DirectLog's broker from {@link DirectLogNode}, started here and stopped afterwards.</li>
 * </ul>
 *
 * <p>Stateless; thread-safe.
 */
final class BrokerTargets
{
    static final String TARGET_PROP_NAME = "directlog.compat.target";
    static final String TARGET_DEFAULT = "kafka";
    static final String BOOTSTRAP_PROP_NAME = "directlog.compat.bootstrap";

    private BrokerTargets()
    {
    }

    static BrokerUnderTest open() throws IOException
    {
        final String target = System.getProperty(TARGET_PROP_NAME, TARGET_DEFAULT).trim();
        switch (target)
        {
            case "kafka":
                return KafkaNode.start(new KafkaNode.Config());
            case "external":
                return external(System.getProperty(BOOTSTRAP_PROP_NAME, ""));
            case "directlog":
                return DirectLogNode.start();
            default:
                throw new IllegalArgumentException(TARGET_PROP_NAME + " must be kafka, external or directlog, not '" +
                    target + "'");
        }
    }

    private static BrokerUnderTest external(final String bootstrap)
    {
        if (!bootstrap.matches("[^\\s:]+:\\d+"))
        {
            throw new IllegalArgumentException(BOOTSTRAP_PROP_NAME + " must be host:port, not '" + bootstrap + "'");
        }
        return new BrokerUnderTest()
        {
            @Override
            public String bootstrap()
            {
                return bootstrap;
            }

            @Override
            public void close()
            {
                // Not ours to stop.
            }

            @Override
            public String toString()
            {
                return "external broker at " + bootstrap;
            }
        };
    }
}
