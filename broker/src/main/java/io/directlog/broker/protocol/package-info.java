/**
 * The Kafka wire codec: request and response bytes through kafka-clients' generated message classes
 * ({@link io.directlog.broker.protocol.KafkaCodec}), the advertised API table
 * ({@link io.directlog.broker.protocol.SupportedApis}), and the one adapter over Kafka's record classes
 * ({@link io.directlog.broker.protocol.KafkaRecords}). No storage and no Netty here; nothing outside the broker
 * depends on it.
 */
package io.directlog.broker.protocol;
