package io.directlog.storage.log;

/**
 * A point in a log up to which its records are written: the writer publishes one after every successful flush
 * (an immutable object behind a volatile field), the syncer takes it BEFORE its fdatasync and, once the sync
 * succeeded, writes it to the checkpoint as the durable watermark.
 *
 * @param epoch              bumped by every truncation: a watermark of an older epoch is never written.
 * @param sequence           the segment it lies in.
 * @param position           a record boundary in that segment (the end of the last written record).
 * @param offset             the offset of the record that starts there.
 * @param lastRecordPosition the position of the last record below it in that segment, or -1.
 * @param lastRecordOffset   that record's offset, or -1.
 */
record Watermark(long epoch, long sequence, int position, long offset, int lastRecordPosition, long lastRecordOffset)
{
}
