package dev.turntable.pool;

import dev.turntable.pool.classes.ClassConfig;
import dev.turntable.pool.classes.Requestor;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The task-class settings of a {@link TurntableQueue} ({@code class-load-percents},
 * {@code requestor-map}, rebalancing, requestor, pool name, rebalance listeners) and the bodies of
 * its public methods that read and change them; the class scheduler itself is
 * {@link ClassScheduler}, made here on first need and published in {@code TurntableQueue.classes},
 * where the submit and take paths read it. Any thread may call any method; changes hold the
 * queue's registration lock ({@code TurntableQueue.registration}), so each applies whole. The
 * public methods and their documentation stay on TurntableQueue, which delegates here. One per
 * queue, made with it.
 */
final class TaskClassSettings {

    private final TurntableQueue queue;
    private volatile int rebalanceThresholdPercent;
    private volatile long rebalanceMinimumDurationNanos;
    private volatile Requestor requestorSource;
    private volatile String poolName;

    TaskClassSettings(TurntableQueue queue, int rebalanceThresholdPercent, long rebalanceMinimumDurationNanos,
            Requestor requestorSource, String poolName) {
        this.queue = queue;
        this.rebalanceThresholdPercent = rebalanceThresholdPercent;
        this.rebalanceMinimumDurationNanos = rebalanceMinimumDurationNanos;
        this.requestorSource = requestorSource;
        this.poolName = poolName;
    }

    /**
     * {@link TurntableQueue#setTaskClasses}, under the registration lock; the pass that applies
     * it runs once out of the lock ({@link ClassScheduler#configure}).
     */
    void setTaskClasses(String classLoadPercents, String requestorMap) {
        setTaskClasses(current -> classLoadPercents, current -> requestorMap);
    }

    /**
     * As {@link #setTaskClasses(String, String)}, with the texts made from the active
     * configuration (null: classes off) under the registration lock: read before it, a change
     * of the other half made meanwhile (setRequestorMap beside setClassLoadPercents, from two
     * consoles) was written back stale, and lost.
     */
    private void setTaskClasses(java.util.function.Function<ClassConfig, String> percentsFrom,
                                java.util.function.Function<ClassConfig, String> mapFrom) {
        ClassScheduler cs;
        ClassConfig configured = null;
        String requestorMap;
        synchronized (queue.registration) {
            ClassConfig current = classConfig();
            String classLoadPercents = percentsFrom.apply(current);
            requestorMap = mapFrom.apply(current);
            if (switchesClassesOff(classLoadPercents)) {
                refuseMapWithoutClasses(classLoadPercents, requestorMap);
                cs = queue.classes;
                if (cs != null) {
                    cs.configure(null);
                }
            } else {
                ClassConfig c = ClassConfig.parse(
                        classLoadPercents, requestorMap, rebalanceThresholdPercent, rebalanceMinimumDurationNanos);
                if (queue.capacityMode == TurntableQueue.Capacity.HAND_OFF) {
                    throw new IllegalArgumentException("class-load-percents '" + classLoadPercents
                            + "' needs a queue that holds tasks; this pool hands each task straight to a thread");
                }
                cs = classScheduler();
                cs.configure(c);
                configured = c;
            }
        }
        if (configured != null) {
            warnIfUnmatchedRequestorsNeverStart(configured, requestorMap); // out of the lock leaving workers take
        }
        if (cs != null) {
            cs.schedule();
        }
    }

    /**
     * Says so (a warning, once per configuration) when the class that requestors no regex
     * matches get is at 0%: their tasks then never start while the pool runs, and on a bounded
     * pool they hold its capacity, so other classes' tasks are refused. Allowed (a 0% class is
     * how work is parked on purpose), but silent it looked like a stalled pool.
     */
    private static void warnIfUnmatchedRequestorsNeverStart(ClassConfig c, String requestorMap) {
        int fallback = c.fallbackClassIndex();
        // Once per JVM and setting: the agent applies one setting to every pool it takes over.
        if (c.normalisedPercent(fallback) == 0 && !hasCatchAll(c) && WARNED_ZERO_FALLBACK.size() < 64
                && WARNED_ZERO_FALLBACK.add(c.className(fallback) + "|" + requestorMap)) {
            System.getLogger(TurntableQueue.class.getName()).log(System.Logger.Level.WARNING,
                    "task class '" + c.className(fallback) + "' is at 0% and takes every requestor that no regex of"
                            + " requestor-map '" + (requestorMap == null ? "" : requestorMap) + "' matches: such tasks"
                            + " wait until its share is raised, classes are switched off or the pool shuts down,"
                            + " and on a bounded pool they use up its capacity");
        }
    }

