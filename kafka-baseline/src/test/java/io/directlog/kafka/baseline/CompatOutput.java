package io.directlog.kafka.baseline;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a client's compat script reported: its {@code CASE <client> <name> PASS|FAIL <detail>} lines and its
 * {@code COMPAT-SUMMARY client=<name> passed=N failed=M} line. Other lines (client logs) are ignored.
 *
 * <p>Immutable.
 */
record CompatOutput(List<String> caseLines, List<String> passedCases, List<String> failedCases, String summary,
                    int summaryPassed, int summaryFailed)
{
    private static final Pattern SUMMARY =
        Pattern.compile("^COMPAT-SUMMARY client=(\\S+) passed=(\\d+) failed=(\\d+)\\s*$");

    static CompatOutput parse(final String client, final List<String> lines)
    {
        final List<String> caseLines = new ArrayList<>();
        final List<String> passed = new ArrayList<>();
        final List<String> failed = new ArrayList<>();
        String summary = null;
        int summaryPassed = -1;
        int summaryFailed = -1;
        final String casePrefix = "CASE " + client + " ";
        for (final String line : lines)
        {
            if (line.startsWith(casePrefix))
            {
                caseLines.add(line);
                final String rest = line.substring(casePrefix.length());
                final String[] nameAndVerdict = rest.split(" ", 3);
                if (nameAndVerdict.length >= 2 && "PASS".equals(nameAndVerdict[1]))
                {
                    passed.add(rest);
                }
                else
                {
                    failed.add(rest);
                }
                continue;
            }
            final Matcher matcher = SUMMARY.matcher(line);
            if (matcher.matches() && matcher.group(1).equals(client))
            {
                summary = line;
                summaryPassed = Integer.parseInt(matcher.group(2));
                summaryFailed = Integer.parseInt(matcher.group(3));
            }
        }
        return new CompatOutput(List.copyOf(caseLines), List.copyOf(passed), List.copyOf(failed), summary,
            summaryPassed, summaryFailed);
    }

    /** True when there is a summary, it counts what the case lines say, at least one case ran and none failed. */
    boolean allPassed()
    {
        return summary != null && summaryFailed == 0 && failedCases.isEmpty() && !passedCases.isEmpty() &&
            summaryPassed == passedCases.size();
    }
}
