package io.directlog.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.common.message.ApiMessageType;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.requests.AbstractResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.directlog.broker.protocol.SupportedApis;

/**
 * Every advertised version of every API, with the codec's default request: the broker answers with a response the
 * client's codec can read at that version, and keeps the connection. Catches fields written at versions that do not
 * have them, and response shapes that differ by version.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class VersionSweepTest
{
    @Test
    void everyAdvertisedVersionGetsAReadableResponse() throws Exception
    {
        final List<String> failures = new ArrayList<>();
        try (KafkaBroker broker = KafkaBroker.start(BrokerTestSupport.config(BrokerTestSupport.newDirectory("sweep"))))
        {
            for (final Map.Entry<ApiKeys, short[]> e : SupportedApis.ranges().entrySet())
            {
                final ApiKeys key = e.getKey();
                for (short v = SupportedApis.lowestParsable(key); v <= e.getValue()[1]; v++)
                {
                    final ApiMessage request = ApiMessageType.fromApiKey(key.id).newRequest();
                    if (request instanceof ProduceRequestData produce)
                    {
                        produce.setAcks((short)-1); // acks=0 has no response to read
                    }
                    try (RawClient c = new RawClient(broker))
                    {
                        final AbstractResponse r = c.call(request, v);
                        if (r.apiKey() != key)
                        {
                            failures.add(key + " v" + v + ": answered as " + r.apiKey());
                        }
                    }
                    catch (final IOException | RuntimeException ex)
                    {
                        failures.add(key + " v" + v + ": " + ex);
                    }
                }
            }
        }
        assertEquals(List.of(), failures);
    }
}
