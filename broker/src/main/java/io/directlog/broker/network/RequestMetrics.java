package io.directlog.broker.network;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;

import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

import io.directlog.broker.protocol.ResponseErrors;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

/**
 * The transport's meters: requests and their latency per API and outcome, bytes in and out, open connections.
 * Outcomes are {@code response}, {@code error} (the whole request failed and got its error response),
 * {@code none} (Produce acks=0) and {@code closed} (the connection was closed instead).
 * <p>
 * The error codes of the responses sent are counted apart, per API and Kafka error name (Kafka's
 * {@code RequestMetrics ErrorsPerSec} with its {@code request} and {@code error} tags): one count per error field,
 * so a Produce to three partitions counts three, NONE included for those that succeeded. They are not a tag of the
 * timer: each timer keeps percentile histograms, and an error tag would multiply them by the error codes seen. The
 * error counters are registered on first use, bounded by the advertised APIs times Kafka's error codes.
 * <p>
 * Thread-safe; the timers are created up front so the event loops only increment.
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

    private static final System.Logger LOG = System.getLogger(RequestMetrics.class.getName());

    private final MeterRegistry registry;
    private final Map<ApiKeys, Map<Outcome, Timer>> latency = new EnumMap<>(ApiKeys.class);
    /** Per API id, the error counters by {@link Errors#ordinal()}; filled on first use (a benign race: Micrometer's
     * registry returns the counter already registered under the same name and tags). */
    private final Map<ApiKeys, AtomicReferenceArray<Counter>> errors = new EnumMap<>(ApiKeys.class);
    private final Counter bytesIn;
    private final Counter bytesOut;
    private final Counter unparsed;
    private final AtomicInteger connections = new AtomicInteger();

    /** @param registry where the meters go. */
    public RequestMetrics(final MeterRegistry registry)
    {
        this.registry = registry;
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
            errors.put(key, new AtomicReferenceArray<>(Errors.values().length));
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

    /**
     * Counts the error codes of a response about to be sent.
     *
     * @param key      the API.
     * @param version  the response's version.
     * @param response its body.
     */
    void onResponse(final ApiKeys key, final short version, final ApiMessage response)
    {
        try
        {
            ResponseErrors.count(key, version, response).forEach((error, n) -> errorCounter(key, error).increment(n));
        }
        catch (final RuntimeException e)
        {
            // a meter must never cost the client its response
            LOG.log(System.Logger.Level.WARNING, "could not count the errors of a " + key.name + " response", e);
        }
    }

    private Counter errorCounter(final ApiKeys key, final Errors error)
    {
        final AtomicReferenceArray<Counter> byError = errors.get(key);
        Counter c = byError.get(error.ordinal());
        if (c == null)
        {
            c = Counter.builder("directlog.broker.request.errors")
                .description("error codes in the responses sent, per API and Kafka error name (NONE: success); " +
                    "one per error field: a partition, a topic, a group")
                .tag("api", key.name).tag("error", error.name()).register(registry);
            byError.set(error.ordinal(), c);
        }
        return c;
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
