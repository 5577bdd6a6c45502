package io.directlog.storage.io;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

import io.directlog.nativeio.Errno;
import io.directlog.nativeio.NativeIoException;
import io.directlog.storage.spi.BlockFile;
import io.directlog.storage.spi.BlockIo;
import io.directlog.storage.spi.FileMode;

/**
 * A {@link BlockIo} for tests that wraps a real one (NativeBlockIo on the test directory) and injects faults
 * into chosen calls: an errno ({@code EIO}, {@code ENOSPC}, {@code EROFS}, ...) as the {@link NativeIoException}
 * the native layer would throw, the fsyncgate pattern (a datasync fails, every later one "succeeds" without
 * syncing anything), short writes, and stalls. Faults hit call N of a kind (counted from when the rule was
 * armed, among calls on matching paths), every matching call (sticky, like a dead filesystem), or a seeded
 * one-in-N random choice (RocksDB's {@code one_in}).
 * <p>
 * Short writes: {@link BlockFile#write} is all-or-throw, and the native layer already retries a short
 * {@code pwrite}. A short write is modelled below that contract: the first part of the range is really written,
 * then the layer "cannot progress" and reports it, as {@code NativeFile.writeFully} does when a retry writes
 * 0 bytes; or the retry writes the rest and the call succeeds.
 * <p>
 * Every injection is recorded ({@link #injections()}) with the time it was thrown, so tests can count
 * acknowledgements that came after it.
 * <p>
 * Thread-safe.
 */
public final class ErrorInjectingBlockIo extends DelegatingBlockIo
{
    /** The kinds of call a rule can hit. */
    public enum Op
    {
        WRITE, DATASYNC, READ, ALLOCATE, OPEN, RENAME, SYNC_DIRECTORY
    }

    /** What a rule does to a call it hits. */
    public enum Effect
    {
        /** Throw the rule's errno; nothing is done. */
        ERROR,
        /** Datasync only: throw EIO once; every later datasync the rule sees returns at once, syncing nothing. */
        FSYNCGATE,
        /** Write only: write the first part, then fail as a pwrite that cannot progress. */
        SHORT_WRITE_STUCK,
        /** Write only: write the first part, then the rest (the layer's retry succeeds). */
        SHORT_WRITE_COMPLETED,
        /** Sleep between the rule's bounds, then do the call. */
        STALL
    }

    /**
     * One injected fault.
     *
     * @param op     the call.
     * @param effect what was done.
     * @param path   the file or directory.
     * @param errno  the errno thrown, 0 for none.
     * @param nanos  {@link System#nanoTime()} when the call's exception was ready to throw (or the stall began).
     * @param thread the calling thread's name.
     */
    public record Injection(Op op, Effect effect, Path path, int errno, long nanos, String thread)
    {
        /** @return true when the call failed (an error reached the engine). */
        public boolean failed()
        {
            return effect == Effect.ERROR || effect == Effect.SHORT_WRITE_STUCK ||
                (effect == Effect.FSYNCGATE && errno != 0);
        }
    }

    /** An armed fault. Mutable counters are guarded by the owning BlockIo's lock. */
    public static final class Rule
    {
        private final Op op;
        private final Effect effect;
        private final int errno;
        private final Predicate<Path> where;
        private final long skip;
        private final long hits;
        private final int oneIn;
        private final long stallMinMillis;
        private final long stallMaxMillis;
        private long seen;
        private long done;
        private boolean gateFired;
        private volatile boolean active = true;

        private Rule(final Op op, final Effect effect, final int errno, final Predicate<Path> where, final long skip,
            final long hits, final int oneIn, final long stallMinMillis, final long stallMaxMillis)
        {
            this.op = op;
            this.effect = effect;
            this.errno = errno;
            this.where = where;
            this.skip = skip;
            this.hits = hits;
            this.oneIn = oneIn;
            this.stallMinMillis = stallMinMillis;
            this.stallMaxMillis = stallMaxMillis;
        }

        /** Disarms this rule. */
        public void disarm()
        {
            active = false;
        }
    }

    private final SplittableRandom random;
    private final List<Rule> rules = new ArrayList<>();
    private final ConcurrentLinkedQueue<Injection> injections = new ConcurrentLinkedQueue<>();
    private final Map<Op, AtomicLong> calls = new EnumMap<>(Op.class);
    private final java.util.concurrent.atomic.AtomicInteger hitsInFlight = new java.util.concurrent.atomic.AtomicInteger();

    /**
     * @param delegate the real I/O layer.
     * @param seed     seeds the one-in-N choices.
     */
    public ErrorInjectingBlockIo(final BlockIo delegate, final long seed)
    {
        super(delegate);
        this.random = new SplittableRandom(seed);
        for (final Op op : Op.values())
        {
            calls.put(op, new AtomicLong());
        }
    }