    /**
     * Whether a regex of the requestor map sends every requestor to a class other than the 0%
     * fallback ({@code .*:a}, say), so that none reaches it unmatched: two requestors no one
     * would name on purpose both land elsewhere. (A review saw the warning for
     * {@code bsub.*:b;.*:a}, where nothing falls through to b.)
     */
    private static boolean hasCatchAll(ClassConfig c) {
        int fallback = c.fallbackClassIndex();
        return c.classIndexFor("x") != fallback && c.classIndexFor("\u0001turntable probe\u0002") != fallback;
    }

    /** Settings already warned about by {@link #warnIfUnmatchedRequestorsNeverStart} (at most 64 kept). */
    static final java.util.Set<String> WARNED_ZERO_FALLBACK = java.util.concurrent.ConcurrentHashMap.newKeySet(); // tests clear it

    /** Whether {@code classLoadPercents} (null or blank) means task classes off. */
    static boolean switchesClassesOff(String classLoadPercents) {
        return classLoadPercents == null || classLoadPercents.isBlank();
    }

    /** A requestor map given with classes off would be dropped unread: refused, naming both. */
    static void refuseMapWithoutClasses(String classLoadPercents, String requestorMap) {
        if (requestorMap != null && !requestorMap.replace(';', ' ').isBlank()) {
            throw new IllegalArgumentException("requestor-map '" + requestorMap + "' needs task classes,"
                    + " but class-load-percents '" + classLoadPercents + "' switches them off;"
                    + " give class-load-percents too, or an empty requestor-map");
        }
    }

    /** {@link TurntableQueue#setClassLoadPercents}: keeps the requestor map. */
    void setClassLoadPercents(String classLoadPercents) {
        setTaskClasses(c -> classLoadPercents,
                c -> c == null || switchesClassesOff(classLoadPercents) ? "" : c.requestorMapText());
    }

    /** {@link TurntableQueue#setRequestorMap}: keeps the class shares. */
    void setRequestorMap(String requestorMap) {
        setTaskClasses(c -> {
            if (c == null) {
                throw new IllegalArgumentException("requestor-map '" + requestorMap
                        + "' needs task classes: set class-load-percents first");
            }
            return c.classLoadPercentsText();
        }, c -> requestorMap);
    }

    /** {@link TurntableQueue#classConfig}: the active class configuration, or null when classes are off. */
    ClassConfig classConfig() {
        ClassScheduler cs = queue.classes;
        return cs == null ? null : cs.config();
    }

    /** {@link TurntableQueue#getRequestorMap}. */
    Map<String, String> requestorMap() {
        ClassConfig c = classConfig();
        Map<String, String> out = new LinkedHashMap<>();
        if (c != null && !c.requestorMapText().isEmpty()) {
            for (String e : c.requestorMapText().split(";")) {
                int colon = e.lastIndexOf(':');
                out.put(e.substring(0, colon), e.substring(colon + 1));
            }
        }
        return out;
    }

    /** {@link TurntableQueue#getRestartedTaskCount}. */
    long restartedTaskCount() {
        ClassScheduler cs = queue.classes;
        return cs == null ? 0L : cs.restartCount();
    }

    /** Per class: tasks waiting ({@code which} 0) or running (1); empty when classes are off. */
    Map<String, Integer> classCounts(int which) {
        ClassScheduler cs = queue.classes;
        Map<String, Integer> out = new LinkedHashMap<>();
        if (cs != null) {
            cs.countsByClass().forEach((k, v) -> out.put(k, v[which]));
        }
        return out;
    }

    /** {@link TurntableQueue#getRebalanceThreshold}. */
    int rebalanceThreshold() {
        return rebalanceThresholdPercent;
    }

