package io.directlog.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class CommandLineTest
{
    @Test
    void readsSeparateAndInlineValuesAndFlags() throws UsageException
    {
        final CommandLine line = new CommandLine(new String[] {"--dir", "/d", "--port=9092", "--quick", "store"});
        assertTrue(line.next());
        assertEquals("--dir", line.name());
        assertEquals("/d", line.value());
        assertTrue(line.next());
        assertEquals("--port", line.name());
        assertEquals(9092, line.longValue("a port number"));
        assertTrue(line.next());
        assertTrue(line.flag());
        assertTrue(line.next());
        assertFalse(line.isOption());
        assertEquals("store", line.name());
        assertFalse(line.next());
    }

    @Test
    void namesTheOptionInEveryMistake()
    {
        assertEquals("--dir needs a value", message("--dir"));
        assertEquals("--dir needs a value", message("--dir", "--quick"));
        assertEquals("--dir needs a value", message("--dir="));
        assertEquals("--port takes a port number, not 'x'", message("--port", "x"));
        assertEquals("--rate takes a number, not 'NaN'", message("--rate=NaN"));
        assertEquals("--quick takes no value", message("--quick=yes"));
        assertEquals("unknown option '--fast=1'", message("--fast=1"));
        assertEquals("unexpected argument 'extra'", message("extra"));
    }

    private static String message(final String... args)
    {
        return assertThrows(UsageException.class, () ->
        {
            final CommandLine line = new CommandLine(args);
            while (line.next())
            {
                switch (line.name())
                {
                    case "--dir" -> line.value();
                    case "--port" -> line.longValue("a port number");
                    case "--rate" -> line.doubleValue("a number");
                    case "--quick" -> line.flag();
                    default -> throw line.unknown();
                }
            }
        }).getMessage();
    }
}
