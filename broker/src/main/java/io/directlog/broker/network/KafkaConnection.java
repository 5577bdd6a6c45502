package io.directlog.broker.network;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.requests.RequestHeader;

import io.directlog.broker.protocol.EncodedResponse;
import io.directlog.broker.protocol.KafkaCodec;
import io.directlog.broker.protocol.ResponseEncoder;
import io.directlog.broker.protocol.SupportedApis;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

/**
 * One client connection: parses each frame, hands it to the {@link RequestHandler}, and writes the responses in
 * request order, however the handler completes them. Kafka clients match responses to requests first in, first
 * out (the Java client fails a connection on a correlation id out of order), and a long-polled Fetch or a parked
 * JoinGroup completes after requests that came later.
 * <p>
 * A frame that cannot be parsed, an unknown API key, or a version we do not advertise (other than ApiVersions,
 * which KIP-511 answers with error 35) closes this connection, as Kafka does; other connections are unaffected.
 * <p>
 * Not thread-safe; confined to the channel's event loop (completions from other threads hop onto it).
 */
public final class KafkaConnection extends ChannelInboundHandlerAdapter
{
    /** Requests in flight on one connection before reading pauses (the Java client sends at most 5 by default). */
    static final int MAX_IN_FLIGHT = 64;

    private static final System.Logger LOG = System.getLogger(KafkaConnection.class.getName());

    private final RequestHandler handler;
    private final RequestMetrics metrics;
    private final OrderedExecutor io;
    private final ArrayDeque<CompletableFuture<EncodedResponse>> replies = new ArrayDeque<>();
    private boolean closed;

    /**
     * @param handler the broker's API implementations.
     * @param metrics the transport's meters.
     * @param ioPool  the broker's pool for blocking work; this connection gets an ordered lane on it.
     */
    public KafkaConnection(final RequestHandler handler, final RequestMetrics metrics, final Executor ioPool)
    {
        this.handler = handler;
        this.metrics = metrics;
        this.io = new OrderedExecutor(ioPool);
    }

    @Override
    public void channelActive(final ChannelHandlerContext ctx) throws Exception
    {
        metrics.onConnect();
        super.channelActive(ctx);
    }

    @Override
    public void channelRead(final ChannelHandlerContext ctx, final Object msg)
    {
        final ByteBuffer frame;
        final ByteBuf buf = (ByteBuf)msg;
        try
        {
            // one copy to the heap: the parsed request (records included) views it, with no reference count to keep
            final byte[] bytes = new byte[buf.readableBytes()];
            buf.readBytes(bytes);
            metrics.onBytesIn(bytes.length + 4);
            frame = ByteBuffer.wrap(bytes);
        }
        finally
        {
            buf.release();
        }
        if (closed)
        {
            return;
        }
        final long start = System.nanoTime();
        final RequestHeader header;
        final ApiMessage body;
        final ByteBuffer bodyBytes;
        try
        {
            header = KafkaCodec.parseHeader(frame);
        }
        catch (final RuntimeException e)
        {
            metrics.onUnparsed();
            close(ctx);
            return;
        }
        try
        {
            bodyBytes = frame.slice();
            if (!SupportedApis.isSupported(header.apiKey(), header.apiVersion()) ||
                header.apiVersion() < SupportedApis.lowestParsable(header.apiKey()))
            {
                if (header.apiKey() == ApiKeys.API_VERSIONS)
                {
                    metrics.onRequest(header.apiKey(), RequestMetrics.Outcome.ERROR, start);
                    final ApiMessage unsupported = SupportedApis.unsupportedApiVersionsResponse();
                    metrics.onResponse(header.apiKey(), (short)0, unsupported);
                    queue(ctx, CompletableFuture.completedFuture(plain(
                        KafkaCodec.encodeResponse(header, (short)0, unsupported))));
                    return;
                }
                metrics.onRequest(header.apiKey(), RequestMetrics.Outcome.CLOSED, start);
                close(ctx);
                return;
            }
            body = KafkaCodec.parseBody(header, frame);
        }
        catch (final RuntimeException e)
        {
            metrics.onRequest(header.apiKey(), RequestMetrics.Outcome.CLOSED, start);
            close(ctx);
            return;
        }
        final CompletableFuture<ApiMessage> response;
        try
        {
            response = handler.handle(new RequestContext(header, body, ctx.channel(), io));
        }
        catch (final RuntimeException e)
        {
            metrics.onRequest(header.apiKey(), RequestMetrics.Outcome.ERROR, start);
            queue(ctx, CompletableFuture.completedFuture(plain(encodeError(header, bodyBytes, e))));
            return;
        }
        if (response == null)
        {
            metrics.onRequest(header.apiKey(), RequestMetrics.Outcome.NONE, start);
            return;
        }
        // encode on the event loop, not on whichever thread completed the response (a log's writer, the coordinator)
        queue(ctx, response.handleAsync((r, e) ->
        {
            metrics.onRequest(header.apiKey(), e == null ? RequestMetrics.Outcome.RESPONSE : RequestMetrics.Outcome.ERROR,
                start);
            if (e == null)
            {
                metrics.onResponse(header.apiKey(), header.apiVersion(), r);
                return ResponseEncoder.encode(ctx.alloc(), header, header.apiVersion(), r);
            }
            return plain(encodeError(header, bodyBytes, e));
        }, ctx.executor()));
    }

