package io.directlog.broker;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

import com.sun.net.httpserver.HttpServer;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

/**
 * {@code GET /metrics} in the Prometheus text format: the broker's and the engine's meters. The JDK's HTTP server,
 * on one thread of its own: a scrape never runs on an event loop.
 * <p>
 * Thread-safe.
 */
final class MetricsEndpoint implements AutoCloseable
{
    private final HttpServer server;

    MetricsEndpoint(final String host, final int port, final PrometheusMeterRegistry registry) throws IOException
    {
        server = HttpServer.create(new InetSocketAddress(host, port), 0);
        server.createContext("/metrics", exchange ->
        {
            final byte[] body = registry.scrape().getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody())
            {
                out.write(body);
            }
        });
        server.start();
    }

    int port()
    {
        return server.getAddress().getPort();
    }

    @Override
    public void close()
    {
        server.stop(0);
    }
}
