package io.directlog.storage.log;

import static io.directlog.storage.RecoveryMode.ABSOLUTE_CONSISTENCY;
import static io.directlog.storage.RecoveryMode.TOLERATE_TORN_TAIL;
import static io.directlog.storage.RecoveryMode.TRUNCATE_AT_CORRUPTION;
import static io.directlog.storage.log.RecoveryRules.DamageVerdict.CUT_AND_COUNT;
import static io.directlog.storage.log.RecoveryRules.DamageVerdict.CUT_TORN_TAIL;
import static io.directlog.storage.log.RecoveryRules.DamageVerdict.REFUSE_ANY_DAMAGE;
import static io.directlog.storage.log.RecoveryRules.DamageVerdict.REFUSE_BELOW_WATERMARK;
import static io.directlog.storage.log.RecoveryRules.DamageVerdict.REFUSE_LOST_FILE_PART;
import static io.directlog.storage.log.RecoveryRules.DamageVerdict.REFUSE_VALID_RECORDS_AFTER;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.directlog.storage.LogConfig;
import io.directlog.storage.RecoveryMode;
import org.junit.jupiter.api.Test;

/**
 * The recovery rules by mode, without a store: what each mode does with damage below and beyond the durable
 * watermark, a torn first header, lost segments, a hole, a short file, and spare files.
 */
class RecoveryRulesTest
{
    private static RecoveryRules.Damage damage(final boolean below, final boolean missing, final boolean validAfter,
        final boolean recycled, final boolean torn)
    {
        return new RecoveryRules.Damage(below, missing, validAfter, recycled, torn);
    }

    @Test
    void aTornTailBeyondTheWatermarkIsCutUnlessTheModeRefusesAllDamage()
    {
        final RecoveryRules.Damage tornTail = damage(false, false, false, false, true);
        assertEquals(CUT_TORN_TAIL, new RecoveryRules(TOLERATE_TORN_TAIL).judge(tornTail));
        assertEquals(REFUSE_ANY_DAMAGE, new RecoveryRules(ABSOLUTE_CONSISTENCY).judge(tornTail));
        assertEquals(CUT_AND_COUNT, new RecoveryRules(TRUNCATE_AT_CORRUPTION).judge(tornTail));
    }

    @Test
    void damageBelowTheWatermarkIsCorruptionThatOnlyTruncateAtCorruptionCuts()
    {
        final RecoveryRules.Damage below = damage(true, false, false, false, true);
        assertEquals(REFUSE_BELOW_WATERMARK, new RecoveryRules(TOLERATE_TORN_TAIL).judge(below));
        assertEquals(REFUSE_BELOW_WATERMARK, new RecoveryRules(ABSOLUTE_CONSISTENCY).judge(below));
        assertEquals(CUT_AND_COUNT, new RecoveryRules(TRUNCATE_AT_CORRUPTION).judge(below));
    }

    @Test
    void validRecordsAfterDamageWithNoUnwrittenSectorAreCorruptionForTheDefaultMode()
    {
        final RecoveryRules rules = new RecoveryRules(TOLERATE_TORN_TAIL);
        assertEquals(REFUSE_VALID_RECORDS_AFTER, rules.judge(damage(false, false, true, false, false)));
        // an unwritten sector between: the survivors of a torn write, cut with the tail
        assertEquals(CUT_TORN_TAIL, rules.judge(damage(false, false, true, false, true)));
        // in a recycled segment stale bytes are expected: a torn write cannot be told from damage, so it is cut
        assertEquals(CUT_TORN_TAIL, rules.judge(damage(false, false, true, true, false)));
        assertEquals(CUT_AND_COUNT, new RecoveryRules(TRUNCATE_AT_CORRUPTION)
            .judge(damage(false, false, true, false, false)));
    }