    /** @return a predicate matching paths whose file name ends with {@code suffix}. */
    public static Predicate<Path> named(final String suffix)
    {
        return p -> p.getFileName() != null && p.getFileName().toString().endsWith(suffix);
    }

    /** @return a predicate matching paths at or under {@code dir} whose name ends with {@code suffix}. */
    public static Predicate<Path> under(final Path dir, final String suffix)
    {
        final Path abs = dir.toAbsolutePath().normalize();
        return p -> p.toAbsolutePath().normalize().startsWith(abs) && named(suffix).test(p);
    }

    /** Fails call {@code n} (1 = the next) of {@code op} on matching paths with {@code errno}. */
    public Rule failCall(final Op op, final long n, final int errno, final Predicate<Path> where)
    {
        return arm(new Rule(op, Effect.ERROR, errno, where, n - 1, 1, 0, 0, 0));
    }

    /** Fails every call of {@code op} on matching paths from now on, until disarmed. */
    public Rule failFrom(final Op op, final int errno, final Predicate<Path> where)
    {
        return arm(new Rule(op, Effect.ERROR, errno, where, 0, Long.MAX_VALUE, 0, 0, 0));
    }

    /** Fails each call of {@code op} on matching paths with probability 1/{@code oneIn} (seeded). */
    public Rule failOneIn(final Op op, final int oneIn, final int errno, final Predicate<Path> where)
    {
        return arm(new Rule(op, Effect.ERROR, errno, where, 0, Long.MAX_VALUE, oneIn, 0, 0));
    }

    /** Datasync {@code n} on matching paths fails with EIO; every later one returns success and syncs nothing. */
    public Rule fsyncgate(final long n, final Predicate<Path> where)
    {
        return arm(new Rule(Op.DATASYNC, Effect.FSYNCGATE, Errno.EIO, where, n - 1, Long.MAX_VALUE, 0, 0, 0));
    }

    /** Write {@code n} on matching paths is short: stuck (an error) or completed by the retry. */
    public Rule shortWrite(final long n, final boolean completes, final Predicate<Path> where)
    {
        return arm(new Rule(Op.WRITE, completes ? Effect.SHORT_WRITE_COMPLETED : Effect.SHORT_WRITE_STUCK,
            completes ? 0 : Errno.EIO, where, n - 1, 1, 0, 0, 0));
    }

    /** Stalls each call of {@code op} on matching paths with probability 1/{@code oneIn}, for min to max ms. */
    public Rule stallOneIn(final Op op, final int oneIn, final long minMillis, final long maxMillis,
        final Predicate<Path> where)
    {
        return arm(new Rule(op, Effect.STALL, 0, where, 0, Long.MAX_VALUE, oneIn, minMillis, maxMillis));
    }

    /** Disarms every rule. */
    public void clear()
    {
        synchronized (rules)
        {
            rules.forEach(Rule::disarm);
            rules.clear();
        }
    }

    /** @return every injection so far, in the order they happened (per thread). */
    public List<Injection> injections()
    {
        return new ArrayList<>(injections);
    }

    /** @return calls of {@code op} that reached this layer. */
    public long calls(final Op op)
    {
        return calls.get(op).get();
    }

    private Rule arm(final Rule rule)
    {
        synchronized (rules)
        {
            rules.add(rule);
        }
        return rule;
    }

    /** The rule hitting this call, or null; counts the call for every matching rule. */
    private Hit match(final Op op, final Path path)
    {
        calls.get(op).incrementAndGet();
        synchronized (rules)
        {
            Hit hit = null;
            for (final Rule r : rules)
            {
                if (!r.active || r.op != op || !r.where.test(path))
                {
                    continue;
                }
                r.seen++;
                if (hit != null)
                {
                    continue;
                }
                if (r.effect == Effect.FSYNCGATE && r.gateFired)
                {
                    hit = new Hit(r, 0, 0);
                    continue;
                }
                if (r.seen <= r.skip || r.done >= r.hits || (r.oneIn > 0 && random.nextInt(r.oneIn) != 0))
                {
                    continue;
                }
                r.done++;
                r.gateFired = r.effect == Effect.FSYNCGATE;
                final long stall = r.effect == Effect.STALL ?
                    r.stallMinMillis + random.nextLong(r.stallMaxMillis - r.stallMinMillis + 1) : 0;
                hit = new Hit(r, r.errno, stall);
            }
            if (hit != null)
            {
                hitsInFlight.incrementAndGet();
            }
            return hit;
        }
    }

