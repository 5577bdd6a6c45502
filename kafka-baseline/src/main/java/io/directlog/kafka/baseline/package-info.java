/**
 * Apache Kafka as a reference broker: {@link io.directlog.kafka.baseline.KafkaNode} starts a real Kafka (a KRaft
 * node that is broker and controller at once, on loopback) in a child JVM from the Maven jars this module depends
 * on, and {@link io.directlog.kafka.baseline.BrokerUnderTest} is what the client compatibility suite and the
 * broker comparison drive, whichever broker is behind it.
 *
 * <p>Nothing in DirectLog's engine or broker may depend on this package: it exists to test and measure them.
 */
package io.directlog.kafka.baseline;
