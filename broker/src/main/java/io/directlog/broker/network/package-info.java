/**
 * Netty transport: framing, per-connection request order, the hand-off to the broker's API implementations.
 * Knows the codec ({@code ...broker.protocol}) but not storage; nothing in {@code ...broker.protocol} depends on it.
 */
package io.directlog.broker.network;
