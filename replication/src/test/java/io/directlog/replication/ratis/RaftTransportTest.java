package io.directlog.replication.ratis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.ratis.RaftConfigKeys;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.netty.NettyConfigKeys;
import org.apache.ratis.rpc.SupportedRpcType;
import org.junit.jupiter.api.Test;

/** The transport setting: its values, its default, a clear refusal of anything else, and what it sets in Ratis. */
class RaftTransportTest
{
    @Test
    void parsesBothNamesInAnyCaseAndDefaultsWhenUnset()
    {
        assertEquals(RaftTransport.GRPC, RaftTransport.parse("grpc"));
        assertEquals(RaftTransport.NETTY, RaftTransport.parse(" Netty "));
        assertEquals(RaftTransport.DEFAULT, RaftTransport.parse(null));
        assertEquals(RaftTransport.DEFAULT, RaftTransport.parse(" "));
        assertEquals("netty", RaftTransport.NETTY.propertyValue());
        assertEquals(RaftTransport.NETTY, RaftTransport.parse(RaftTransport.NETTY.propertyValue()));
    }

    @Test
    void refusesAnythingElseNamingThePropertyAndTheValue()
    {
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
            () -> RaftTransport.parse("http"));
        assertTrue(e.getMessage().contains(RaftTransport.PROPERTY) && e.getMessage().contains("'http'"),
            e.getMessage());
    }

    @Test
    void setsRatisRpcTypeAndTheServerAddressOfTheChosenTransport()
    {
        final RaftProperties grpc = new RaftProperties();
        RaftTransport.GRPC.apply(grpc, "127.0.0.1", 4711);
        assertEquals(SupportedRpcType.GRPC, RaftConfigKeys.Rpc.type(grpc, s -> { }));
        assertEquals(4711, GrpcConfigKeys.Server.port(grpc));
        assertEquals("127.0.0.1", GrpcConfigKeys.Server.host(grpc));

        final RaftProperties netty = new RaftProperties();
        RaftTransport.NETTY.apply(netty, "127.0.0.1", 4712);
        assertEquals(SupportedRpcType.NETTY, RaftConfigKeys.Rpc.type(netty, s -> { }));
        assertEquals(4712, NettyConfigKeys.Server.port(netty));
        assertEquals("127.0.0.1", NettyConfigKeys.Server.host(netty));
    }
}
