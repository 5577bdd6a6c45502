package io.directlog.broker.group;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

import org.apache.kafka.common.protocol.Errors;

/**
 * Whether this node coordinates the groups of one {@link GroupLog} now, and the loads that follow a change of its
 * leader (Kafka's coordinator moving with the {@code __consumer_offsets} leader): a new epoch drops the state the
 * coordinator holds (another leader may have written since) and reads the committed log again on the loader thread;
 * the state is installed only if the epoch is still the same when the read is done.
 * <p>
 * Not thread-safe: owned by the coordinator's thread (the load itself runs on the loader and hands back to it).
 */
final class GroupOwnership
{
    private static final System.Logger LOG = System.getLogger(GroupOwnership.class.getName());

    /** What the coordinator does when its state changes hands. */
    interface Owner
    {
        /** @param loaded the groups read from the log, to serve from now on. */
        void install(Map<String, Group> loaded);

        /** Drops every group's state: this node no longer serves it. */
        void drop();
    }

    private final OffsetLog log;
    private final Executor loader;
    private final Executor thread;
    private final Owner owner;
    /** The epoch whose state the owner holds; -1 when none. */
    private long loadedEpoch = -1;
    /** The epoch a load runs for; -1 when none runs. */
    private long loadingEpoch = -1;

    GroupOwnership(final OffsetLog log, final Executor loader, final Executor thread, final Owner owner)
    {
        this.log = log;
        this.loader = loader;
        this.thread = thread;
        this.owner = owner;
    }

    /** Loads the log here, before serving: a single node's log, always coordinated here. */
    void loadNow()
    {
        owner.install(GroupReplay.load(log));
        loadedEpoch = log.log().coordinatorEpoch();
    }

    /** @return the epoch whose state the owner holds; -1 when none. */
    long loadedEpoch()
    {
        return loadedEpoch;
    }

    /**
     * @return NONE when this node coordinates the log's groups with their state loaded; NOT_COORDINATOR when another
     *         node leads the log; COORDINATOR_LOAD_IN_PROGRESS while this node reads it after becoming its leader.
     */
    Errors check()
    {
        final long epoch = log.log().coordinatorEpoch();
        if (epoch == loadedEpoch && epoch >= 0)
        {
            return Errors.NONE;
        }
        if (loadedEpoch >= 0)
        {
            loadedEpoch = -1;
            owner.drop();
        }
        if (epoch < 0)
        {
            return Errors.NOT_COORDINATOR;
        }
        if (loadingEpoch != epoch)
        {
            startLoad(epoch);
        }
        return Errors.COORDINATOR_LOAD_IN_PROGRESS;
    }

    private void startLoad(final long epoch)
    {
        loadingEpoch = epoch;
        CompletableFuture.supplyAsync(() -> GroupReplay.load(log), loader).whenCompleteAsync((loaded, e) ->
        {
            if (loadingEpoch != epoch)
            {
                return; // superseded by a load for a later epoch
            }
            loadingEpoch = -1;
            if (e != null)
            {
                LOG.log(System.Logger.Level.WARNING, "loading the groups of " + log.log() + " failed; the next " +
                    "request tries again", e);
            }
            else if (log.log().coordinatorEpoch() == epoch)
            {
                owner.install(loaded);
                loadedEpoch = epoch;
                LOG.log(System.Logger.Level.INFO, "coordinating the " + loaded.size() + " groups of " + log.log() +
                    " in epoch " + epoch);
            }
        }, thread);
    }
}
