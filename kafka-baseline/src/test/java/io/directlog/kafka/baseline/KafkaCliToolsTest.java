package io.directlog.kafka.baseline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Apache Kafka 4.4.0's own command-line tools against the broker, each run as its shell script would run it: the
 * tool's main class in a child JVM (the kafka-tools jar on this module's test classpath). kafka-topics,
 * kafka-console-producer and -consumer, kafka-consumer-groups and kafka-configs.
 * <p>
 * DirectLog's broker by default; {@code -Ddirectlog.cli.target=kafka} runs the same checks against Apache Kafka,
 * the reference that proves them right.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class KafkaCliToolsTest
{
    /** Upper bound of one tool run; a run that needs it has failed. */
    private static final Duration TOOL_TIMEOUT = Duration.ofSeconds(90);

    private static BrokerUnderTest broker;
    private static Path work;

    /** What a tool run printed, and how it ended. */
    private record Run(int exitCode, String out, String err)
    {
        Run assertOk()
        {
            assertEquals(0, exitCode, "exit code; stdout:\n" + out + "\nstderr:\n" + err);
            return this;
        }
    }

    @BeforeAll
    static void start() throws IOException
    {
        work = Files.createTempDirectory("kafka-cli-");
        broker = "kafka".equals(System.getProperty("directlog.cli.target", "directlog")) ?
            KafkaNode.start(new KafkaNode.Config()) : DirectLogNode.start();
    }

    @AfterAll
    static void stop()
    {
        if (broker != null)
        {
            broker.close();
        }
    }

    private static Run run(final String mainClass, final String stdin, final String... args) throws Exception
    {
        final List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx256m");
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(mainClass);
        command.addAll(List.of(args));
        final Path out = Files.createTempFile(work, "out-", ".txt");
        final Path err = Files.createTempFile(work, "err-", ".txt");
        final Process p = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        try (OutputStream in = p.getOutputStream())
        {
            if (stdin != null)
            {
                in.write(stdin.getBytes(StandardCharsets.UTF_8));
            }
        }
        if (!p.waitFor(TOOL_TIMEOUT.toSeconds(), TimeUnit.SECONDS))
        {
            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            throw new AssertionError(mainClass + " " + String.join(" ", args) + " did not end in " + TOOL_TIMEOUT +
                "; stdout:\n" + Files.readString(out) + "\nstderr:\n" + Files.readString(err));
        }
        return new Run(p.exitValue(), Files.readString(out), Files.readString(err));
    }

    private static Admin admin()
    {
        final Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap());
        return Admin.create(p);
    }

    private static String topics()
    {
        return "org.apache.kafka.tools.TopicCommand";
    }

    @Test
    void kafkaTopicsCreatesListsAndDescribes() throws Exception
    {
        final String b = broker.bootstrap();
        assertTrue(run(topics(), null, "--bootstrap-server", b, "--create", "--topic", "cli-topics", "--partitions",
            "3", "--replication-factor", "1", "--config", "retention.ms=3600000").assertOk().out()
            .contains("Created topic cli-topics."));
        assertTrue(run(topics(), null, "--bootstrap-server", b, "--list").assertOk().out().lines()
            .anyMatch("cli-topics"::equals));
        final String described = run(topics(), null, "--bootstrap-server", b, "--describe", "--topic", "cli-topics")
            .assertOk().out();
        assertTrue(described.contains("PartitionCount: 3"), described);
        assertTrue(described.contains("retention.ms=3600000"), described);
        for (int partition = 0; partition < 3; partition++)
        {
            assertTrue(described.contains("Partition: " + partition + "\tLeader: "), described);
        }
        assertTrue(run(topics(), null, "--bootstrap-server", b, "--alter", "--topic", "cli-topics", "--partitions",
            "4").assertOk().exitCode() == 0);
        assertTrue(run(topics(), null, "--bootstrap-server", b, "--describe", "--topic", "cli-topics").assertOk()
            .out().contains("PartitionCount: 4"));
    }

    /** Creates a topic, writes three lines with the console producer, reads them with the console consumer. */
    private static void produceAndConsume(final String topic, final String group) throws Exception
    {
        final String b = broker.bootstrap();
        run(topics(), null, "--bootstrap-server", b, "--create", "--topic", topic, "--partitions", "1",
            "--replication-factor", "1").assertOk();
        run("org.apache.kafka.tools.ConsoleProducer", "one\ntwo\nthree\n", "--bootstrap-server", b, "--topic",
            topic, "--producer-property", "acks=all").assertOk();
        final Run consumed = run("org.apache.kafka.tools.consumer.ConsoleConsumer", null, "--bootstrap-server", b,
            "--topic", topic, "--group", group, "--from-beginning", "--max-messages", "3", "--timeout-ms", "60000")
            .assertOk();
        assertEquals(List.of("one", "two", "three"), consumed.out().lines().toList());
    }

    @Test
    void consoleProducerAndConsumerRoundTrip() throws Exception
    {
        produceAndConsume("cli-console", "cli-console-group");
        // a second consumer of the same group starts at the committed end: nothing more within its timeout
        final Run again = run("org.apache.kafka.tools.consumer.ConsoleConsumer", null, "--bootstrap-server",
            broker.bootstrap(), "--topic", "cli-console", "--group", "cli-console-group", "--max-messages", "1",
            "--timeout-ms", "5000");
        assertEquals(List.of(), again.out().lines().toList(), "the group's commits were kept; stderr:\n" + again.err());
    }

    @Test
    void kafkaConsumerGroupsListsDescribesAndResetsOffsets() throws Exception
    {
        produceAndConsume("cli-groups", "cli-group");
        final String b = broker.bootstrap();
        final String groups = "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand";
        assertTrue(run(groups, null, "--bootstrap-server", b, "--list").assertOk().out().lines()
            .anyMatch("cli-group"::equals));
        final String described = run(groups, null, "--bootstrap-server", b, "--describe", "--group", "cli-group")
            .assertOk().out();
        final String row = described.lines().filter(l -> l.contains("cli-groups")).findFirst().orElse("");
        // GROUP TOPIC PARTITION CURRENT-OFFSET LOG-END-OFFSET LAG ...
        assertEquals(List.of("cli-group", "cli-groups", "0", "3", "3", "0"),
            List.of(row.trim().split("\\s+")).subList(0, 6), described);

        final String reset = run(groups, null, "--bootstrap-server", b, "--reset-offsets", "--group", "cli-group",
            "--topic", "cli-groups", "--to-earliest", "--execute").assertOk().out();
        assertTrue(reset.lines().anyMatch(l -> l.trim().split("\\s+").length >= 4 &&
            l.trim().split("\\s+")[1].equals("cli-groups") && l.trim().endsWith("0")), reset);
        try (Admin admin = admin())
        {
            final Map<TopicPartition, OffsetAndMetadata> committed =
                admin.listConsumerGroupOffsets("cli-group").partitionsToOffsetAndMetadata().get(60, TimeUnit.SECONDS);
            assertEquals(0, committed.get(new TopicPartition("cli-groups", 0)).offset(), "reset to the earliest");
        }
    }

    @Test
    void kafkaConfigsAltersAndDescribesATopic() throws Exception
    {
        final String b = broker.bootstrap();
        final String configs = "org.apache.kafka.tools.ConfigCommand";
        run(topics(), null, "--bootstrap-server", b, "--create", "--topic", "cli-configs", "--partitions", "1",
            "--replication-factor", "1").assertOk();
        run(configs, null, "--bootstrap-server", b, "--entity-type", "topics", "--entity-name", "cli-configs",
            "--alter", "--add-config", "retention.ms=7200000,retention.bytes=1048576").assertOk();
        String described = run(configs, null, "--bootstrap-server", b, "--entity-type", "topics", "--entity-name",
            "cli-configs", "--describe").assertOk().out();
        assertTrue(described.contains("retention.ms=7200000"), described);
        assertTrue(described.contains("retention.bytes=1048576"), described);
        run(configs, null, "--bootstrap-server", b, "--entity-type", "topics", "--entity-name", "cli-configs",
            "--alter", "--delete-config", "retention.bytes").assertOk();
        described = run(configs, null, "--bootstrap-server", b, "--entity-type", "topics", "--entity-name",
            "cli-configs", "--describe").assertOk().out();
        assertTrue(described.contains("retention.ms=7200000"), described);
        assertTrue(!described.contains("retention.bytes=1048576"), described);
    }
}