    @Test
    void theTornCheckIsAskedForOnlyWhereTheVerdictDependsOnIt()
    {
        final RecoveryRules rules = new RecoveryRules(TOLERATE_TORN_TAIL);
        assertTrue(rules.asksIfTorn(true, false));
        assertFalse(rules.asksIfTorn(false, false));
        assertFalse(rules.asksIfTorn(true, true));
        assertFalse(new RecoveryRules(ABSOLUTE_CONSISTENCY).asksIfTorn(true, false));
        assertFalse(new RecoveryRules(TRUNCATE_AT_CORRUPTION).asksIfTorn(true, false));
        // and where it is not asked, its answer changes nothing
        for (final RecoveryMode mode : RecoveryMode.values())
        {
            final RecoveryRules r = new RecoveryRules(mode);
            for (int bits = 0; bits < 16; bits++)
            {
                final boolean below = (bits & 1) != 0;
                final boolean missing = (bits & 2) != 0;
                final boolean validAfter = (bits & 4) != 0;
                final boolean recycled = (bits & 8) != 0;
                if (!r.asksIfTorn(validAfter, recycled))
                {
                    assertEquals(r.judge(damage(below, missing, validAfter, recycled, true)),
                        r.judge(damage(below, missing, validAfter, recycled, false)), mode + " bits " + bits);
                }
            }
        }
    }

    @Test
    void aShortFileWhoseRecordsReachItsLastBlockIsALostPartNotATornWrite()
    {
        final RecoveryRules.Damage missing = damage(false, true, false, false, true);
        assertEquals(REFUSE_LOST_FILE_PART, new RecoveryRules(TOLERATE_TORN_TAIL).judge(missing));
        assertEquals(REFUSE_ANY_DAMAGE, new RecoveryRules(ABSOLUTE_CONSISTENCY).judge(missing));
        assertEquals(CUT_AND_COUNT, new RecoveryRules(TRUNCATE_AT_CORRUPTION).judge(missing));
        assertTrue(new RecoveryRules(TRUNCATE_AT_CORRUPTION).lostFileEndIsUnbounded(false, true));
        assertFalse(new RecoveryRules(TRUNCATE_AT_CORRUPTION).lostFileEndIsUnbounded(true, true));
        assertFalse(new RecoveryRules(TRUNCATE_AT_CORRUPTION).lostFileEndIsUnbounded(false, false));
        assertFalse(new RecoveryRules(TOLERATE_TORN_TAIL).lostFileEndIsUnbounded(false, true));
    }

    @Test
    void aBadNewestHeaderIsATornFirstWriteOnlyWhenNothingSaysRecordsWereThere()
    {
        final RecoveryRules tolerate = new RecoveryRules(TOLERATE_TORN_TAIL);
        assertEquals(CUT_TORN_TAIL, tolerate.judgeBadNewestHeader(false, false));
        assertEquals(REFUSE_BELOW_WATERMARK, tolerate.judgeBadNewestHeader(true, false));
        assertEquals(REFUSE_VALID_RECORDS_AFTER, tolerate.judgeBadNewestHeader(false, true));
        final RecoveryRules absolute = new RecoveryRules(ABSOLUTE_CONSISTENCY);
        assertEquals(REFUSE_ANY_DAMAGE, absolute.judgeBadNewestHeader(false, false));
        final RecoveryRules truncate = new RecoveryRules(TRUNCATE_AT_CORRUPTION);
        assertEquals(CUT_TORN_TAIL, truncate.judgeBadNewestHeader(true, false));
        assertEquals(CUT_AND_COUNT, truncate.judgeBadNewestHeader(true, true));
    }

