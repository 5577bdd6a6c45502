package io.directlog.storage;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Measures Java source text: its lines, and the lines of each method, constructor and initializer body, found by
 * matching braces after comments, string, text-block and char literals are blanked out (so a brace or a quote
 * inside them does not count). A block is a method when the text before its opening brace (since the previous
 * {@code ;}, <code>{</code> or <code>}</code>) is a signature: a name and a parameter list, optionally
 * {@code throws}, with a return type before the name or the name of the enclosing type (a constructor). Blocks of
 * control statements, lambdas, anonymous, local and enum constant class bodies and array initializers are not
 * methods; a method of such a class is one (and counts in its enclosing method's lines too). Record compact
 * constructors and static and instance initializers count as methods.
 * <p>
 * A method's lines run from the line of its name to the line of its closing brace, both included: annotations and
 * its Javadoc are not counted, a wrapped parameter list is.
 * <p>
 * Not a parser: it assumes source that compiles. Thread-safe (stateless).
 */
final class SourceSizes
{
    /** One method (or constructor, or initializer) and its length. */
    record Method(String type, String name, int firstLine, int lines)
    {
        @Override
        public String toString()
        {
            return type + "." + name + " (line " + firstLine + "): " + lines + " lines";
        }
    }

    private static final Set<String> NOT_A_METHOD_NAME = Set.of("if", "for", "while", "switch", "catch",
        "synchronized", "try", "return", "new", "else", "do", "throw", "case", "assert", "yield");
    private static final Set<String> TYPE_KEYWORDS = Set.of("class", "interface", "enum", "record");
    private static final Pattern ANNOTATION = Pattern.compile("@\\s*[\\w$.]+");
    private static final Pattern MODIFIERS = Pattern.compile("\\b(public|protected|private|static|final|abstract|" +
        "synchronized|native|strictfp|default|transient|volatile|sealed|non-sealed)\\b");
    private static final Pattern THROWS_TAIL = Pattern.compile("\\)\\s*throws\\s+[\\w$.,\\s<>?]+$");
    private static final Pattern IDENTIFIER_AT_END = Pattern.compile("([A-Za-z_$][\\w$]*)\\s*$");
    private static final Pattern ENUM_CONSTANT = Pattern.compile(",?\\s*[A-Za-z_$][\\w$]*");
    private static final Pattern TYPE_DECLARATION = Pattern.compile("\\b(class|interface|enum|record)\\s+([\\w$]+)");

    private SourceSizes()
    {
    }

    /**
     * @param source Java source.
     * @return its number of lines, counted as {@code wc -l} does for text that ends with a line break.
     */
    static int lines(final String source)
    {
        int lines = 0;
        for (int i = 0; i < source.length(); i++)
        {
            if (source.charAt(i) == '\n')
            {
                lines++;
            }
        }
        return source.isEmpty() || source.endsWith("\n") ? lines : lines + 1;
    }

    /**
     * @param source Java source.
     * @return every method, constructor and initializer in it, in the order their bodies open.
     */
    static List<Method> methods(final String source)
    {
        final String code = blankCommentsAndLiterals(source);
        final List<Method> found = new ArrayList<>();
        final Deque<Block> open = new ArrayDeque<>();
        int headerStart = 0;
        for (int i = 0; i < code.length(); i++)
        {
            final char c = code.charAt(i);
            if (c == '{')
            {
                open.push(classify(code, headerStart, i, open.peek()));
                headerStart = i + 1;
            }
            else if (c == '}')
            {
                final Block block = open.pop();
                if (block.methodName != null)
                {
                    final int first = lineOf(code, block.nameAt);
                    found.add(new Method(block.enclosingType, block.methodName, first, lineOf(code, i) - first + 1));
                }
                headerStart = i + 1;
            }
            else if (c == ';')
            {
                headerStart = i + 1;
            }
        }
        found.sort((a, b) -> Integer.compare(a.firstLine, b.firstLine));
        return found;
    }

    /** An open brace: the type whose body it is in (or is), and its method's name when it is a method's body. */
    private record Block(String enclosingType, boolean typeBody, String methodName, int nameAt)
    {
    }

    private static Block classify(final String code, final int headerStart, final int brace, final Block parent)
    {
        final String header = code.substring(headerStart, brace);
        final String enclosing = parent == null ? "?" : parent.enclosingType;
        final Matcher type = TYPE_DECLARATION.matcher(header);
        while (type.find())
        {
            if (parenDepth(header, type.start()) == 0) // not a parameter or variable named record
            {
                return new Block(parent == null ? type.group(2) : enclosing + "." + type.group(2), true, null, -1);
            }
        }
        final String trimmed = header.strip();
        final boolean inTypeBody = parent == null || parent.typeBody;
        final String simpleType = enclosing.substring(enclosing.lastIndexOf('.') + 1);
        if (inTypeBody && (trimmed.isEmpty() || trimmed.equals("static")))
        {
            return new Block(enclosing, false, trimmed.isEmpty() ? "<init block>" : "<static init>",
                headerStart + header.indexOf(trimmed));
        }
        if (inTypeBody && MODIFIERS.matcher(stripAnnotations(trimmed)).replaceAll("").strip().equals(simpleType))
        {
            return new Block(enclosing, false, simpleType, headerStart + header.lastIndexOf(simpleType)); // compact
        }
        if (inTypeBody && ENUM_CONSTANT.matcher(trimmed).matches())
        {
            return new Block(enclosing, true, null, -1); // an enum constant's body: its methods are methods
        }
        final String signature = THROWS_TAIL.matcher(trimmed).replaceFirst(")");
        if (!signature.endsWith(")"))
        {
            return new Block(enclosing, false, null, -1); // lambda, array initializer, label, else, try, do
        }
        final int open = matchingOpenParen(signature);
        if (open < 0)
        {
            return new Block(enclosing, false, null, -1); // a for (;;) or try (a; b): its ';' cut the header
        }
        final Matcher name = IDENTIFIER_AT_END.matcher(signature.substring(0, open));
        if (!name.find() || NOT_A_METHOD_NAME.contains(name.group(1)))
        {
            return new Block(enclosing, false, null, -1);
        }
        final String before = signature.substring(0, name.start(1));
        final String beforeStripped = MODIFIERS.matcher(stripAnnotations(before)).replaceAll("").strip();
        if (beforeStripped.endsWith("new"))
        {
            return new Block(enclosing + ".<anonymous " + name.group(1) + ">", true, null, -1);
        }
        final boolean constructor = beforeStripped.isEmpty() && name.group(1).equals(simpleType);
        if (inTypeBody && !constructor && (beforeStripped.isEmpty() || beforeStripped.equals(",")))
        {
            return new Block(enclosing, true, null, -1); // an enum constant with arguments, and a body
        }
        if (!inTypeBody || (beforeStripped.isEmpty() && !constructor) || !looksLikeType(beforeStripped))
        {
            return new Block(enclosing, false, null, -1); // enum constant body, or a statement's block
        }
        final int nameAt = headerStart + header.indexOf(trimmed) + name.start(1);
        return new Block(enclosing, false, name.group(1), nameAt);
    }

    /** The text before a method's name is its return type (with type parameters), or nothing for a constructor. */
    private static boolean looksLikeType(final String text)
    {
        return text.isEmpty() || text.matches("(<[^;=(){}]*>\\s*)?[\\w$.]+(\\s*<[^;=(){}]*>)?(\\s*\\[\\s*])*");
    }

    private static String stripAnnotations(final String text)
    {
        final StringBuilder out = new StringBuilder();
        int i = 0;
        final Matcher m = ANNOTATION.matcher(text);
        while (m.find(i))
        {
            out.append(text, i, m.start());
            int end = m.end();
            int j = end;
            while (j < text.length() && Character.isWhitespace(text.charAt(j)))
            {
                j++;
            }
            if (j < text.length() && text.charAt(j) == '(')
            {
                int depth = 0;
                for (; j < text.length(); j++)
                {
                    depth += text.charAt(j) == '(' ? 1 : text.charAt(j) == ')' ? -1 : 0;
                    if (depth == 0)
                    {
                        end = j + 1;
                        break;
                    }
                }
            }
            i = end;
        }
        out.append(text.substring(i));
        return out.toString();
    }

    private static int parenDepth(final String text, final int end)
    {
        int depth = 0;
        for (int i = 0; i < end; i++)
        {
            depth += text.charAt(i) == '(' ? 1 : text.charAt(i) == ')' ? -1 : 0;
        }
        return depth;
    }

    /** @return the index of the '(' matching the ')' that ends {@code text}, or -1. */
    private static int matchingOpenParen(final String text)
    {
        int depth = 0;
        for (int i = text.length() - 1; i >= 0; i--)
        {
            final char c = text.charAt(i);
            if (c == ')')
            {
                depth++;
            }
            else if (c == '(' && --depth == 0)
            {
                return i;
            }
        }
        return -1;
    }

    private static int lineOf(final String code, final int index)
    {
        int line = 1;
        for (int i = 0; i < index; i++)
        {
            if (code.charAt(i) == '\n')
            {
                line++;
            }
        }
        return line;
    }

    /**
     * @return {@code source} with every comment and the contents of every string, text block and char literal
     * replaced by spaces, line breaks kept (so indexes and line numbers stay those of the source).
     */
    static String blankCommentsAndLiterals(final String source)
    {
        final char[] out = source.toCharArray();
        int i = 0;
        final int n = out.length;
        while (i < n)
        {
            final char c = source.charAt(i);
            final char next = i + 1 < n ? source.charAt(i + 1) : 0;
            if (c == '/' && next == '/')
            {
                while (i < n && source.charAt(i) != '\n')
                {
                    out[i++] = ' ';
                }
            }
            else if (c == '/' && next == '*')
            {
                final int end = source.indexOf("*/", i + 2);
                i = blank(out, i, end < 0 ? n : end + 2);
            }
            else if (c == '"' && source.startsWith("\"\"\"", i))
            {
                int j = i + 3;
                while (j < n && !source.startsWith("\"\"\"", j))
                {
                    j += source.charAt(j) == '\\' ? 2 : 1;
                }
                blank(out, i + 3, Math.min(j, n));
                i = Math.min(j + 3, n);
            }
            else if (c == '"' || c == '\'')
            {
                int j = i + 1;
                while (j < n && source.charAt(j) != c && source.charAt(j) != '\n')
                {
                    j += source.charAt(j) == '\\' ? 2 : 1;
                }
                blank(out, i + 1, Math.min(j, n));
                i = Math.min(j + 1, n);
            }
            else
            {
                i++;
            }
        }
        return new String(out);
    }

    private static int blank(final char[] out, final int from, final int to)
    {
        for (int i = from; i < to; i++)
        {
            if (out[i] != '\n')
            {
                out[i] = ' ';
            }
        }
        return to;
    }
}
