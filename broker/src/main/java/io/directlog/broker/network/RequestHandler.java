package io.directlog.broker.network;

import java.util.concurrent.CompletableFuture;

import org.apache.kafka.common.protocol.ApiMessage;

/**
 * What a connection hands each parsed request to: the broker's API implementations.
 * <p>
 * Called on the connection's event loop; must not block it: work that may block (a log append that waits for room
 * in a full writer queue, a read from disk) goes to the request's {@link RequestContext#io()} lane. Implementations
 * are thread-safe.
 */
public interface RequestHandler
{
    /**
     * Handles one request.
     *
     * @param request the request: header, body, connection.
     * @return the response body once it is ready, or null when the request gets no response (Produce acks=0).
     *         A future that fails is answered with the request's error response.
     */
    CompletableFuture<ApiMessage> handle(RequestContext request);
}
