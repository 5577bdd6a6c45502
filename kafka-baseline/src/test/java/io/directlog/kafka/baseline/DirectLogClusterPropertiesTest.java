package io.directlog.kafka.baseline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The cluster launcher hands the caller's {@code directlog.cluster.*} settings to the node JVMs it starts (without it,
 * {@code DIRECTLOG_JAVA_OPTS=-Ddirectlog.cluster.rpc=grpc ./directlog bench-broker} ran the nodes on the default
 * transport).
 */
class DirectLogClusterPropertiesTest
{
    private static final String RPC = "directlog.cluster.rpc";
    private static final String IN_FLIGHT = "directlog.cluster.entriesInFlight";

    private final String rpcBefore = System.getProperty(RPC);
    private final String inFlightBefore = System.getProperty(IN_FLIGHT);

    @AfterEach
    void restore()
    {
        restore(RPC, rpcBefore);
        restore(IN_FLIGHT, inFlightBefore);
    }

    private static void restore(final String name, final String value)
    {
        if (value == null)
        {
            System.clearProperty(name);
        }
        else
        {
            System.setProperty(name, value);
        }
    }

    @Test
    void clusterSettingsOfThisJvmBecomeOptionsOfTheNodes()
    {
        System.setProperty(RPC, "grpc");
        System.setProperty(IN_FLIGHT, "0");
        final List<String> options = DirectLogCluster.clusterProperties();
        assertTrue(options.containsAll(List.of("-D" + IN_FLIGHT + "=0", "-D" + RPC + "=grpc")), options.toString());
        assertEquals(options.stream().sorted().toList(), options, "sorted, so a node's command line reads the same");
    }

    @Test
    void otherPropertiesStayHere()
    {
        assertTrue(DirectLogCluster.clusterProperties().stream().noneMatch(o -> o.contains("java.")),
            DirectLogCluster.clusterProperties().toString());
    }
}
