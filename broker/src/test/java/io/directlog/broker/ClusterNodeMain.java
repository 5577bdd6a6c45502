package io.directlog.broker;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;

import io.directlog.broker.topic.Partition;
import io.directlog.broker.topic.ReplicatedTopicPartition;
import io.directlog.broker.topic.Topic;
import io.directlog.replication.ReplicatedBatch;
import io.directlog.replication.ReplicatedPartition;
import io.directlog.storage.Durability;

/**
 * One cluster broker in a process of its own, for the kill -9 and SIGSTOP suite ({@link ClusterProcessFaultTest}):
 * starts node N of the cluster, prints {@link #READY} and its pid, then answers debug questions read from its
 * standard input, one a line, until the input ends (the test closed it, or died), when it closes the broker.
 * <p>
 * The questions are the debug endpoint the suite needs to compare replicas while they run, which Kafka cannot
 * answer (a follower serves no Fetch): {@code <seq> STATE} gives each partition's role, leader, term, high
 * watermark and log end; {@code <seq> DIGEST topic partition upTo} the SHA-256 of the committed batches below
 * upTo (base offset, record count, leader epoch and stamped bytes of each). Answers start with {@code @<seq> }.
 * <p>
 * Arguments: data directory, node id, peers ({@code id=host:kafkaPort:raftPort,...}), topics
 * ({@code name:partitions,...}), least and most election timeout in milliseconds, and optionally the offsets topic's
 * partition count and the JVM pause in milliseconds after which Ratis closes the Raft server (its fail-stop test).
 */
public final class ClusterNodeMain
{
    static final String READY = "CLUSTER-NODE-READY";

    private ClusterNodeMain()
    {
    }

    /**
     * @param args see the class comment.
     * @throws Exception when the broker cannot start.
     */
    public static void main(final String[] args) throws Exception
    {
        final long mainAt = System.currentTimeMillis();
        final long jvmStartedAt = ProcessHandle.current().info().startInstant().map(i -> i.toEpochMilli())
            .orElse(mainAt);
        final ClusterConfig cluster = new ClusterConfig(ClusterConfig.parseNodes(args[2]),
            ClusterConfig.parseTopics(args[3]), Duration.ofMillis(Long.parseLong(args[4])),
            Duration.ofMillis(Long.parseLong(args[5])),
            args.length > 6 ? Integer.parseInt(args[6]) : ClusterConfig.OFFSETS_PARTITIONS_DEFAULT);
        final BrokerConfig.Builder options = BrokerConfig.builder(Path.of(args[0]));
        if (args.length > 7)
        {
            options.raftPauseCloseThreshold(Duration.ofMillis(Long.parseLong(args[7])));
        }
        final int nodeId = Integer.parseInt(args[1]);
        final ClusterConfig.Node self = cluster.node(nodeId);
        // 64 MiB: the write pages of the partitions' 2 MiB segments and the internal logs, with room to spare
        final KafkaBroker broker = KafkaBroker.start(options.host(self.host())
            .port(self.kafkaPort()).nodeId(nodeId).cluster(cluster).segmentBytes(2 << 20).memoryBudget(64L << 20)
            .durability(Durability.DSYNC).ioThreads(2).initialRebalanceDelay(Duration.ZERO).build());
        // the start's phases ride on the ready line: the suite summarises them per restart
        System.out.println(READY + " " + ProcessHandle.current().pid() + " jvm_to_main_ms=" + (mainAt - jvmStartedAt) +
            " main_to_ready_ms=" + (System.currentTimeMillis() - mainAt) + " " + broker.startPhases());
        System.out.flush();
        final BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null)
        {
            final String[] words = line.trim().split(" ");
            String answer;
            try
            {
                answer = answer(broker, words);
            }
            catch (final RuntimeException e)
            {
                answer = "ERROR " + e;
            }
            System.out.println("@" + words[0] + " " + answer);
            System.out.flush();
        }
        broker.close();
        System.exit(0); // Ratis and Netty leave non-daemon threads behind
    }

    private static String answer(final KafkaBroker broker, final String[] words)
    {
        return switch (words.length > 1 ? words[1] : "")
        {
            case "STATE" -> state(broker);
            case "DIGEST" -> digest(replica(broker, words[2], Integer.parseInt(words[3])), Long.parseLong(words[4]));
            default -> "ERROR unknown question " + String.join(" ", words);
        };
    }

    /**
     * {@code topic/partition:L|F:leaderId:epoch:highWatermark:logEnd:leaderChangedAt:leaderReadyAt:takeoverAskedAt:
     * takeoverDoneAt} for every partition, space-separated; the last four are wall-clock millis (-1: none), the
     * take-over's only when it is of the current term.
     */
    private static String state(final KafkaBroker broker)
    {
        final StringBuilder out = new StringBuilder("STATE");
        for (final Topic t : broker.topics().topics())
        {
            for (final Partition p : t.partitions())
            {
                if (!(p instanceof ReplicatedTopicPartition rp))
                {
                    continue;
                }
                final ReplicatedPartition r = rp.replica();
                out.append(' ').append(t.name()).append('/').append(p.index()).append(':')
                    .append(r.isLeader() ? 'L' : 'F').append(':').append(r.leaderId().orElse("-")).append(':')
                    .append(r.leaderEpoch()).append(':').append(r.highWatermark()).append(':')
                    .append(r.logEndOffset());
                final ReplicatedTopicPartition.Takeover t2 = rp.takeover();
                final boolean current = t2.epoch() == r.leaderEpoch();
                out.append(':').append(r.leaderChangedAtMillis()).append(':').append(r.leaderReadyAtMillis())
                    .append(':').append(current ? t2.askedAtMillis() : -1).append(':')
                    .append(current ? t2.doneAtMillis() : -1);
            }
        }
        return out.toString();
    }

    private static ReplicatedPartition replica(final KafkaBroker broker, final String topic, final int partition)
    {
        return ((ReplicatedTopicPartition)broker.topics().topic(topic).partition(partition)).replica();
    }

    /** The committed batches from the log start to upTo, hashed; "BEHIND hw" when upTo is not committed here. */
    private static String digest(final ReplicatedPartition replica, final long upTo)
    {
        final long hw = replica.highWatermark();
        if (hw < upTo)
        {
            return "BEHIND " + hw;
        }
        final MessageDigest sha = sha256();
        final ByteBuffer fields = ByteBuffer.allocate(Long.BYTES + 2 * Integer.BYTES);
        long offset = replica.startOffset();
        int batches = 0;
        while (offset < upTo)
        {
            final List<ReplicatedBatch> read = replica.read(offset, 1 << 20);
            if (read.isEmpty())
            {
                return "SHORT " + offset;
            }
            for (final ReplicatedBatch b : read)
            {
                if (b.baseOffset() >= upTo)
                {
                    break;
                }
                fields.clear().putLong(b.baseOffset()).putInt(b.recordCount()).putInt(b.leaderEpoch());
                sha.update(fields.array());
                sha.update(b.payload());
                batches++;
                offset = b.nextOffset();
            }
        }
        if (offset != upTo)
        {
            return "SPLIT " + offset; // upTo falls inside a batch: not a batch boundary on this replica
        }
        return "DIGEST " + HexFormat.of().formatHex(sha.digest()) + " " + batches;
    }

    private static MessageDigest sha256()
    {
        try
        {
            return MessageDigest.getInstance("SHA-256");
        }
        catch (final NoSuchAlgorithmException e)
        {
            throw new IllegalStateException(e);
        }
    }
}
