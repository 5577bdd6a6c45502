/**
 * Consumer groups, classic protocol: the coordinator (membership, rebalances, session and rebalance timeouts,
 * static membership, committed offsets) and its internal DirectLog log. Knows the codec's message classes but not
 * topics' storage; nothing in {@code ...broker.topic} depends on it.
 */
package io.directlog.broker.group;
