/**
 * Topics and partitions over DirectLog logs: the durable topic registry, each partition's append path (offset
 * stamping, idempotent-producer checks, time index) and reads. Knows the record adapter of
 * {@code ...broker.protocol} but not Netty; {@code ...broker.network} does not depend on it.
 */
package io.directlog.broker.topic;