    private ByteBuffer encodeError(final RequestHeader header, final ByteBuffer body, final Throwable error)
    {
        final Throwable cause = error instanceof java.util.concurrent.CompletionException && error.getCause() != null ?
            error.getCause() : error;
        if (!(cause instanceof org.apache.kafka.common.errors.ApiException))
        {
            LOG.log(System.Logger.Level.WARNING, "request " + header + " failed", cause);
        }
        final ApiMessage response = KafkaCodec.errorResponse(header, body.duplicate(), cause);
        metrics.onResponse(header.apiKey(), header.apiVersion(), response);
        return KafkaCodec.encodeResponse(header, response);
    }

    private static EncodedResponse plain(final ByteBuffer bytes)
    {
        return new EncodedResponse(Unpooled.wrappedBuffer(bytes), List.of());
    }

    private void queue(final ChannelHandlerContext ctx, final CompletableFuture<EncodedResponse> reply)
    {
        replies.addLast(reply);
        if (replies.size() >= MAX_IN_FLIGHT)
        {
            ctx.channel().config().setAutoRead(false);
        }
        if (reply.isDone() && ctx.executor().inEventLoop())
        {
            drain(ctx);
        }
        else
        {
            reply.whenComplete((r, e) -> ctx.executor().execute(() -> drain(ctx)));
        }
    }

    private void drain(final ChannelHandlerContext ctx)
    {
        boolean wrote = false;
        CompletableFuture<EncodedResponse> head;
        while (!closed && (head = replies.peekFirst()) != null && head.isDone())
        {
            replies.pollFirst();
            final EncodedResponse reply;
            try
            {
                reply = head.join();
            }
            catch (final RuntimeException e)
            {
                LOG.log(System.Logger.Level.WARNING, "no response could be encoded; closing " + ctx.channel(), e);
                close(ctx); // the error response itself could not be built
                return;
            }
            metrics.onBytesOut(reply.bytes().readableBytes() + 4);
            // fetched batches spliced into the bytes stay pinned until the socket took them (or the write failed)
            ctx.write(reply.bytes()).addListener(f -> reply.afterWrite());
            wrote = true;
        }
        if (wrote)
        {
            ctx.flush();
        }
        if (!closed && replies.size() < MAX_IN_FLIGHT / 2 && !ctx.channel().config().isAutoRead())
        {
            ctx.channel().config().setAutoRead(true);
        }
    }

    @Override
    public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause)
    {
        close(ctx); // an oversized or negative length prefix, or an I/O error: this connection only
    }

    @Override
    public void channelInactive(final ChannelHandlerContext ctx)
    {
        metrics.onDisconnect();
        closed = true;
        discardReplies();
    }

    private void close(final ChannelHandlerContext ctx)
    {
        closed = true;
        discardReplies();
        ctx.close();
    }

    /** Responses that will never be written give back their buffers and pinned batches, now or when they complete. */
    private void discardReplies()
    {
        CompletableFuture<EncodedResponse> reply;
        while ((reply = replies.pollFirst()) != null)
        {
            reply.thenAccept(EncodedResponse::discard);
        }
    }
}
