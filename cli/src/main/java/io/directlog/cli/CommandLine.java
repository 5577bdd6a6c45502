package io.directlog.cli;

/**
 * The arguments of one command, read front to back: {@code --name value} and {@code --name=value} both work, and
 * every mistake becomes a {@link UsageException} that names the option. One parser for every command, so all of them
 * accept the same forms and say the same things.
 * <pre>{@code
 * CommandLine line = new CommandLine(args);
 * while (line.next()) {
 *     switch (line.name()) {
 *         case "--dir" -> dir = Path.of(line.value());
 *         case "--quick" -> quick = line.flag();
 *         default -> throw line.unknown();
 *     }
 * }
 * }</pre>
 * Not thread-safe; used on the main thread while a command starts.
 */
public final class CommandLine
{
    private final String[] args;
    private int index = -1;
    private String name;
    private String inlineValue;

    /**
     * @param args the arguments after the command's name.
     */
    public CommandLine(final String[] args)
    {
        this.args = args.clone();
    }

    /**
     * Moves to the next argument (skipping any value the previous option took).
     *
     * @return false when there are no more.
     */
    public boolean next()
    {
        index++;
        if (index >= args.length)
        {
            return false;
        }
        final String arg = args[index];
        final int eq = arg.indexOf('=');
        final boolean inline = arg.startsWith("--") && eq > 0;
        name = inline ? arg.substring(0, eq) : arg;
        inlineValue = inline ? arg.substring(eq + 1) : null;
        return true;
    }

    /** @return the current option's name without any {@code =value}, or the argument itself when it is no option. */
    public String name()
    {
        return name;
    }

    /** @return whether the current argument is an option ({@code -x} or {@code --name}), not a plain argument. */
    public boolean isOption()
    {
        return name.startsWith("-");
    }

    /**
     * The current option's value: after its {@code =}, or the next argument, which is then consumed.
     *
     * @return the value, never blank.
     * @throws UsageException when the value is missing or blank.
     */
    public String value() throws UsageException
    {
        final String value;
        if (inlineValue != null)
        {
            value = inlineValue;
        }
        else if (index + 1 < args.length && !args[index + 1].startsWith("--"))
        {
            value = args[++index];
        }
        else
        {
            value = "";
        }
        if (value.isBlank())
        {
            throw new UsageException(name + " needs a value");
        }
        return value;
    }

    /**
     * The current option's value as a whole number.
     *
     * @param what what the number is, for the message, e.g. {@code "a port number"}.
     * @return the number.
     * @throws UsageException when the value is missing or not a whole number.
     */
    public long longValue(final String what) throws UsageException
    {
        final String value = value();
        try
        {
            return Long.parseLong(value);
        }
        catch (final NumberFormatException ex)
        {
            throw new UsageException(name + " takes " + what + ", not '" + value + "'");
        }
    }

    /**
     * The current option's value as a number.
     *
     * @param what what the number is, for the message, e.g. {@code "seconds, such as 3 or 0.5"}.
     * @return the number; never NaN.
     * @throws UsageException when the value is missing or not a number.
     */
    public double doubleValue(final String what) throws UsageException
    {
        final String value = value();
        try
        {
            final double number = Double.parseDouble(value);
            if (!Double.isNaN(number))
            {
                return number;
            }
        }
        catch (final NumberFormatException ignore)
        {
            // Reported below with the option's name.
        }
        throw new UsageException(name + " takes " + what + ", not '" + value + "'");
    }

    /**
     * For an option without a value.
     *
     * @return true.
     * @throws UsageException when it was given one with {@code =}.
     */
    public boolean flag() throws UsageException
    {
        if (inlineValue != null)
        {
            throw new UsageException(name + " takes no value");
        }
        return true;
    }

    /** @return the error for an argument the command does not know, to throw. */
    public UsageException unknown()
    {
        final String arg = args[index];
        return new UsageException(isOption() ? "unknown option '" + arg + "'" : "unexpected argument '" + arg + "'");
    }
}