    @Test
    void onlyTruncateAtCorruptionGivesUpLostSegmentsAndCountsUpToTheWatermark()
    {
        assertFalse(new RecoveryRules(TOLERATE_TORN_TAIL).givesUpLostSegments());
        assertFalse(new RecoveryRules(ABSOLUTE_CONSISTENCY).givesUpLostSegments());
        assertTrue(new RecoveryRules(TRUNCATE_AT_CORRUPTION).givesUpLostSegments());
        assertTrue(new RecoveryRules(TRUNCATE_AT_CORRUPTION).countsDroppedUpToWatermark(false));
        assertFalse(new RecoveryRules(TRUNCATE_AT_CORRUPTION).countsDroppedUpToWatermark(true));
        assertFalse(new RecoveryRules(TOLERATE_TORN_TAIL).countsDroppedUpToWatermark(false));
    }

    @Test
    void aHoleRefusesOnlyAbsoluteConsistency()
    {
        assertTrue(new RecoveryRules(ABSOLUTE_CONSISTENCY).refusesHole());
        assertFalse(new RecoveryRules(TOLERATE_TORN_TAIL).refusesHole());
        assertFalse(new RecoveryRules(TRUNCATE_AT_CORRUPTION).refusesHole());
    }

    @Test
    void filesAreReusedAsTheyAreUnlessZeroedByConfigOrAbsoluteConsistency()
    {
        assertTrue(new RecoveryRules(TOLERATE_TORN_TAIL).reusesFilesAsIs(false));
        assertFalse(new RecoveryRules(TOLERATE_TORN_TAIL).reusesFilesAsIs(true));
        assertFalse(new RecoveryRules(ABSOLUTE_CONSISTENCY).reusesFilesAsIs(false));
        assertTrue(new RecoveryRules(TRUNCATE_AT_CORRUPTION).reusesFilesAsIs(false));
    }

    @Test
    void everyModeGoesOnAboveEveryOffsetADroppedRecordMayHaveHeld()
    {
        final RecoveryRules truncate = new RecoveryRules(TRUNCATE_AT_CORRUPTION);
        final int size = 1 << 20;
        // nothing dropped: at the end
        assertEquals(500, truncate.continueAt(500, 500, -1, -1, size, -1));
        // the checkpoint names an end above the records (a lost segment, damage below the watermark)
        assertEquals(700, truncate.continueAt(500, 700, -1, -1, size, -1));
        // valid records found after the cut, beyond the watermark: the checkpoint does not name them (issue 17)
        assertEquals(900, truncate.continueAt(500, 450, 900, -1, size, -1));
        // open-ended: the most offsets the lost segment could hold, from the highest base it can have
        final long most = RecoveryRules.mostOffsetsIn(size);
        assertEquals((size - 4096) / 32 * (long)Integer.MAX_VALUE, most);
        assertEquals(800 + most, truncate.continueAt(500, 450, 600, 800, size, -1));
        assertTrue(RecoveryRules.mostOffsetsIn(LogConfig.SEGMENT_SIZE_MAX) < 1L << 57);
        assertEquals(Long.MAX_VALUE, truncate.continueAt(500, -1, -1, Long.MAX_VALUE - 5, size, -1), "saturates");
        // a truncation in progress gave up the offsets from its point: never a hole past it
        assertEquals(600, truncate.continueAt(500, 600, 900, 800, size, 600));
        // one rule in every mode (issue 17): a plain torn tail (nothing found after the cut) goes on at the cut,
        // a torn tail with valid records counted after it goes on after them, in the default mode too
        final RecoveryRules tolerate = new RecoveryRules(TOLERATE_TORN_TAIL);
        assertEquals(500, tolerate.continueAt(500, 450, -1, -1, size, -1));
        assertEquals(900, tolerate.continueAt(500, 450, 900, -1, size, -1));
        assertEquals(600, tolerate.continueAt(500, 450, 900, -1, size, 600));
        assertEquals(500, new RecoveryRules(ABSOLUTE_CONSISTENCY).continueAt(500, 500, -1, -1, size, -1));
    }

    @Test
    void aMissingModeIsRefusedByName()
    {
        final NullPointerException e = assertThrows(NullPointerException.class, () -> new RecoveryRules(null));
        assertTrue(e.getMessage().contains("mode"));
    }
}
