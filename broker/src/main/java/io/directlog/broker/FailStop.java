package io.directlog.broker;

import java.util.concurrent.TimeUnit;

/**
 * What a cluster node does when its replication dies under it (Ratis closed its Raft server or a group): it exits.
 * A broker that runs on without its replicas still answers Metadata and holds its port, yet can never again lead,
 * follow or catch up: a zombie its peers count as a missing vote. Exiting with {@value #EXIT_STATUS} after an ERROR
 * line saying why is what a Kafka operator knows (Kafka halts a broker on a fatal fault and leaves the restart to
 * its supervisor): systemd, Kubernetes or the operator restarts it, and a restarted node rejoins its groups as a
 * follower and catches up from the leader.
 * <p>
 * Thread-safe: called once, on a Ratis thread.
 */
final class FailStop
{
    /** The process's exit status after a fail-stop; 70 is sysexits' EX_SOFTWARE (an internal error). */
    static final int EXIT_STATUS = 70;
    /** The shutdown hooks (the CLI's closes the broker and its store) get this long before the process halts. */
    private static final long HOOKS_MILLIS = TimeUnit.SECONDS.toMillis(30);
    private static final System.Logger LOG = System.getLogger(FailStop.class.getName());

    private FailStop()
    {
    }

    /**
     * Logs the reason and exits the JVM with {@link #EXIT_STATUS}, from a thread of its own (the caller may be a
     * thread the shutdown waits for); halts if the shutdown hooks take longer than {@link #HOOKS_MILLIS}.
     *
     * @param reason what died.
     */
    static void exit(final String reason)
    {
        LOG.log(System.Logger.Level.ERROR, "FATAL: " + reason + "; the broker exits with status " + EXIT_STATUS +
            " so that it is restarted and rejoins the cluster as a follower");
        final Thread halt = new Thread(() ->
        {
            try
            {
                Thread.sleep(HOOKS_MILLIS); // a hung shutdown hook must not leave the zombie this exit ends
            }
            catch (final InterruptedException e)
            {
                return;
            }
            Runtime.getRuntime().halt(EXIT_STATUS);
        }, "directlog-fail-stop-halt");
        halt.setDaemon(true);
        halt.start();
        new Thread(() -> System.exit(EXIT_STATUS), "directlog-fail-stop").start();
    }
}
