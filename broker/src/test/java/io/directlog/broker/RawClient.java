package io.directlog.broker;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;

import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.RequestUtils;

/** A blocking test client over one socket: kafka-clients encodes the requests and decodes the responses. */
final class RawClient implements AutoCloseable
{
    private final Socket socket;
    private final DataOutputStream out;
    private final DataInputStream in;
    private int correlationId;

    RawClient(final KafkaBroker broker) throws IOException
    {
        this(broker.config().host(), broker.port());
    }

    /** A connection to a broker in another process (a cluster node). */
    RawClient(final String host, final int port) throws IOException
    {
        socket = new Socket(host, port);
        socket.setSoTimeout((int)BrokerTestSupport.TIMEOUT.toMillis());
        out = new DataOutputStream(socket.getOutputStream());
        in = new DataInputStream(socket.getInputStream());
    }

    /** @param timeout how long a read may wait before it fails with SocketTimeoutException. */
    void readTimeout(final java.time.Duration timeout) throws IOException
    {
        socket.setSoTimeout((int)timeout.toMillis());
    }

    RequestHeader send(final ApiMessage request, final short version) throws IOException
    {
        final RequestHeader header = new RequestHeader(ApiKeys.forId(request.apiKey()), version, "raw-test",
            ++correlationId);
        final ByteBuffer bytes = RequestUtils.serialize(header.data(), header.headerVersion(), request, version);
        sendFrame(bytes.array(), bytes.arrayOffset() + bytes.position(), bytes.remaining());
        return header;
    }

    AbstractResponse call(final ApiMessage request, final short version) throws IOException
    {
        return receive(send(request, version));
    }

    AbstractResponse receive(final RequestHeader header) throws IOException
    {
        final byte[] frame = new byte[in.readInt()];
        in.readFully(frame);
        return AbstractResponse.parseResponse(ByteBuffer.wrap(frame), header);
    }

    void sendFrame(final byte[] bytes, final int offset, final int length) throws IOException
    {
        out.writeInt(length);
        out.write(bytes, offset, length);
        out.flush();
    }

    void sendRaw(final byte[] bytes) throws IOException
    {
        out.write(bytes);
        out.flush();
    }

    /** @return true when the broker closed the connection (end of stream or reset) before the timeout. */
    boolean closedByBroker() throws IOException
    {
        try
        {
            while (true)
            {
                if (in.read() < 0)
                {
                    return true;
                }
            }
        }
        catch (final EOFException | java.net.SocketException e)
        {
            return true;
        }
        catch (final SocketTimeoutException e)
        {
            return false;
        }
    }

    @Override
    public void close() throws IOException
    {
        socket.close();
    }
}
