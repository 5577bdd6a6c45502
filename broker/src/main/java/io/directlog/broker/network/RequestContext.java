package io.directlog.broker.network;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.concurrent.Executor;

import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.requests.RequestHeader;

import io.netty.channel.Channel;
import io.netty.util.concurrent.EventExecutor;

/**
 * One parsed request and the connection it came on.
 *
 * @param header  the request header (API key, version, correlation id, client id).
 * @param body    the request body.
 * @param channel the connection.
 * @param io      the connection's lane for work that may block (log appends, disk reads): off the event loop, in
 *                request order.
 */
public record RequestContext(RequestHeader header, ApiMessage body, Channel channel, Executor io)
{
    /** @return the API version of the request. */
    public short version()
    {
        return header.apiVersion();
    }

    /** @return the connection's event loop: timers of parked requests run there. */
    public EventExecutor executor()
    {
        return channel.eventLoop();
    }

    /** @return the client's host, as Kafka reports it in group descriptions. */
    public String clientHost()
    {
        final SocketAddress a = channel.remoteAddress();
        return a instanceof InetSocketAddress inet ? "/" + inet.getAddress().getHostAddress() : String.valueOf(a);
    }
}