    /** {@link TurntableQueue#setRebalanceThreshold}. */
    void setRebalanceThreshold(int percentagePoints) {
        ClassScheduler cs = null;
        synchronized (queue.registration) {
            ClassConfig c = classConfig();
            ClassConfig next = (c == null ? ClassConfig.defaults() : c)
                    .withRebalancing(percentagePoints, rebalanceMinimumDurationNanos); // validates
            rebalanceThresholdPercent = percentagePoints;
            if (c != null) {
                cs = queue.classes;
                cs.configure(next);
            }
        }
        if (cs != null) {
            cs.schedule(); // out of the lock: see ClassScheduler.configure
        }
    }

    /** {@link TurntableQueue#getRebalanceMinimumDurationMillis}. */
    long rebalanceMinimumDurationMillis() {
        return TimeUnit.NANOSECONDS.toMillis(rebalanceMinimumDurationNanos);
    }

    /** {@link TurntableQueue#setRebalanceMinimumDurationMillis}. */
    void setRebalanceMinimumDurationMillis(long millis) {
        TurntableQueue.checkDurationMillis("rebalance-min-duration-ms", millis, null);
        ClassScheduler cs = null;
        synchronized (queue.registration) {
            long nanos = TimeUnit.MILLISECONDS.toNanos(millis);
            rebalanceMinimumDurationNanos = nanos;
            ClassConfig c = classConfig();
            if (c != null) {
                cs = queue.classes;
                cs.configure(c.withRebalancing(rebalanceThresholdPercent, nanos));
            }
        }
        if (cs != null) {
            cs.schedule(); // out of the lock: see ClassScheduler.configure
        }
    }

    /** {@link TurntableQueue#getRequestor}. */
    String requestor() {
        return requestorSource.name();
    }

    /** {@link TurntableQueue#setRequestor}. */
    void setRequestor(String source) {
        Requestor r = Requestor.parse(source);
        synchronized (queue.registration) {
            requestorSource = r;
            if (queue.classes != null) {
                queue.classes.setRequestor(r);
            }
        }
    }

    /** {@link TurntableQueue#setPoolName}. */
    void setPoolName(String name) {
        synchronized (queue.registration) {
            poolName = TurntableQueueBuilder.given(name, "poolName", TurntableQueueBuilder.POOL_NAMES);
            if (queue.classes != null) {
                queue.classes.setPoolName(name);
            }
        }
    }

    /** {@link TurntableQueue#addRebalanceListener}: makes the class scheduler if there is none yet. */
    void addRebalanceListener(Consumer<Rebalance> listener) {
        Objects.requireNonNull(listener, "listener");
        synchronized (queue.registration) {
            classScheduler().addListener(listener);
        }
    }

    /**
     * The class scheduler, made on first need with the current requestor and pool name, and
     * published in {@code TurntableQueue.classes} (volatile), which the take path reads; under the
     * registration lock.
     */
    private ClassScheduler classScheduler() {
        ClassScheduler cs = queue.classes;
        if (cs == null) {
            cs = new ClassScheduler(queue);
            cs.setRequestor(requestorSource);
            cs.setPoolName(poolName);
            queue.classes = cs;
        }
        return cs;
    }

    /** {@link TurntableQueue#removeRebalanceListener}. */
    void removeRebalanceListener(Consumer<Rebalance> listener) {
        ClassScheduler cs = queue.classes;
        if (cs != null) {
            cs.removeListener(listener);
        }
    }

    /** {@link TurntableQueue#ownerTerminated}: ends in their classes the class tasks no worker will end. */
    void ownerTerminated() {
        ClassScheduler cs = queue.classes;
        if (cs == null) {
            return;
        }
        WorkerSlot[] ss = queue.slots;
        for (WorkerSlot s : ss) {
            Object ct = s.runningClassTask;
            if (ct instanceof ClassedTask && s.claimRunningClassTask(ct)) {
                cs.abandoned(s, (ClassedTask) ct);
            }
        }
        // An owner that claimed its task first may still be ending it: wait for that too.
        cs.awaitEndingsUnderWay(ss);
    }
}
