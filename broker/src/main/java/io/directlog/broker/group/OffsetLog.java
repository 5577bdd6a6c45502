package io.directlog.broker.group;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The groups' events (Kafka's {@code __consumer_offsets} records) encoded into a {@link GroupLog}: committed
 * offsets, each group's generation and protocol, the members of a stable group with their assignments, group
 * deletions; replayed when a coordinator loads. It is never compacted: replay reads every commit ever made (see
 * docs/broker.md, limits).
 * <p>
 * Thread-safe as its {@link GroupLog} is.
 */
final class OffsetLog
{
    private static final byte COMMIT = 1;
    private static final byte GROUP = 2;
    private static final byte DELETE = 3;
    private static final byte MEMBERS = 4;

    /** One committed offset. */
    record Commit(String topic, int partition, long offset, int leaderEpoch, String metadata, long timestamp)
    {
    }

    /** A member of a stable group as stored: enough to serve its heartbeats, syncs and commits after a restart. */
    record StoredMember(String memberId, String instanceId, String clientId, String clientHost, int sessionTimeoutMs,
        int rebalanceTimeoutMs, byte[] metadata, byte[] assignment)
    {
    }

    /** A stable group's membership (Kafka's GroupMetadata record). */
    record Membership(String protocolType, int generation, String protocolName, String leaderId,
        List<StoredMember> members)
    {
    }

    /** What replay calls for each event, in log order. */
    interface Visitor
    {
        void onCommit(String group, Commit commit);

        void onGroup(String group, String protocolType, int generation, String protocolName);

        void onDelete(String group);

        void onMembers(String group, Membership membership);
    }

    private final GroupLog log;

    OffsetLog(final GroupLog log)
    {
        this.log = log;
    }

    /** @return where the events are. */
    GroupLog log()
    {
        return log;
    }

    void replay(final Visitor visitor)
    {
        log.replay(event -> decode(event, visitor));
    }

    private static void decode(final byte[] event, final Visitor visitor)
    {
        try
        {
            final DataInputStream in = new DataInputStream(new ByteArrayInputStream(event));
            final byte type = in.readByte();
            final String group = in.readUTF();
            switch (type)
            {
                case COMMIT ->
                {
                    for (int n = in.readInt(); n > 0; n--)
                    {
                        visitor.onCommit(group, new Commit(in.readUTF(), in.readInt(), in.readLong(), in.readInt(),
                            in.readUTF(), in.readLong()));
                    }
                }
                case GROUP -> visitor.onGroup(group, in.readUTF(), in.readInt(), in.readUTF());
                case DELETE -> visitor.onDelete(group);
                case MEMBERS -> visitor.onMembers(group, readMembership(in));
                default -> throw new IllegalStateException("unknown group event type " + type);
            }
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException("a group event is damaged", e);
        }
    }

    CompletableFuture<Long> commit(final String group, final List<Commit> commits)
    {
        return append(out ->
        {
            out.writeByte(COMMIT);
            out.writeUTF(group);
            out.writeInt(commits.size());
            for (final Commit c : commits)
            {
                out.writeUTF(c.topic());
                out.writeInt(c.partition());
                out.writeLong(c.offset());
                out.writeInt(c.leaderEpoch());
                out.writeUTF(c.metadata() == null ? "" : c.metadata());
                out.writeLong(c.timestamp());
            }
        });
    }

    CompletableFuture<Long> group(final String group, final String protocolType, final int generation,
        final String protocolName)
    {
        return append(out ->
        {
            out.writeByte(GROUP);
            out.writeUTF(group);
            out.writeUTF(protocolType == null ? "" : protocolType);
            out.writeInt(generation);
            out.writeUTF(protocolName == null ? "" : protocolName);
        });
    }

    private static Membership readMembership(final DataInputStream in) throws IOException
    {
        final String protocolType = in.readUTF();
        final int generation = in.readInt();
        final String protocolName = in.readUTF();
        final String leaderId = in.readUTF();
        final int n = in.readInt();
        final List<StoredMember> members = new java.util.ArrayList<>(n);
        for (int i = 0; i < n; i++)
        {
            final String memberId = in.readUTF();
            final String instanceId = in.readUTF();
            members.add(new StoredMember(memberId, instanceId.isEmpty() ? null : instanceId, in.readUTF(),
                in.readUTF(), in.readInt(), in.readInt(), readBytes(in), readBytes(in)));
        }
        return new Membership(protocolType, generation, protocolName, leaderId, members);
    }

    private static byte[] readBytes(final DataInputStream in) throws IOException
    {
        final byte[] b = new byte[in.readInt()];
        in.readFully(b);
        return b;
    }

    /**
     * Stores a stable group's members and assignments, so that after a restart they go on with their generation
     * instead of rejoining.
     */
    CompletableFuture<Long> members(final String group, final Membership m)
    {
        return append(out ->
        {
            out.writeByte(MEMBERS);
            out.writeUTF(group);
            out.writeUTF(m.protocolType() == null ? "" : m.protocolType());
            out.writeInt(m.generation());
            out.writeUTF(m.protocolName() == null ? "" : m.protocolName());
            out.writeUTF(m.leaderId() == null ? "" : m.leaderId());
            out.writeInt(m.members().size());
            for (final StoredMember sm : m.members())
            {
                out.writeUTF(sm.memberId());
                out.writeUTF(sm.instanceId() == null ? "" : sm.instanceId());
                out.writeUTF(sm.clientId() == null ? "" : sm.clientId());
                out.writeUTF(sm.clientHost() == null ? "" : sm.clientHost());
                out.writeInt(sm.sessionTimeoutMs());
                out.writeInt(sm.rebalanceTimeoutMs());
                out.writeInt(sm.metadata().length);
                out.write(sm.metadata());
                out.writeInt(sm.assignment().length);
                out.write(sm.assignment());
            }
        });
    }

    CompletableFuture<Long> delete(final String group)
    {
        return append(out ->
        {
            out.writeByte(DELETE);
            out.writeUTF(group);
        });
    }

    private interface EventWriter
    {
        void write(DataOutputStream out) throws IOException;
    }

    private CompletableFuture<Long> append(final EventWriter writer)
    {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes))
        {
            writer.write(out);
        }
        catch (final IOException e)
        {
            throw new UncheckedIOException(e);
        }
        return log.append(bytes.toByteArray());
    }
}
