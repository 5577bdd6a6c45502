package io.directlog.kafka.baseline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class CompatOutputTest
{
    @Test
    void allPassedWhenSummaryAgreesWithCaseLines()
    {
        final CompatOutput output = CompatOutput.parse("kcat", List.of(
            "%4|... some librdkafka log line",
            "CASE kcat metadata PASS broker advertised at 127.0.0.1:1",
            "CASE kcat produce PASS 10 records",
            "COMPAT-SUMMARY client=kcat passed=2 failed=0"));

        assertTrue(output.allPassed());
        assertEquals(List.of("metadata PASS broker advertised at 127.0.0.1:1", "produce PASS 10 records"),
            output.passedCases());
    }

    @Test
    void failedCaseFailsEvenWhenSummarySaysZeroFailed()
    {
        final CompatOutput output = CompatOutput.parse("kcat", List.of(
            "CASE kcat metadata PASS ok",
            "CASE kcat consume FAIL got 3 lines",
            "COMPAT-SUMMARY client=kcat passed=1 failed=0"));

        assertFalse(output.allPassed());
        assertEquals(List.of("consume FAIL got 3 lines"), output.failedCases());
    }

    @Test
    void missingSummaryIsNotAPass()
    {
        assertFalse(CompatOutput.parse("kcat", List.of("CASE kcat metadata PASS ok")).allPassed());
    }

    @Test
    void summaryCountingOtherThanTheCaseLinesIsNotAPass()
    {
        assertFalse(CompatOutput.parse("kcat", List.of(
            "CASE kcat metadata PASS ok",
            "COMPAT-SUMMARY client=kcat passed=5 failed=0")).allPassed());
    }

    @Test
    void otherClientsLinesAreIgnored()
    {
        final CompatOutput output = CompatOutput.parse("kafkajs", List.of(
            "CASE kcat metadata FAIL nope",
            "CASE kafkajs produce PASS ok",
            "COMPAT-SUMMARY client=kafkajs passed=1 failed=0"));

        assertTrue(output.allPassed());
    }
}
