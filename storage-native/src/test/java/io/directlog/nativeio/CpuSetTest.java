package io.directlog.nativeio;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CpuSetTest
{
    @Test
    void parsesAndPrintsCpuLists()
    {
        final CpuSet set = CpuSet.parse(" 0-3, 6,8-9 ");
        assertEquals(7, set.size());
        assertTrue(set.contains(3));
        assertFalse(set.contains(4));
        assertEquals("0-3,6,8-9", set.toString());
        assertEquals("1", CpuSet.parse("1").toString());
        assertEquals("0-2", CpuSet.parse("2,0,1").toString(), "adjacent CPUs print as one range");
        assertEquals(CpuSet.parse("0-1"), CpuSet.parse("1,0"));
    }

    @Test
    void combinesSets()
    {
        assertEquals("1", CpuSet.parse("0-1").and(CpuSet.parse("1-3")).toString());
        assertEquals("0-3", CpuSet.parse("0-1").or(CpuSet.parse("2-3")).toString());
        assertTrue(CpuSet.parse("0").and(CpuSet.parse("1")).isEmpty());
    }

    @Test
    void convertsToAndFromCpuSetWords()
    {
        final CpuSet set = CpuSet.parse("0,63,64,1023");
        final long[] words = set.toWords();
        assertEquals(16, words.length, "glibc's cpu_set_t: 1024 bits");
        assertEquals(1L | (1L << 63), words[0]);
        assertEquals(1L, words[1]);
        assertEquals(1L << 63, words[15]);
        assertEquals(set, CpuSet.fromWords(words));
        assertArrayEquals(new long[16], CpuSet.fromWords(new long[16]).toWords());
    }

    @Test
    void rejectsBadListsNamingThePart()
    {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> CpuSet.parse("0,x")).getMessage()
            .contains("'x' is not a CPU number"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> CpuSet.parse("3-1")).getMessage()
            .contains("range 3-1 ends before it starts"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> CpuSet.parse("1024")).getMessage()
            .contains("CPU 1024 is not in 0-1023"));
        assertThrows(IllegalArgumentException.class, () -> CpuSet.parse(""));
        assertThrows(IllegalArgumentException.class, () -> CpuSet.parse("-1"));
    }
}
