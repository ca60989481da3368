package dev.turntable.pool.testing;

import static java.util.concurrent.TimeUnit.MILLISECONDS;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * A numbered set of tasks and what happened to each: how many times it started, whether it was
 * interrupted while held, whether its thread was interrupted when it started, and which threads
 * ran tasks. Tasks never assert: tests read the log afterwards on the test thread.
 */
public final class TaskLog {

    private final int size;
    private final AtomicIntegerArray runs;
    private final AtomicIntegerArray interruptedWhileHeld;
    private final AtomicIntegerArray interruptedAtStart;
    private final AtomicInteger started = new AtomicInteger();
    private final CountDownLatch finished;
    private final Set<Thread> runners = ConcurrentHashMap.newKeySet();

    public TaskLog(int size) {
        this.size = size;
        this.runs = new AtomicIntegerArray(size);
        this.interruptedWhileHeld = new AtomicIntegerArray(size);
        this.interruptedAtStart = new AtomicIntegerArray(size);
        this.finished = new CountDownLatch(size);
    }

    /** A task that records its run and returns. */
    public Task task(int index) {
        return new Task(index, null, false, false);
    }

    /** A task that records its start, then waits for {@code gate} (or an interrupt) before it returns. */
    public Task gated(int index, CountDownLatch gate) {
        return new Task(index, gate, false, false);
    }

    /** A task that records its start, waits for {@code gate} if not null, then throws a {@link TaskFailure}. */
    public Task failing(int index, CountDownLatch gate) {
        return new Task(index, gate, true, false);
    }

    /** A task that records its start, waits for {@code gate} if not null, then interrupts its own thread. */
    public Task selfInterrupting(int index, CountDownLatch gate) {
        return new Task(index, gate, false, true);
    }

    public int size() {
        return size;
    }

    /** How many times task {@code index} started. */
    public int runs(int index) {
        return runs.get(index);
    }

    /** Whether task {@code index} started at least once. */
    public boolean ran(int index) {
        return runs.get(index) > 0;
    }

    /** Tasks started so far (counting repeats). */
    public int started() {
        return started.get();
    }

    public boolean interruptedWhileHeld(int index) {
        return interruptedWhileHeld.get(index) != 0;
    }

    public boolean interruptedAtStart(int index) {
        return interruptedAtStart.get(index) != 0;
    }

    /** Counts down once per task that finished (normally, by exception, or interrupted). */
    public CountDownLatch finished() {
        return finished;
    }

    /** The threads that ran at least one task. */
    public Set<Thread> runners() {
        return Set.copyOf(runners);
    }

    /** Indices whose task did not run exactly once, with their run counts, for failure messages. */
    public List<String> notExactlyOnce() {
        List<String> bad = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            if (runs.get(i) != 1) {
                bad.add(i + " ran " + runs.get(i) + "x");
            }
        }
        if (bad.size() > 20) {
            int more = bad.size() - 20;
            bad = new ArrayList<>(bad.subList(0, 20));
            bad.add("... and " + more + " more");
        }
        return bad;
    }

    /** Thrown by failing tasks; carries the task's index. */
    public static final class TaskFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;
        public final int index;

        TaskFailure(int index) {
            super("task " + index + " fails on purpose", null, false, false);
            this.index = index;
        }
    }

    /** One numbered task. Identity equality, like any task a user hands a pool. */
    public final class Task implements Runnable {
        public final int index;
        private final CountDownLatch gate;
        private final boolean fail;
        private final boolean selfInterrupt;

        Task(int index, CountDownLatch gate, boolean fail, boolean selfInterrupt) {
            this.index = index;
            this.gate = gate;
            this.fail = fail;
            this.selfInterrupt = selfInterrupt;
        }

        /** How many times this task has started. */
        public int runs() {
            return runs.get(index);
        }

        @Override
        public void run() {
            if (Thread.currentThread().isInterrupted()) {
                interruptedAtStart.set(index, 1);
            }
            runners.add(Thread.currentThread());
            runs.incrementAndGet(index);
            started.incrementAndGet();
            try {
                if (gate != null) {
                    try {
                        gate.await(Waits.LONG.toMillis(), MILLISECONDS);
                    } catch (InterruptedException e) {
                        interruptedWhileHeld.set(index, 1);
                        return;
                    }
                }
                if (selfInterrupt) {
                    Thread.currentThread().interrupt();
                }
                if (fail) {
                    throw new TaskFailure(index);
                }
            } finally {
                finished.countDown();
            }
        }

        @Override
        public String toString() {
            return "task#" + index;
        }
    }
}
