package io.directlog.storage.realfs;

import io.directlog.storage.Log;
import io.directlog.storage.Record;
import io.directlog.storage.RecordBatch;
import io.directlog.storage.TestStores;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Self-identifying payloads and the recovery oracle shared by the real-filesystem tests and their child writer.
 * A payload is {@code [magic][producer][seq]} followed by bytes drawn from a generator seeded by (producer, seq),
 * so a recovered record that no producer wrote, or that is damaged, is recognised even when it was never
 * acknowledged.
 */
final class TestRecords
{
    static final int MAGIC = 0x52465331;
    static final int HEADER = 16;

    private TestRecords()
    {
    }

    /** An acknowledged append: where it landed and what it held. */
    record Ack(long offset, int producer, long seq, int length, int crc)
    {
        String line()
        {
            return "A " + offset + ' ' + producer + ' ' + seq + ' ' + length + ' ' + crc;
        }

        static Ack parse(final String line)
        {
            final String[] f = line.split(" ");
            return new Ack(Long.parseLong(f[1]), Integer.parseInt(f[2]), Long.parseLong(f[3]),
                Integer.parseInt(f[4]), Integer.parseInt(f[5]));
        }
    }

    static byte[] payload(final int producer, final long seq, final int length)
    {
        final byte[] b = new byte[Math.max(HEADER, length)];
        final ByteBuffer h = ByteBuffer.wrap(b);
        h.putInt(MAGIC).putInt(producer).putLong(seq);
        final SplittableRandom r = new SplittableRandom(seq * 0x9E3779B97F4A7C15L + producer);
        for (int i = HEADER; i < b.length; i += 8)
        {
            long v = r.nextLong();
            for (int j = i; j < Math.min(b.length, i + 8); j++)
            {
                b[j] = (byte)v;
                v >>>= 8;
            }
        }
        return b;
    }

    static int crc(final byte[] bytes)
    {
        return (int)TestStores.crc(bytes);
    }

    /** What one recovery check found. */
    static final class Check
    {
        long records;
        long ackedChecked;
        long lost;
        final List<String> problems = new ArrayList<>();

        void problem(final String p)
        {
            if (problems.size() < 20)
            {
                problems.add(p);
            }
        }

        boolean ok()
        {
            return lost == 0 && problems.isEmpty();
        }

        @Override
        public String toString()
        {
            return "records=" + records + " ackedChecked=" + ackedChecked + " lost=" + lost + " problems=" + problems;
        }
    }

    /**
     * Reads the whole log and checks it against the acknowledgements: every record is one some producer wrote,
     * byte-exact; offsets are dense from the start; each producer's records are its appends 1, 2, 3, ... in order
     * (no gap, duplicate or reordering); every acknowledged record is there at its offset with its bytes.
     *
     * @param log  the recovered log.
     * @param acks the acknowledgements that must have survived.
     * @return the findings.
     */
    static Check verify(final Log log, final List<Ack> acks)
    {
        final Check check = new Check();
        final long start = log.startOffset();
        final long end = log.endOffset();
        final Map<Long, Ack> found = new HashMap<>();
        final Map<Integer, Long> lastSeq = new HashMap<>();
        if (start != 0)
        {
            check.problem("startOffset " + start + " (nothing was deleted)");
        }
        long next = start;
        while (next < end)
        {
            try (RecordBatch batch = log.read(next, 1 << 20))
            {
                if (batch.isEmpty())
                {
                    check.problem("nothing readable at " + next + " below endOffset " + end);
                    break;
                }
                for (final Record r : batch)
                {
                    if (r.offset() != next || r.recordCount() != 1)
                    {
                        check.problem("record at " + r.offset() + " (count " + r.recordCount() + "), expected " + next);
                        return check;
                    }
                    final byte[] bytes = r.payloadBytes();
                    final Ack a = identify(bytes, r.offset(), check);
                    if (a != null)
                    {
                        final long prev = lastSeq.getOrDefault(a.producer(), 0L);
                        if (a.seq() != prev + 1)
                        {
                            check.problem("producer " + a.producer() + " seq " + a.seq() + " after " + prev +
                                " at offset " + r.offset());
                        }
                        lastSeq.put(a.producer(), a.seq());
                        found.put(r.offset(), a);
                    }
                    check.records++;
                    next = r.nextOffset();
                }
            }
        }
        for (final Ack a : acks)
        {
            check.ackedChecked++;
            if (!a.equals(found.get(a.offset())))
            {
                check.lost++;
                check.problem("acknowledged " + a + " recovered as " + found.get(a.offset()) + " (end " + end + ")");
            }
        }
        return check;
    }

    private static Ack identify(final byte[] bytes, final long offset, final Check check)
    {
        if (bytes.length < HEADER)
        {
            check.problem("record at " + offset + " is " + bytes.length + " bytes, no producer wrote it");
            return null;
        }
        final ByteBuffer h = ByteBuffer.wrap(bytes);
        final int magic = h.getInt();
        final int producer = h.getInt();
        final long seq = h.getLong();
        if (magic != MAGIC || seq < 1 || !java.util.Arrays.equals(bytes, payload(producer, seq, bytes.length)))
        {
            check.problem("record at " + offset + " (" + bytes.length + " bytes) is not what any producer wrote");
            return null;
        }
        return new Ack(offset, producer, seq, bytes.length, crc(bytes));
    }
}
