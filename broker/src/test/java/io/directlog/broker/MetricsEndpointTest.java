package io.directlog.broker;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.net.URI;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MetricsEndpointTest
{
    @Test
    void metricsEndpointServesRequestAndEngineMeters() throws Exception
    {
        final BrokerConfig config = BrokerConfig.builder(BrokerTestSupport.newDirectory("metrics")).port(0)
            .metricsPort(0).segmentBytes(1 << 20).memoryBudget(64L << 20).build();
        try (KafkaBroker broker = KafkaBroker.start(config))
        {
            try (RawClient c = new RawClient(broker))
            {
                c.call(new ApiVersionsRequestData(), (short)0);
            }
            final URL url = URI.create("http://127.0.0.1:" + broker.metricsPort() + "/metrics").toURL();
            final String body;
            try (InputStream in = url.openStream())
            {
                body = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
            assertTrue(body.contains("directlog_broker_requests_seconds_count{api=\"ApiVersions\",outcome=\"response\"} 1"),
                body.lines().filter(l -> l.contains("ApiVersions")).findFirst().orElse("no ApiVersions line"));
            assertTrue(body.contains("directlog_broker_bytes_in_bytes_total"), "bytes in");
            assertTrue(body.contains("directlog_broker_partitions"), "partitions gauge");
        }
    }
}