    private void record(final Hit hit, final Op op, final Path path)
    {
        injections.add(new Injection(op, hit.rule.effect, path, hit.errno, System.nanoTime(),
            Thread.currentThread().getName()));
        hitsInFlight.decrementAndGet();
    }

    /**
     * Waits until every call a rule has hit is recorded in {@link #injections()}; after disarming, the list is
     * then complete.
     */
    public void awaitRecorded()
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (hitsInFlight.get() > 0)
        {
            if (System.nanoTime() - deadline > 0)
            {
                throw new IllegalStateException(hitsInFlight.get() + " injected calls never finished");
            }
            Thread.onSpinWait();
        }
    }

    /** Records the injection when the exception is ready to throw: the moment the engine could know. */
    private <T extends IOException> T recorded(final Hit hit, final Op op, final Path path, final T error)
    {
        record(hit, op, path);
        return error;
    }

    /** Applies a hit that is not write-specific: stall, error, or the false success after the gate. */
    private boolean applyGeneric(final Hit hit, final Op op, final Path path, final String call, final long offset,
        final long length) throws IOException
    {
        if (hit == null)
        {
            return false;
        }
        switch (hit.rule.effect)
        {
            case STALL:
                record(hit, op, path);
                stall(hit.stallMillis);
                return false;
            case FSYNCGATE:
                if (hit.errno == 0)
                {
                    record(hit, op, path);
                    return true; // the false success: report synced, do nothing
                }
                throw recorded(hit, op, path, new NativeIoException(call, path, hit.errno, offset, length));
            default:
                throw recorded(hit, op, path, new NativeIoException(call, path, hit.errno, offset, length));
        }
    }

    private static void stall(final long millis)
    {
        try
        {
            TimeUnit.MILLISECONDS.sleep(millis); // the injected latency itself, not a wait for another thread
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public BlockFile open(final Path path, final FileMode mode, final boolean create) throws IOException
    {
        applyGeneric(match(Op.OPEN, path), Op.OPEN, path, "open", -1, -1);
        return new InjectingFile(delegate().open(path, mode, create));
    }

    @Override
    public void rename(final Path from, final Path to) throws IOException
    {
        applyGeneric(match(Op.RENAME, from), Op.RENAME, from, "rename", -1, -1);
        delegate().rename(from, to);
    }

    @Override
    public void syncDirectory(final Path dir) throws IOException
    {
        applyGeneric(match(Op.SYNC_DIRECTORY, dir), Op.SYNC_DIRECTORY, dir, "fsync", -1, -1);
        delegate().syncDirectory(dir);
    }

    @Override
    public String describe()
    {
        return "error-injecting " + delegate().describe();
    }

    private record Hit(Rule rule, int errno, long stallMillis)
    {
    }

    private final class InjectingFile extends DelegatingBlockFile
    {
        InjectingFile(final BlockFile file)
        {
            super(file);
        }

        @Override
        public void write(final ByteBuffer source, final int index, final int length, final long position)
            throws IOException
        {
            final Hit hit = match(Op.WRITE, path());
            if (hit != null && (hit.rule.effect == Effect.SHORT_WRITE_STUCK ||
                hit.rule.effect == Effect.SHORT_WRITE_COMPLETED))
            {
                final int align = Math.max(1, alignment());
                final int first = (length / 2) / align * align; // a real O_DIRECT short write ends on a block
                if (first > 0)
                {
                    delegate().write(source, index, first, position);
                }
                if (hit.rule.effect == Effect.SHORT_WRITE_STUCK)
                {
                    throw recorded(hit, Op.WRITE, path(), new NativeIoException("pwrite", path(), 0,
                        position + first, length - first, "wrote 0 bytes after " + first));
                }
                record(hit, Op.WRITE, path());
                delegate().write(source, index + first, length - first, position + first);
                return;
            }
            applyGeneric(hit, Op.WRITE, path(), "pwrite", position, length);
            delegate().write(source, index, length, position);
        }

        @Override
        public int read(final ByteBuffer target, final int index, final int length, final long position)
            throws IOException
        {
            applyGeneric(match(Op.READ, path()), Op.READ, path(), "pread", position, length);
            return delegate().read(target, index, length, position);
        }

        @Override
        public void datasync() throws IOException
        {
            if (applyGeneric(match(Op.DATASYNC, path()), Op.DATASYNC, path(), "fdatasync", -1, -1))
            {
                return;
            }
            delegate().datasync();
        }

        @Override
        public void allocate(final long length) throws IOException
        {
            applyGeneric(match(Op.ALLOCATE, path()), Op.ALLOCATE, path(), "fallocate", 0, length);
            delegate().allocate(length);
        }
    }
}
