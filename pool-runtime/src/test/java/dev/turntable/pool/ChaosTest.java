package dev.turntable.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

/**
 * Chaos: every live setting changed at once, at random, while several submitters feed tiny
 * tasks, and a random ending. The other stress tests each vary one thing; this one varies them
 * all in the same run, with accounting per task:
 *
 * <ul>
 *   <li>a round builds a pool with a random capacity mode (unbounded, bounded(n), hand-off),
 *       core and maximum size, keep-alive, strategy (sometimes one of our own that throws),
 *       stealing, statistics settings, weights, lifetimes, concurrency limit, heartbeat and
 *       select timeouts, task classes and rebalancing (not on hand-off), listeners that throw,
 *       and a rejection handler: Abort, CallerRuns, DiscardOldest, Discard, a blocking
 *       {@code getQueue().put(r)} or a timed offer (each our own copy of the JDK policy, so
 *       that what it runs or drops is counted);</li>
 *   <li>submitters send tiny tasks: {@code execute}, {@code submit}, timed {@code invokeAll}
 *       and {@code invokeAny}, ~50 µs spins, parents that submit a child and wait for it
 *       (bounded), tasks that throw (their worker dies) or return interrupted,
 *       {@link RestartableTask}s that rebalancing may stop; with bursts, idle gaps, paced
 *       trickles and waves;</li>
 *   <li>a chaos thread (sometimes two, racing) meanwhile changes every live setter of the queue
 *       and of ThreadPoolExecutor (sizes, keep-alive, core time-out, rejection handler, thread
 *       factory), recycles workers, resets statistics, reads every view, removes, cancels and
 *       purges tasks, interrupts submitters and workers, and tries invalid values: each must
 *       throw IllegalArgumentException naming the value and leave the getter unchanged; in some
 *       rounds a taker thread keeps removing, polling and draining recent tasks;</li>
 *   <li>in some rounds, once the submitters are done and the settings left alone, every accepted
 *       task must run while the pool still runs (a lost wake-up would otherwise only show as a
 *       late run at shutdown);</li>
 *   <li>the round ends with {@code shutdown()} or {@code shutdownNow()} at a random moment,
 *       sometimes issued by a task on a worker; {@code awaitTermination} must return within
 *       30 s (else: thread dump and the pool's state, failure), every worker thread must then
 *       end, and no slot, class count or queued task may be left.</li>
 * </ul>
 *
 * Per task id: an accepted task was dispatched exactly once (counted in {@code beforeExecute},
 * so a {@code FutureTask} that is dispatched twice is seen though it runs its body once), or
 * run by CallerRuns, or returned by {@code shutdownNow} once, or dropped by a policy, or taken
 * back (remove, poll, drainTo, DiscardOldest): exactly one of these. A rejected task never ran.
 * A restartable task completes at most once, and exactly once unless {@code shutdownNow}
 * stopped it (its own interrupt, or rebalancing's a moment before). Plus
 * {@code getCompletedTaskCount()} = dispatches - restarts.
 *
 * <p>{@code -Dchaos.seed=S} replays the rounds' configurations and action sequences (the
 * interleaving is the machine's); a failing round prints its own replay line
 * ({@code -Dchaos.seed=<its seed> -Dchaos.rounds=1 -Dchaos.scale=<scale>}). The suite's default
 * run starts rounds for 8 s at quarter size; {@code -Dchaos.rounds=N} runs N full-size rounds.
 *
 * <p>This class runs the rounds and plays each one ({@link #play}); the parts live beside it, all
 * package-private: {@link ChaosConfig} (the random pool and plan of a round), {@link ChaosRound}
 * (its shared state and ending), {@link ChaosSubmitters} and {@link ChaosTasks} (what is sent),
 * {@link ChaosExecutor} and {@link ChaosRejectionHandler} (the pool's hooks and the counting
 * policies), {@link ChaosChanger}, {@link ChaosClassChanges} and {@link ChaosSetterChecks} (the
 * chaos thread and how it judges a setter), {@link ChaosLedger} (each task's fate) and
 * {@link ChaosChecks} (liveness and the checks after termination).
 */
class ChaosTest {

    private static final int ROUNDS = Integer.getInteger("chaos.rounds", 100);
    /**
     * No new round starts after this many seconds: 8 in the suite's default run (a round takes
     * 0.1-2 s), none when {@code -Dchaos.rounds} is given, unless {@code -Dchaos.seconds} is too.
     */
    private static final long SECONDS = Long.getLong("chaos.seconds",
            System.getProperty("chaos.rounds") == null ? 8 : Long.MAX_VALUE / 2_000_000_000L);
    private static final long SEED = Long.getLong("chaos.seed", System.nanoTime());
    /**
     * Tasks per submitter scale by this: 0.25 in the suite's default run, 1 when
     * {@code -Dchaos.rounds} is given. A replay needs the same scale (the replay line names it).
     */
    private static final double SCALE = Double.parseDouble(System.getProperty("chaos.scale",
            System.getProperty("chaos.rounds") == null ? "0.25" : "1"));
    /** Stop after this many failing rounds. */
    private static final int MAX_FAILING_ROUNDS = Integer.getInteger("chaos.maxFailingRounds", 3);
    static final long TERMINATION_SECONDS = Long.getLong("chaos.terminationSeconds", 30);
    static final long QUIESCE_SECONDS = Long.getLong("chaos.quiesceSeconds", 20);

    final ChaosCounts counts = new ChaosCounts();

    /** FLAKY's throws are logged once per pool, with a stack trace: kept out of the build's output. */
    private static final Logger ENGINE_LOG = Logger.getLogger(TurntableQueue.class.getName());

