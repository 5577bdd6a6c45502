package io.directlog.cli.brokerbench;

import java.util.List;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** DIRECTLOG_BROKER_JAVA_OPTS reaches the broker's JVM as separate options (a profile of the broker needs it). */
class BrokerJavaOptsTest
{
    @Test
    void unsetOrBlankAddsNothing()
    {
        assertEquals(List.of(), BrokerBenchCommand.extraBrokerOptions(null));
        assertEquals(List.of(), BrokerBenchCommand.extraBrokerOptions("  \t "));
    }

    @Test
    void optionsAreSplitOnWhitespace()
    {
        assertEquals(List.of("-XX:StartFlightRecording=filename=/tmp/b.jfr,settings=profile", "-Xlog:gc"),
            BrokerBenchCommand.extraBrokerOptions("  -XX:StartFlightRecording=filename=/tmp/b.jfr,settings=profile\n -Xlog:gc "));
    }
}
