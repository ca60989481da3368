package dev.turntable.agent;

import dev.turntable.pool.TurntableQueue;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.DelayQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.PriorityBlockingQueue;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.SynchronousQueue;

/**
 * Decides whether the engine can stand in for a pool's work queue, keeping its capacity: an
 * empty {@code LinkedBlockingQueue} (unbounded, or bounded to its capacity), an empty
 * {@code ArrayBlockingQueue} (bounded) or a non-fair {@code SynchronousQueue} (hand-off), of
 * exactly those classes. Anything else is left alone, with the reason. Stateless; any thread.
 */
final class QueuePolicy {

    /**
     * The decision: take over with {@code capacity} (and {@code bound} when bounded), or not, and
     * why; {@code said}: a pool left untouched for a reason the agent tells on standard error
     * (once per creation site), where the application may have expected it taken over, as
     * opposed to an order the application chose (time, priority, a fair hand-off), which the
     * agent leaves to it by design and lists in {@code turntablectl pools} only.
     */
    record Verdict(boolean takeOver, TurntableQueue.Capacity capacity, int bound, String reason, boolean said) {
        Verdict(boolean takeOver, TurntableQueue.Capacity capacity, int bound, String reason) {
            this(takeOver, capacity, bound, reason, false);
        }

        /** Left untouched, said once. */
        static Verdict no(String reason) {
            return new Verdict(false, null, 0, reason, true);
        }

        /** Left untouched by design, quietly. */
        static Verdict chosen(String reason) {
            return new Verdict(false, null, 0, reason, false);
        }
    }

    private QueuePolicy() {
    }

    static Verdict classify(Class<?> poolClass, BlockingQueue<?> q) {
        if (poolClass != null && ScheduledThreadPoolExecutor.class.isAssignableFrom(poolClass)) {
            return Verdict.chosen("ScheduledThreadPoolExecutor: its delay queue orders tasks by time");
        }
        if (q == null) {
            return Verdict.chosen("no work queue");
        }
        Class<?> c = q.getClass();
        if (c == TurntableQueue.class) {
            return Verdict.chosen("already runs on a Turntable queue");
        }
        if (c == LinkedBlockingQueue.class || c == ArrayBlockingQueue.class) {
            int waiting = q.size();
            if (waiting > 0) {
                return Verdict.no(c.getSimpleName() + " already holds " + waiting + " task(s)");
            }
            int room = q.remainingCapacity();
            if (c == LinkedBlockingQueue.class && room == Integer.MAX_VALUE) {
                return new Verdict(true, TurntableQueue.Capacity.UNBOUNDED, 0, "LinkedBlockingQueue, unbounded");
            }
            return new Verdict(true, TurntableQueue.Capacity.BOUNDED, room, c.getSimpleName() + ", bounded to " + room);
        }
        if (c == SynchronousQueue.class) {
            Boolean fair = isFair((SynchronousQueue<?>) q);
            if (fair == null) {
                return Verdict.no("SynchronousQueue whose fairness cannot be read");
            }
            if (fair) {
                return Verdict.chosen("fair SynchronousQueue: its FIFO hand-off order is the application's choice");
            }
            return new Verdict(true, TurntableQueue.Capacity.HAND_OFF, 0, "SynchronousQueue, hand-off");
        }
        if (q instanceof PriorityBlockingQueue) {
            return Verdict.chosen("priority queue " + c.getName() + ": the application orders its tasks");
        }
        if (q instanceof DelayQueue || c.getName().endsWith("$DelayedWorkQueue")) {
            return Verdict.chosen("delay queue " + c.getName() + ": the application orders its tasks by time");
        }
        if (q instanceof LinkedBlockingQueue || q instanceof ArrayBlockingQueue || q instanceof SynchronousQueue) {
            return Verdict.no("custom queue " + c.getName() + " (a subclass may change how tasks are queued)");
        }
        return Verdict.no("custom queue " + c.getName());
    }

    /**
     * Whether a {@code SynchronousQueue} is fair: read from its private state when the agent runs
     * ({@link BootClasses#synchronousQueueFair}), else through its serialized form (the only
     * public window on it: a fair queue writes {@code FifoWaitQueue}s, a non-fair one
     * {@code LifoWaitQueue}s, on every JDK since 5); {@code null} if neither can be read.
     */
    static Boolean isFair(SynchronousQueue<?> q) {
        Boolean fair = BootClasses.synchronousQueueFair(q);
        return fair != null ? fair : serializedFairness(q);
    }

    private static Boolean serializedFairness(SynchronousQueue<?> q) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(512);
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(q);
        } catch (IOException | RuntimeException e) {
            return null;
        }
        String s = new String(bytes.toByteArray(), StandardCharsets.ISO_8859_1);
        boolean fifo = s.contains("FifoWaitQueue");
        boolean lifo = s.contains("LifoWaitQueue");
        return fifo == lifo ? null : fifo;
    }
}
