package io.directlog.broker.group;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.common.message.DeleteGroupsResponseData;
import org.apache.kafka.common.message.DescribeGroupsResponseData;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.ListGroupsResponseData;
import org.apache.kafka.common.protocol.Errors;

import io.directlog.storage.LogStore;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * A node's group coordinators, one per group log (Kafka's {@code __consumer_offsets} partitions): a group belongs to
 * the log its id hashes to, as in Kafka, so every node agrees where a group lives without asking. A single node has
 * one local log; a cluster node one coordinator per replicated offsets partition, serving the groups of those it
 * leads. The coordinators share one thread (their state is small, their work short) and one loader thread (a load
 * reads a whole log).
 * <p>
 * Thread-safe.
 */
public final class GroupCoordinators implements AutoCloseable
{
    private final ScheduledExecutorService thread;
    private final ExecutorService loader;
    private final List<GroupCoordinator> coordinators = new ArrayList<>();

    private GroupCoordinators(final List<GroupLog> logs, final long initialDelayMs, final boolean loadNow)
    {
        thread = Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "directlog-group-coordinator"));
        loader = Executors.newSingleThreadExecutor(r -> daemon(r, "directlog-group-loader"));
        try
        {
            for (final GroupLog log : logs)
            {
                coordinators.add(new GroupCoordinator(log, initialDelayMs, thread, loader, loadNow));
            }
        }
        catch (final RuntimeException e)
        {
            close();
            throw e;
        }
    }

    private static Thread daemon(final Runnable r, final String name)
    {
        final Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    /**
     * A single node's coordinator: its groups' log is a local DirectLog log, replayed here before this returns.
     *
     * @param store          the store holding the log.
     * @param initialDelayMs Kafka's group.initial.rebalance.delay.ms.
     * @return the coordinators (one).
     */
    public static GroupCoordinators local(final LogStore store, final long initialDelayMs)
    {
        return new GroupCoordinators(List.of(new LocalGroupLog(store)), initialDelayMs, true);
    }

    /**
     * A cluster node's coordinators, one per offsets partition; each loads its log when this node becomes that
     * partition's leader.
     *
     * @param logs           the offsets partitions, in partition order (the same on every node).
     * @param initialDelayMs Kafka's group.initial.rebalance.delay.ms.
     * @return the coordinators.
     */
    public static GroupCoordinators replicated(final List<? extends GroupLog> logs, final long initialDelayMs)
    {
        if (logs.isEmpty())
        {
            throw new IllegalArgumentException("a cluster needs at least one offsets partition");
        }
        return new GroupCoordinators(List.copyOf(logs), initialDelayMs, false);
    }

    /**
     * Registers one gauge per classic group state: {@code directlog.broker.groups{state=Empty|PreparingRebalance|
     * CompletingRebalance|Stable|Dead}}, the groups this node coordinates in that state (Kafka's GroupMetadataManager
     * NumGroupsEmpty, NumGroupsPreparingRebalance and so on). Counted by each coordinator's sweep, every half second.
     * Dead is always 0: a deleted group is gone from the map at once (Kafka's Dead is as short-lived).
     *
     * @param registry where the gauges go.
     */
    public void registerMeters(final MeterRegistry registry)
    {
        for (final Group.State state : Group.State.values())
        {
            Gauge.builder("directlog.broker.groups", this, c -> c.coordinators.stream()
                    .mapToInt(each -> each.groupsIn(state)).sum())
                .description("classic consumer groups coordinated here, per state (as of the last sweep, <= 0.5 s)")
                .tag("state", state.kafkaName).register(registry);
        }
    }

    /**
     * @param groupId a group id (null counts as empty).
     * @return the index of the log that holds the group: its id's hash modulo the log count (Kafka's rule).
     */
    public int partitionFor(final String groupId)
    {
        return ((groupId == null ? 0 : groupId.hashCode()) & 0x7fffffff) % coordinators.size();
    }

    /**
     * @param groupId a group id.
     * @return the coordinator of the log that holds it.
     */
    public GroupCoordinator forGroup(final String groupId)
    {
        return coordinators.get(partitionFor(groupId));
    }

    /**
     * ListGroups: the groups of every log this node coordinates. COORDINATOR_LOAD_IN_PROGRESS while one of them is
     * loading (as Kafka answers), so that a listing does not silently miss groups.
     *
     * @param req the request.
     * @return the response.
     */
    public CompletableFuture<ListGroupsResponseData> list(final ListGroupsRequestData req)
    {
        final List<CompletableFuture<ListGroupsResponseData>> parts = new ArrayList<>();
        coordinators.forEach(c -> parts.add(c.list(req)));
        return CompletableFuture.allOf(parts.toArray(new CompletableFuture<?>[0])).thenApply(v ->
        {
            final ListGroupsResponseData resp = new ListGroupsResponseData().setErrorCode(Errors.NONE.code());
            for (final CompletableFuture<ListGroupsResponseData> part : parts)
            {
                final ListGroupsResponseData r = part.join();
                if (r.errorCode() == Errors.COORDINATOR_LOAD_IN_PROGRESS.code())
                {
                    return new ListGroupsResponseData().setErrorCode(r.errorCode());
                }
                resp.groups().addAll(r.groups());
            }
            return resp;
        });
    }

    /**
     * DescribeGroups across logs, in the order asked.
     *
     * @param groupIds the groups.
     * @return their descriptions (each with NOT_COORDINATOR where another node coordinates it).
     */
    public CompletableFuture<List<DescribeGroupsResponseData.DescribedGroup>> describe(final List<String> groupIds)
    {
        final Map<Integer, CompletableFuture<List<DescribeGroupsResponseData.DescribedGroup>>> byLog =
            new LinkedHashMap<>();
        split(groupIds).forEach((log, ids) -> byLog.put(log, coordinators.get(log).describe(ids)));
        return CompletableFuture.allOf(byLog.values().toArray(new CompletableFuture<?>[0])).thenApply(v ->
        {
            final Map<String, DescribeGroupsResponseData.DescribedGroup> found = new LinkedHashMap<>();
            byLog.values().forEach(f -> f.join().forEach(d -> found.put(d.groupId(), d)));
            return groupIds.stream().map(found::get).toList();
        });
    }

    /**
     * DeleteGroups across logs.
     *
     * @param groupIds the groups to delete.
     * @return the per-group results.
     */
    public CompletableFuture<DeleteGroupsResponseData> delete(final List<String> groupIds)
    {
        final List<CompletableFuture<DeleteGroupsResponseData>> parts = new ArrayList<>();
        split(groupIds).forEach((log, ids) -> parts.add(coordinators.get(log).delete(ids)));
        return CompletableFuture.allOf(parts.toArray(new CompletableFuture<?>[0])).thenApply(v ->
        {
            final DeleteGroupsResponseData resp = new DeleteGroupsResponseData();
            parts.forEach(p -> p.join().results().forEach(r -> resp.results().add(r.duplicate())));
            return resp;
        });
    }

    private Map<Integer, List<String>> split(final List<String> groupIds)
    {
        final Map<Integer, List<String>> byLog = new LinkedHashMap<>();
        for (final String id : groupIds)
        {
            byLog.computeIfAbsent(partitionFor(id), k -> new ArrayList<>()).add(id);
        }
        return byLog;
    }

    /** Stops the coordinators' threads; parked requests are left to their connections' close. */
    @Override
    public void close()
    {
        thread.shutdownNow();
        loader.shutdownNow();
        try
        {
            thread.awaitTermination(5, TimeUnit.SECONDS);
            loader.awaitTermination(5, TimeUnit.SECONDS);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
    }
}
