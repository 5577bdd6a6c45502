/**
 * A single-node broker speaking the Kafka protocol over Netty, with every partition a DirectLog log:
 * {@link io.directlog.broker.KafkaBroker} starts it, {@link io.directlog.broker.BrokerConfig} configures it.
 * Reaches storage only through the public {@code io.directlog.storage} API.
 */
package io.directlog.broker;
