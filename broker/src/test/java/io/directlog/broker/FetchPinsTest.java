package io.directlog.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/** Fetches read stored batches in place (pinned cache pages); every pin is given back once the bytes were sent. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
@ExtendWith(NettyLeakCheck.class)
class FetchPinsTest
{
    @Test
    void consumersReadEveryRecordAndLeaveNoPageOrBufferPinned() throws Exception
    {
        final Path dir = BrokerTestSupport.newDirectory("fetch-pins");
        final int records = 3_000;
        try (KafkaBroker broker = KafkaBroker.start(BrokerTestSupport.config(dir)))
        {
            BrokerTestSupport.createTopic(broker, "pins", 2, Map.of());
            try (KafkaProducer<String, String> producer = BrokerTestSupport.producer(broker, Map.of()))
            {
                for (int i = 0; i < records; i++)
                {
                    producer.send(new ProducerRecord<>("pins", i % 2, null, "value-" + i + "-" + "x".repeat(i % 700)));
                }
                producer.flush();
            }
            for (int round = 0; round < 2; round++)
            {
                try (KafkaConsumer<String, String> consumer = BrokerTestSupport.consumer(broker,
                    Map.of("max.partition.fetch.bytes", 64 * 1024)))
                {
                    consumer.assign(List.of(new TopicPartition("pins", 0), new TopicPartition("pins", 1)));
                    consumer.seekToBeginning(consumer.assignment());
                    final var got = BrokerTestSupport.pollUntil(consumer, records);
                    assertEquals(records, got.size());
                    for (final var r : got)
                    {
                        final int i = Integer.parseInt(r.value().substring(6, r.value().indexOf('-', 6)));
                        assertEquals("value-" + i + "-" + "x".repeat(i % 700), r.value());
                        assertEquals(i % 2, r.partition());
                    }
                }
            }
            // the consumers are closed: every response was written or dropped, so nothing may stay pinned
            assertEquals(0, broker.cacheStats().pinnedPages(), "cache pages still pinned by fetched batches");
        }
    }
}
