package io.directlog.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import org.junit.jupiter.api.Test;

class MainTest
{
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private static final Command ECHO = new Command()
    {
        @Override
        public String name()
        {
            return "echo";
        }

        @Override
        public String summary()
        {
            return "fails as asked";
        }

        @Override
        public int run(final String[] args) throws Exception
        {
            if (args.length > 0 && args[0].equals("bad"))
            {
                throw new UsageException("bad usage");
            }
            if (args.length > 0 && args[0].equals("boom"))
            {
                throw new IllegalStateException("boom");
            }
            return args.length;
        }
    };

    private int run(final String... args)
    {
        return Main.run(args, List.of(ECHO), new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @Test
    void noArgumentsListTheCommands()
    {
        assertEquals(0, run());
        assertTrue(out.toString(StandardCharsets.UTF_8).contains("  echo  fails as asked\n"));
    }

    @Test
    void helpListsTheCommands()
    {
        assertEquals(0, run("--help"));
        assertTrue(out.toString(StandardCharsets.UTF_8).contains("usage: ./directlog <command> [options]"));
    }

    @Test
    void unknownCommandIsUsageError()
    {
        assertEquals(2, run("nope"));
        assertTrue(err.toString(StandardCharsets.UTF_8).startsWith("directlog: unknown command 'nope'\n"));
    }

    @Test
    void commandExitCodePassesThroughWithoutTheCommandName()
    {
        assertEquals(3, run("echo", "a", "b", "c"));
    }

    @Test
    void usageExceptionIsExitTwoWithAHint()
    {
        assertEquals(2, run("echo", "bad"));
        assertEquals("directlog echo: bad usage\nRun './directlog echo --help' for the options.\n",
            err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void failureIsOneLineWithoutStackTrace()
    {
        assertEquals(1, run("echo", "boom"));
        assertEquals("directlog echo: error: java.lang.IllegalStateException: boom\n",
            err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void benchIsRegistered()
    {
        assertTrue(Main.COMMANDS.stream().anyMatch(c -> c.name().equals("bench")));
    }
}
