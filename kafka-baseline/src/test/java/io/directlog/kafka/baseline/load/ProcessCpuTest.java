package io.directlog.kafka.baseline.load;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ProcessCpuTest
{
    @Test
    void parsesUtimeAndStimeAfterACommandNameWithSpaces()
    {
        final String stat = "4242 (java (x) y) S 1 4242 4242 0 -1 4194560 1000 0 0 0 250 50 0 0 20 0 40 0 100 " +
            "1000000 5000 18446744073709551615";
        assertEquals(3.0, ProcessCpu.parseStat(stat), 1e-9);
    }

    @Test
    void readsThisProcessFromProc()
    {
        final double seconds = ProcessCpu.seconds(ProcessHandle.current().pid());
        assertTrue(Double.isNaN(seconds) || seconds > 0, "cpu " + seconds);
    }
}
