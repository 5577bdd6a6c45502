package io.directlog.broker.network;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.kafka.common.protocol.ApiKeys;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

/**
 * The transport's meters: requests and their latency per API and outcome, bytes in and out, open connections.
 * Outcomes are {@code response}, {@code error} (the whole request failed and got its error response),
 * {@code none} (Produce acks=0) and {@code closed} (the connection was closed instead).
 * <p>
 * Thread-safe; meters are created up front so the event loops only increment.
 */
public final class RequestMetrics
{
    /** How a request ended. */
    public enum Outcome
    {
        /** The request was answered. */
        RESPONSE,
        /** The whole request failed and got its error response. */
        ERROR,
        /** No response is due (Produce with acks=0). */
        NONE,
        /** The connection was closed instead of answering. */
        CLOSED
    }

    private final Map<ApiKeys, Map<Outcome, Timer>> latency = new EnumMap<>(ApiKeys.class);
    private final Counter bytesIn;
    private final Counter bytesOut;
    private final Counter unparsed;
    private final AtomicInteger connections = new AtomicInteger();

    /** @param registry where the meters go. */
    public RequestMetrics(final MeterRegistry registry)
    {
        for (final ApiKeys key : ApiKeys.values())
        {
            final Map<Outcome, Timer> byOutcome = new EnumMap<>(Outcome.class);
            for (final Outcome o : Outcome.values())
            {
                byOutcome.put(o, Timer.builder("directlog.broker.requests")
                    .description("Kafka requests by API and outcome, with their latency from parse to response")
                    .tag("api", key.name).tag("outcome", o.name().toLowerCase(java.util.Locale.ROOT))
                    .publishPercentiles(0.5, 0.99, 0.999)
                    .register(registry));
            }
            latency.put(key, byOutcome);
        }
        bytesIn = Counter.builder("directlog.broker.bytes.in").baseUnit("bytes")
            .description("request bytes received, length prefixes included").register(registry);
        bytesOut = Counter.builder("directlog.broker.bytes.out").baseUnit("bytes")
            .description("response bytes sent, length prefixes included").register(registry);
        unparsed = Counter.builder("directlog.broker.requests.unparsed")
            .description("frames whose header could not be parsed; the connection was closed").register(registry);
        registry.gauge("directlog.broker.connections", connections);
    }

    void onRequest(final ApiKeys key, final Outcome outcome, final long startNanos)
    {
        latency.get(key).get(outcome).record(System.nanoTime() - startNanos, TimeUnit.NANOSECONDS);
    }

    void onUnparsed()
    {
        unparsed.increment();
    }

    void onBytesIn(final int bytes)
    {
        bytesIn.increment(bytes);
    }

    void onBytesOut(final int bytes)
    {
        bytesOut.increment(bytes);
    }

    void onConnect()
    {
        connections.incrementAndGet();
    }

    void onDisconnect()
    {
        connections.decrementAndGet();
    }
}