    @Test
    void chaos() throws Exception {
        ENGINE_LOG.setLevel(Level.SEVERE);
        System.out.println("chaos seed " + SEED + ", rounds " + ROUNDS + " (replay: -Dchaos.seed=" + SEED
                + " -Dchaos.rounds=" + ROUNDS + " -Dchaos.scale=" + SCALE + ")");
        long t0 = System.nanoTime();
        List<String> failedRounds = new ArrayList<>();
        long budgetEnd = t0 + TimeUnit.SECONDS.toNanos(SECONDS);
        for (int r = 0; r < ROUNDS && failedRounds.size() < MAX_FAILING_ROUNDS && System.nanoTime() < budgetEnd; r++) {
            long roundSeed = SEED + r;
            ChaosRound round = new ChaosRound(r, roundSeed, SCALE, counts);
            play(round);
            if (ROUNDS > 100 && (r + 1) % 250 == 0) {
                System.out.printf("chaos: %d rounds, %.0f s, %d failing%n", r + 1, (System.nanoTime() - t0) / 1e9,
                        failedRounds.size() + (round.failures.isEmpty() ? 0 : 1));
            }
            if (!round.failures.isEmpty()) {
                StringBuilder sb = new StringBuilder();
                sb.append("round ").append(r).append(" (replay: -Dchaos.seed=").append(roundSeed)
                        .append(" -Dchaos.rounds=1 -Dchaos.scale=").append(SCALE).append(") ").append(round.cfg).append('\n');
                int shown = 0;
                for (String f : round.failures) {
                    if (shown++ == 25) {
                        sb.append("  ... and ").append(round.failures.size() - 25).append(" more\n");
                        break;
                    }
                    sb.append("  ").append(f).append('\n');
                }
                System.out.println("CHAOS FAILURE " + sb);
                failedRounds.add(sb.toString());
            }
        }
        System.out.printf("chaos: %d rounds in %.1f s%n", (int) counts.get("rounds"),
                (System.nanoTime() - t0) / 1e9);
        counts.print();
        assertEquals(List.of(), failedRounds, "chaos seed " + SEED);
    }

    /**
     * One round, start to end: the pool is built; the chaos thread(s), the taker and the
     * submitters start; once enough is submitted (and, in quiesce rounds, everything accepted has
     * run) the round ends with shutdown() or shutdownNow(), from a worker or from here; then
     * termination is awaited and everything is checked.
     */
    private static void play(ChaosRound round) throws Exception {
        ChaosConfig config = round.config;
        ChaosChecks checks = new ChaosChecks(round);
        round.buildPool();
        round.count("rounds");
        round.count("mode " + config.mode);
        round.count("ending " + (config.endWithShutdownNow ? "shutdownNow" : "shutdown"));

        // The chaos thread(s) and the taker start first, the submitters last.
        ChaosSubmitters feed = new ChaosSubmitters(round);
        List<Thread> subs = new ArrayList<>();
        for (int s = 0; s < config.submitters; s++) {
            int si = s;
            long subSeed = round.seed * 31 + s;
            Thread t = new Thread(() -> feed.submitter(si, new Random(subSeed)), "chaos-sub-" + s);
            t.setDaemon(true);
            subs.add(t);
        }
        List<Thread> changers = new ArrayList<>();
        for (int c = 0; c < (config.twoChangers ? 2 : 1); c++) {
            ChaosChanger changer = new ChaosChanger(round, new Random(round.seed * 17 + 5 + c), !config.twoChangers);
            Thread t = new Thread(changer, "chaos-changer-" + c);
            t.setDaemon(true);
            changers.add(t);
            t.start();
        }
        if (config.taker) {
            Thread t = new Thread(feed::taker, "chaos-taker");
            t.setDaemon(true);
            changers.add(t); // stopped with the changers
            t.start();
        }
        round.submitterThreads = List.copyOf(subs);
        subs.forEach(Thread::start);

        // Until the ending's moment (or all submitted), then, in quiesce rounds, until all has run.
        long t0 = System.nanoTime();
        if (!round.endTrigger.await(60, TimeUnit.SECONDS)) {
            round.fail("submitters stalled: " + round.topLevelSubmitted.get() + " of " + config.total
                    + " submitted after 60 s; " + round.describe() + "\n" + ChaosRound.dumpThreads());
        }
        if (config.quiesce) {
            checks.quiesce(changers);
        }
        List<Runnable> unrun = new ArrayList<>();
        long t1 = System.nanoTime();
        round.count("ms: submitting (and quiesce)", TimeUnit.NANOSECONDS.toMillis(t1 - t0));
        // The ending, and termination.
        if (config.endFromWorker) {
            round.endFromWorker();
        }
        round.end(); // nothing if the ender did it
        unrun.addAll(round.endList);
        boolean terminated = round.pool.awaitTermination(TERMINATION_SECONDS, TimeUnit.SECONDS);
        if (!terminated) {
            round.count("TERMINATION HANG");
            round.fail("HANG: not terminated " + TERMINATION_SECONDS + " s after "
                    + (config.endWithShutdownNow ? "shutdownNow" : "shutdown") + ": " + round.describe() + "\n"
                    + ChaosRound.dumpThreads());
            round.stopIssued = true;
            unrun.addAll(round.pool.shutdownNow());
            if (!round.pool.awaitTermination(TERMINATION_SECONDS, TimeUnit.SECONDS)) {
                round.fail("HANG: not terminated even after a later shutdownNow: " + round.describe());
            }
        }
        // The threads' ends, then the checks.
        long t2 = System.nanoTime();
        round.count("ms: termination", TimeUnit.NANOSECONDS.toMillis(t2 - t1));
        round.stopChangers(changers);
        checks.endSubmitters(subs);
        round.count("ms: submitters' end", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t2));
        if (terminated) {
            checks.threadsGone();
        }
        checks.account(unrun, terminated);
    }
}
