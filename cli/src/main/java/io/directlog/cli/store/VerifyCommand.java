package io.directlog.cli.store;

import java.io.PrintStream;
import java.nio.file.Files;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

import io.directlog.cli.Command;

/**
 * {@code ./directlog verify DIR [--json] [--force-read-only]}: reads every file of a store and checks it as
 * {@link StoreVerifier} describes. Exit 0 when no damage was found, 1 when some was (or the store could not be
 * read), 2 for bad usage. Never changes the store; refuses a store that a process has open unless
 * {@code --force-read-only}.
 * <p>
 * Used from the main thread only.
 */
public final class VerifyCommand implements Command
{
    private static final String USAGE = """
        usage: ./directlog verify DIR [--json] [--force-read-only]

        Reads every record of every log in the store DIR and checks it: CRCs, offsets, headers, the index files
        against the data, the checkpoint against the segments, and (FIEMAP) that no segment a writer may use has an
        unwritten or delayed-allocation extent. Prints what it found; exits 1 on damage, 0 otherwise. Damage beyond
        the durable watermark of a log that was not closed cleanly is what a crash leaves: reported as a warning.

          --json             one JSON object on stdout instead of text
          --force-read-only  read a store that a process has open (its files may change while they are read)

        Never writes. Holds the store's lock shared while it reads, so the engine cannot open the store meanwhile.
        Progress goes to stderr for stores over 256 MiB.
        """;

    private final PrintStream out;
    private final PrintStream err;

    /** Prints to the process's stdout and stderr. */
    public VerifyCommand()
    {
        this(System.out, System.err);
    }

    VerifyCommand(final PrintStream out, final PrintStream err)
    {
        this.out = out;
        this.err = err;
    }

    @Override
    public String name()
    {
        return "verify";
    }

    @Override
    public String summary()
    {
        return "check every record, index and checkpoint of a store (read-only); exit 1 on damage";
    }

    @Override
    public int run(final String[] args) throws Exception
    {
        final ToolArgs a = ToolArgs.parse(name(), args, Set.of("--json", "--force-read-only"));
        if (a.help)
        {
            out.print(USAGE);
            return 0;
        }
        if (Files.isDirectory(a.dir))
        {
            LogFiles.checkIsStore(a.dir, name());
        }
        final StoreVerifier.Report report;
        try
        {
            report = new StoreVerifier().verify(a.dir, a.forceReadOnly, err);
        }
        catch (final StoreVerifier.StoreOpenException ex)
        {
            err.println("directlog verify: " + ex.getMessage());
            return 1;
        }
        if (a.json)
        {
            final Map<String, Object> m = new LinkedHashMap<>();
            m.put("store", report.store().toString());
            m.put("ok", !report.damaged());
            m.put("damage", report.count(StoreVerifier.Severity.DAMAGE));
            m.put("warnings", report.count(StoreVerifier.Severity.WARNING));
            m.put("bytesRead", report.bytesRead());
            m.put("logs", report.logs());
            m.put("findings", report.findings().stream().map(StoreVerifier.Finding::toMap).toList());
            out.println(Json.write(m));
        }
        else
        {
            for (final Map<String, Object> log : report.logs())
            {
                out.printf("log %s: %s segment files, %s records, offsets [%s, %s)%s%n", log.get("name"), log.get("segments"),
                    log.getOrDefault("records", "?"), log.getOrDefault("startOffset", "-"), log.getOrDefault("endOffset", "-"),
                    Boolean.TRUE.equals(log.get("cleanShutdown")) ? ", closed cleanly" : "");
            }
            for (final StoreVerifier.Finding f : report.findings())
            {
                out.println(f);
            }
            out.printf("verify %s: %d logs, %d MiB of segments read: %s%n", report.store(), report.logs().size(),
                report.bytesRead() >> 20, report.damaged() ? report.count(StoreVerifier.Severity.DAMAGE) + " damaged" :
                "no damage" + (report.count(StoreVerifier.Severity.WARNING) > 0 ?
                " (" + report.count(StoreVerifier.Severity.WARNING) + " warnings)" : ""));
        }
        return report.damaged() ? 1 : 0;
    }
}
