package io.directlog.broker.protocol;

import java.nio.ByteBuffer;

import org.apache.kafka.common.message.ApiMessageType;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.RequestUtils;
import org.apache.kafka.common.requests.ResponseHeader;

/**
 * Request and response bytes through kafka-clients' generated message classes: nothing of the wire format is
 * written by hand here. Frames arrive without their length prefix (the pipeline strips and adds it).
 * <p>
 * Stateless; thread-safe.
 */
public final class KafkaCodec
{
    private KafkaCodec()
    {
    }

    /**
     * Parses a request header and leaves the buffer at the body.
     *
     * @param frame the request bytes after the length prefix.
     * @return the header.
     * @throws RuntimeException (Kafka's InvalidRequestException and others) when the header is unreadable or the
     *                          API key is unknown: the connection is closed, as Kafka does.
     */
    public static RequestHeader parseHeader(final ByteBuffer frame)
    {
        return RequestHeader.parse(frame);
    }

    /**
     * Parses a request body at the header's version.
     *
     * @param header the parsed header.
     * @param body   the bytes after the header.
     * @return the body, e.g. a {@code ProduceRequestData}.
     */
    public static ApiMessage parseBody(final RequestHeader header, final ByteBuffer body)
    {
        final ApiMessage message = ApiMessageType.fromApiKey(header.apiKey().id).newRequest();
        message.read(new ByteBufferAccessor(body), header.apiVersion());
        return message;
    }

    /**
     * Builds the error response Kafka itself would send for a request that failed as a whole, with the shape of
     * the request's version.
     *
     * @param header the request's header.
     * @param body   the request's body bytes (a fresh view: it is parsed again).
     * @param error  what went wrong.
     * @return the response body.
     */
    public static ApiMessage errorResponse(final RequestHeader header, final ByteBuffer body, final Throwable error)
    {
        final AbstractRequest request = AbstractRequest.parseRequest(header.apiKey(), header.apiVersion(),
            new ByteBufferAccessor(body)).request;
        return request.getErrorResponse(0, error).data();
    }

    /**
     * Serializes a response with the header version the request's version calls for (ApiVersions: always v0).
     *
     * @param header   the request's header.
     * @param response the response body.
     * @return the bytes without the length prefix.
     */
    public static ByteBuffer encodeResponse(final RequestHeader header, final ApiMessage response)
    {
        return encodeResponse(header, header.apiVersion(), response);
    }

    /**
     * Serializes a response at a given body version (KIP-511's unsupported-ApiVersions answer is a v0 body).
     *
     * @param header      the request's header.
     * @param bodyVersion the version to write the body at.
     * @param response    the response body.
     * @return the bytes without the length prefix.
     */
    public static ByteBuffer encodeResponse(final RequestHeader header, final short bodyVersion,
        final ApiMessage response)
    {
        final ResponseHeader rh = header.toResponseHeader();
        return RequestUtils.serialize(rh.data(), rh.headerVersion(), response, bodyVersion);
    }

    /**
     * @param key the API.
     * @return true for the APIs whose requests can be answered by a v0 ApiVersions body (KIP-511).
     */
    public static boolean isApiVersions(final ApiKeys key)
    {
        return key == ApiKeys.API_VERSIONS;
    }
}
