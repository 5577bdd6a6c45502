package io.directlog.cli.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.directlog.broker.ClusterConfig;
import io.directlog.cli.UsageException;

class ClusterCommandTest
{
    @Test
    void eachNodeGetsTheSamePeersAndTopicsAndItsOwnIdAndDirectory()
    {
        final List<List<String>> commands = ClusterCommand.commands(Path.of("/data"), 29092, "demo:3");
        assertEquals(3, commands.size());
        for (int n = 1; n <= 3; n++)
        {
            final List<String> cmd = commands.get(n - 1);
            final List<String> args = cmd.subList(cmd.indexOf("broker"), cmd.size());
            assertEquals(List.of("broker", "--node-id", Integer.toString(n), "--peers",
                "1=127.0.0.1:29092:29192,2=127.0.0.1:29093:29193,3=127.0.0.1:29094:29194", "--topics", "demo:3",
                "--dir", Path.of("/data").resolve("node-" + n).toString()), args);
            // the peers parse as the broker parses them
            final List<ClusterConfig.Node> nodes = ClusterConfig.parseNodes(args.get(4));
            assertEquals(29091 + n, nodes.get(n - 1).kafkaPort());
            assertEquals(29191 + n, nodes.get(n - 1).raftPort());
        }
        assertEquals("127.0.0.1:29092,127.0.0.1:29093,127.0.0.1:29094", ClusterCommand.bootstrap(29092));
    }

    @Test
    void aBasePortWithoutRoomIsRefused()
    {
        final UsageException e = assertThrows(UsageException.class,
            () -> new ClusterCommand().run(new String[] {"--base-port", "65500"}));
        assertTrue(e.getMessage().contains("--base-port"), e.getMessage());
    }

    @Test
    void malformedPeersAndTopicsAreNamed()
    {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> ClusterConfig.parseNodes("1=h:1"))
            .getMessage().contains("1=h:1"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> ClusterConfig.parseNodes("x=h:1:2"))
            .getMessage().contains("x=h:1:2"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> ClusterConfig.parseTopics("t:many"))
            .getMessage().contains("t:many"));
        assertThrows(IllegalArgumentException.class, () -> new ClusterConfig(ClusterConfig.parseNodes(
            "1=h:1:2,1=h:3:4"), ClusterConfig.parseTopics("t:1"), ClusterConfig.ELECTION_TIMEOUT_MIN_DEFAULT,
            ClusterConfig.ELECTION_TIMEOUT_MAX_DEFAULT));
    }
}
