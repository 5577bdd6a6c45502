package io.directlog.replication.ratis;

import java.util.Locale;

import org.apache.ratis.RaftConfigKeys;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.netty.NettyConfigKeys;
import org.apache.ratis.rpc.SupportedRpcType;

/**
 * Which of Ratis's transports carries a node's Raft traffic (elections, AppendEntries, heartbeats). Both are in the
 * build, shaded by Ratis, so the choice is a setting, not a build: {@value #PROPERTY} ({@code grpc} or
 * {@code netty}) selects it for every node started in the JVM, and the cluster tests pass it on to the broker JVMs
 * they start, so both can be compared under the same load from one build. docs/replication.md says what each does
 * and what was measured.
 * <p>
 * Immutable.
 */
public enum RaftTransport
{
    /**
     * Ratis's gRPC: each group's appender has a stream of its own, answered asynchronously, heartbeats on a
     * separate channel. A follower's fsync for one group does not hold up another group's heartbeats.
     */
    GRPC,
    /**
     * Ratis's Netty: one connection per pair of nodes for all groups, and its server answers an AppendEntries on
     * that connection's event loop only after the entry is written and flushed, so every group between two nodes
     * waits behind one group's fsync (issue 22's leader churn under load). A failed call reconnects at once.
     */
    NETTY;

    /** The system property that selects the transport of nodes started without an explicit choice. */
    public static final String PROPERTY = "directlog.cluster.rpc";

    /**
     * The transport when {@value #PROPERTY} is not set: Netty, on the figures of one build alternating both
     * (docs/replication.md, "Transport"): no fewer leader changes with gRPC in the load test (0 on both), more
     * unasked elections with gRPC in the kill -9 suite, failover p99 within 5 s on both at the same load.
     */
    public static final RaftTransport DEFAULT = NETTY;

    /**
     * @return the transport {@value #PROPERTY} names, or {@link #DEFAULT} when it is not set.
     * @throws IllegalArgumentException when the property holds anything but {@code grpc} or {@code netty}.
     */
    public static RaftTransport configured()
    {
        return parse(System.getProperty(PROPERTY));
    }

    /**
     * @param value {@code grpc} or {@code netty} (any case), or null / blank for {@link #DEFAULT}.
     * @return the transport.
     * @throws IllegalArgumentException naming the property and the value when it is neither.
     */
    public static RaftTransport parse(final String value)
    {
        if (value == null || value.isBlank())
        {
            return DEFAULT;
        }
        return switch (value.trim().toLowerCase(Locale.ROOT))
        {
            case "grpc" -> GRPC;
            case "netty" -> NETTY;
            default -> throw new IllegalArgumentException(PROPERTY + " must be grpc or netty, got '" + value + "'");
        };
    }

    /** @return the value {@value #PROPERTY} takes for this transport ({@code grpc}, {@code netty}). */
    public String propertyValue()
    {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Sets the transport and the address its server listens on. */
    void apply(final RaftProperties p, final String host, final int port)
    {
        switch (this)
        {
            case GRPC ->
            {
                RaftConfigKeys.Rpc.setType(p, SupportedRpcType.GRPC);
                GrpcConfigKeys.Server.setHost(p, host);
                GrpcConfigKeys.Server.setPort(p, port);
            }
            case NETTY ->
            {
                RaftConfigKeys.Rpc.setType(p, SupportedRpcType.NETTY);
                NettyConfigKeys.Server.setHost(p, host);
                NettyConfigKeys.Server.setPort(p, port);
            }
        }
    }
}
