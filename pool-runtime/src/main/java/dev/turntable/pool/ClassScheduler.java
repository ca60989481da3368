package dev.turntable.pool;

import dev.turntable.pool.classes.ClassConfig;
import dev.turntable.pool.classes.LoadPlanner;
import dev.turntable.pool.classes.Requestor;
import java.lang.ref.WeakReference;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.function.Consumer;

/**
 * The task-class layer of a {@link TurntableQueue} (Scoot's load-based scheduling): while class
 * shares are configured, an offered task waits in its job (the tasks of one requestor from one
 * submitting thread) instead of going to a worker, and a scheduling pass decides, with
 * {@link LoadPlanner}, how many tasks of each class start on the idle workers: entitlement
 * first, then loans. Each started task then goes through the worker choice strategy like any
 * other. Any thread may call it.
 *
 * <p>Passes run one at a time without a lock: a caller that finds a pass running flags it to run
 * again and returns (the drain-status pattern of Caffeine's buffers), so submitters never block.
 * A pass runs after each offer, after each classed task ends, when a worker goes idle with work
 * waiting, when tasks are taken out unrun ({@code TurntableQueue.takenOutUnrun}: a started one
 * leaves its class's place free), and on the housekeeper's tick (so that rebalancing's minimum
 * duration is noticed with nothing else happening). It costs O(jobs + workers + classes²);
 * started tasks carry one small wrapper each (class mode only).
 *
 * <p>Rebalancing: a running Java task cannot be stopped safely, so the tasks the plan names to
 * stop are, if they are {@link RestartableTask}s given to {@code execute}, interrupted and put
 * back at the head of their job; any other over-entitled class is held (none of its tasks start)
 * until it is back within its entitlement.
 *
 * <p>This class is the face the queue talks to, and holds the configuration; the work is done
 * by four parts, each with its own ordering rules beside its code: the jobs and their waiting
 * tasks ({@link ClassJobs}), the lock-free pass ({@link ClassPass}), rebalancing's stops
 * ({@link ClassStops}) and the ending of each started task in its job ({@link ClassEndings}).
 * The plan itself is {@link LoadPlanner} and the configuration {@code ClassConfig}, apart.
 */
final class ClassScheduler {

    /** Null: classes off (waiting tasks are flushed to the workers by the next pass). */
    private volatile ClassConfig config;
    /** The executor shut down: idle workers the plan leaves unused go to any class (see {@link #ownerShutDown}). */
    private volatile boolean flushing;

    private final ClassJobs jobs = new ClassJobs();
    private final ClassStops stops;
    private final ClassEndings endings;
    private final ClassPass pass;

    /**
     * Test seam, null outside tests: held at the edges of a pass's counted claims on a job
     * ({@code ClassPass.startFrom}, {@code ClassPass.flushAll}). One volatile read per task a
     * pass starts, which costs nothing beside the pass itself.
     */
    volatile ClaimProbe claimProbe;

    ClassScheduler(TurntableQueue queue) {
        stops = new ClassStops(queue);
        endings = new ClassEndings(queue, jobs, stops);
        pass = new ClassPass(this, queue, jobs, stops);
    }

    // ------------------------------------------------------------------ configuration

    ClassConfig config() {
        return config;
    }

    boolean enabled() {
        return config != null;
    }

    /**
     * Switches classes on, changes them, or (null) off; takes effect at the next pass, which the
     * caller runs ({@link #schedule}) once it has let go of the registration lock it configures
     * under ({@link TaskClassSettings}). A pass must not run under that lock: a claim it counts
     * may come up empty, and the pass then makes a shut-down owner re-check termination
     * ({@link TurntableQueue#emptyClaimEnded}), which takes the executor's main lock; and the
     * main lock is held while the registration lock is taken (the last worker's
     * {@code tryTerminate} runs {@code TurntableExecutor.terminated()}, whose
     * {@code workerExiting()} frees its slot under the registration lock). A pass under the
     * lock also held off every worker leaving its wait ({@code WorkerRegistry.detach}) for as
     * long as it ran. The pass reads the configuration (volatile) when it starts, so one run
     * after the lock sees this one or a later one.
     */
    void configure(ClassConfig c) {
        config = c;
    }

