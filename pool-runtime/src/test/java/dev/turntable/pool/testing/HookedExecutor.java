package dev.turntable.pool.testing;

import dev.turntable.pool.TurntableExecutor;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntSupplier;

/**
 * A user's subclass of TurntableExecutor made through the protected constructor, overriding the
 * three ThreadPoolExecutor hooks (calling super, as ThreadPoolExecutor's documentation asks) and
 * recording what they saw. Anything out of order goes to {@link #hookErrors()}.
 */
public class HookedExecutor extends TurntableExecutor {

    private final AtomicInteger beforeCalls = new AtomicInteger();
    private final AtomicInteger afterCalls = new AtomicInteger();
    private final AtomicInteger terminatedCalls = new AtomicInteger();
    private final Map<Runnable, Thread> beforeThread = new ConcurrentHashMap<>();
    private final Map<Runnable, Optional<Throwable>> afterOutcome = new ConcurrentHashMap<>();
    private final Queue<String> hookErrors = new ConcurrentLinkedQueue<>();
    private volatile IntSupplier probeAtTermination = () -> -1;
    private volatile int seenAtTermination = -1;

    public HookedExecutor(TurntableExecutor.Builder builder) {
        super(builder);
        prestartAllCoreThreads(); // a no-op if the constructor already did, as build() does
    }

    @Override
    protected void beforeExecute(Thread t, Runnable r) {
        if (t != Thread.currentThread()) {
            hookErrors.add("beforeExecute(" + r + ") was handed " + t + " but ran on " + Thread.currentThread());
        }
        if (r instanceof TaskLog.Task && ((TaskLog.Task) r).runs() != 0) {
            hookErrors.add("beforeExecute(" + r + ") came after the task had started");
        }
        if (beforeThread.putIfAbsent(r, t) != null) {
            hookErrors.add("beforeExecute(" + r + ") called twice");
        }
        beforeCalls.incrementAndGet();
        super.beforeExecute(t, r);
    }

    @Override
    protected void afterExecute(Runnable r, Throwable t) {
        super.afterExecute(r, t);
        if (beforeThread.get(r) != Thread.currentThread()) {
            hookErrors.add("afterExecute(" + r + ") without beforeExecute on the same thread");
        }
        if (r instanceof TaskLog.Task && ((TaskLog.Task) r).runs() != 1) {
            hookErrors.add("afterExecute(" + r + ") saw the task started " + ((TaskLog.Task) r).runs() + " times");
        }
        if (afterOutcome.putIfAbsent(r, Optional.ofNullable(t)) != null) {
            hookErrors.add("afterExecute(" + r + ") called twice");
        }
        afterCalls.incrementAndGet();
    }

    @Override
    protected void terminated() {
        super.terminated();
        seenAtTermination = probeAtTermination.getAsInt();
        terminatedCalls.incrementAndGet();
    }

    public int beforeCalls() {
        return beforeCalls.get();
    }

    public int afterCalls() {
        return afterCalls.get();
    }

    public int terminatedCalls() {
        return terminatedCalls.get();
    }

    /** What afterExecute received for {@code r}: null if it was never called for r. */
    public Optional<Throwable> afterOutcome(Runnable r) {
        return afterOutcome.get(r);
    }

    public List<String> hookErrors() {
        return List.copyOf(hookErrors);
    }

    /** Sets what {@link #terminated()} samples, e.g. how many tasks had finished by then. */
    public void probeAtTermination(IntSupplier probe) {
        this.probeAtTermination = probe;
    }

    /** The probe's value when {@link #terminated()} ran, or -1 if it has not run. */
    public int seenAtTermination() {
        return seenAtTermination;
    }
}