    /**
     * The executor was shut down: ThreadPoolExecutor still runs what was submitted, and it cannot
     * terminate while tasks wait. Shares still hold while the plan has work for the idle workers;
     * workers it leaves idle now take tasks of any class, so a 0% class (which the plan never
     * starts) cannot keep the pool alive forever. New offers are refused by the executor itself.
     */
    void ownerShutDown() {
        flushing = true;
        schedule();
    }

    /** Whether the executor was shut down ({@link #ownerShutDown}); read by each pass. */
    boolean flushing() {
        return flushing;
    }

    /** Stopped restartable tasks whose workers have not come back yet (see {@link ClassStops}). */
    int stoppedNotBackCount() {
        return stops.stoppedNotBackCount();
    }

    void setRequestor(Requestor r) {
        jobs.setRequestor(r);
    }

    void setPoolName(String name) {
        jobs.setPoolName(name);
    }

    void addListener(Consumer<Rebalance> l) {
        stops.addListener(l);
    }

    void removeListener(Consumer<Rebalance> l) {
        stops.removeListener(l);
    }

    // ------------------------------------------------------------------ submit side

    /** Queues an offered element in its job and runs a pass. Never blocks. */
    void offer(Runnable element, Runnable task) {
        jobs.offer(element, task);
        schedule();
    }

    boolean hasWaiting() {
        return jobs.hasWaiting();
    }

    int waitingCount() {
        return jobs.waitingCount();
    }

    // ------------------------------------------------------------------ worker side

    /** {@link ClassEndings#finished}, then the pass it makes due. */
    void finished(WorkerSlot s, ClassedTask ct) {
        if (endings.finished(s, ct)) {
            schedule();
        }
    }

    /** {@link ClassEndings#abandoned}, then the pass it makes due. */
    void abandoned(WorkerSlot s, ClassedTask ct) {
        if (endings.abandoned(s, ct)) {
            schedule();
        }
    }

    /** {@link ClassEndings#awaitEndingsUnderWay}. */
    void awaitEndingsUnderWay(WorkerSlot[] slots) {
        endings.awaitEndingsUnderWay(slots);
    }

    /** Stopped restartable tasks put back so far; each will be run (and counted by the executor) again. */
    long restartCount() {
        return endings.restartCount();
    }

    /** A classed task taken out of a worker's queue without running (drainTo, remove, poll). */
    static void released(Runnable element) {
        ClassEndings.released(element);
    }

    // ------------------------------------------------------------------ collection side

    /** Takes waiting tasks out (drainTo, shutdownNow) in the order they would start: {@link ClassJobs#drainWaiting}. */
    int drainWaiting(Collection<? super Runnable> c, int max) {
        return jobs.drainWaiting(c, max);
    }

    /** Removes one waiting element whose task equals {@code o}; returns it, or null. */
    Runnable removeWaiting(Object o) {
        return jobs.removeWaiting(o);
    }

    void addWaitingTo(List<Runnable> out) {
        jobs.addWaitingTo(out);
    }

    /** Per class name: [waiting, running], in the configuration's class order. */
    Map<String, int[]> countsByClass() {
        return jobs.countsByClass(config);
    }

    // ------------------------------------------------------------------ scheduling passes

    /** Runs a pass now, or makes the running one go again ({@link ClassPass#schedule}). Never blocks. */
    void schedule() {
        pass.schedule();
    }

    /** {@link ClassPass#deferredToPlacingPass}. */
    boolean deferredToPlacingPass(WeakReference<ThreadPoolExecutor> owner) {
        return pass.deferredToPlacingPass(owner);
    }
}
