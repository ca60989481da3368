package com.example.sharing;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Ways application code builds a pool and what it does with the queue it passes: the code that
 * {@code QueueSharingTest} reads. Each method builds one pool (or two, in its two branches).
 */
public final class SharingFixtures {

    public static Collection<Runnable> view;
    public static Collection<?> watched;
    public static ThreadPoolExecutor second;
    public static final List<Object> REGISTRY = new CopyOnWriteArrayList<>();
    public static final Map<String, BlockingQueue<Runnable>> QUEUES = new ConcurrentHashMap<>();
    public BlockingQueue<Runnable> kept;

    public static ThreadPoolExecutor inline() {
        return new ThreadPoolExecutor(1, 1, 0L, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>());
    }

    public static ThreadPoolExecutor localUsedOnce(int capacity) {
        BlockingQueue<Runnable> q = capacity > 0 ? new ArrayBlockingQueue<>(capacity) : new SynchronousQueue<>();
        return new ThreadPoolExecutor(1, 1, 0L, TimeUnit.MILLISECONDS, q);
    }

    public ThreadPoolExecutor readFromField() {
        kept = new LinkedBlockingQueue<>();
        return new ThreadPoolExecutor(1, 1, 0L, TimeUnit.MILLISECONDS, kept);
    }

    public ThreadPoolExecutor storedInField() {
        LinkedBlockingQueue<Runnable> q = new LinkedBlockingQueue<>(100);
        kept = q;
        return new ThreadPoolExecutor(1, 1, 0L, TimeUnit.MILLISECONDS, q);
    }

    /** Keeps the queue three ways: in a field first, then by a call on it, then by passing it on. */
    public ThreadPoolExecutor keptThreeWays() {
        LinkedBlockingQueue<Runnable> q = new LinkedBlockingQueue<>();
        kept = q;
        q.remainingCapacity();
        String.valueOf(q);
        return new ThreadPoolExecutor(1, 1, 0L, TimeUnit.MILLISECONDS, q);
    }

    /** One of three queues, each kept another way: the first made (kept in a field) is the one reported. */
    public ThreadPoolExecutor oneOfThreeKept(int k) {
        LinkedBlockingQueue<Runnable> qa = new LinkedBlockingQueue<>();
        LinkedBlockingQueue<Runnable> qb = new LinkedBlockingQueue<>();
        LinkedBlockingQueue<Runnable> qc = new LinkedBlockingQueue<>();
        kept = qa;
        qb.remainingCapacity();
        String.valueOf(qc);
        LinkedBlockingQueue<Runnable> q = k == 0 ? qa : k == 1 ? qb : qc;
        return new ThreadPoolExecutor(1, 1, 0L, TimeUnit.MILLISECONDS, q);
    }

    public static int gaugedInPlace() {
        LinkedBlockingQueue<Runnable> q = new LinkedBlockingQueue<>();
        ThreadPoolExecutor pool = new ThreadPoolExecutor(1, 1, 0L, TimeUnit.MILLISECONDS, q);
        pool.shutdown();
        return q.size();
    }

    public static ThreadPoolExecutor capturedByAHandler() {
        ArrayBlockingQueue<Runnable> q = new ArrayBlockingQueue<>(1);
        return new ThreadPoolExecutor(1, 1, 0L, TimeUnit.MILLISECONDS, q, (r, e) -> q.offer(r));
    }

    public static ThreadPoolExecutor fromAMethod() {
        return new ThreadPoolExecutor(1, 1, 0L, TimeUnit.MILLISECONDS, makeQueue());
    }

    static BlockingQueue<Runnable> makeQueue() {
        return new LinkedBlockingQueue<>();
    }

    /** Spring's shape: an overridable helper, so the call may run an override the reading cannot see. */
    public static class QueueMaker {
        protected BlockingQueue<Runnable> createQueue(int capacity) {
            return capacity > 0 ? new LinkedBlockingQueue<>(capacity) : new SynchronousQueue<>();
        }

        public ThreadPoolExecutor fromAnOverridableMethod() {
            return new ThreadPoolExecutor(1, 1, 0L, TimeUnit.MILLISECONDS, createQueue(10));
        }
    }

    private BlockingQueue<Runnable> keptQueue() {
        return kept;
    }

    public ThreadPoolExecutor fromAGetterOfAField() {
        kept = new LinkedBlockingQueue<>();
        return new ThreadPoolExecutor(1, 1, 0L, TimeUnit.MILLISECONDS, keptQueue());
    }

    /** A helper that builds a pool around the queue it is given, as HikariCP's {@code UtilityElf} does. */
    public static ThreadPoolExecutor helper(BlockingQueue<Runnable> q) {
        return new ThreadPoolExecutor(1, 1, 0L, TimeUnit.MILLISECONDS, q);
    }

    public static ThreadPoolExecutor helperWithANewQueue() {
        return helper(new LinkedBlockingQueue<>());
    }

    /** HikariCP's pattern: a read-only view of the queue kept, the queue handed to a helper. */
    public static ThreadPoolExecutor helperWithAWatchedQueue() {
        LinkedBlockingQueue<Runnable> q = new LinkedBlockingQueue<>(10);
        view = Collections.unmodifiableCollection(q);
        return helper(q);
    }

    public static ThreadPoolExecutor eitherBranch(boolean decorated) {
        BlockingQueue<Runnable> q = new LinkedBlockingQueue<>();
        if (decorated) {
            return new ThreadPoolExecutor(1, 1, 0L, TimeUnit.MILLISECONDS, q) {
                @Override
                protected void beforeExecute(Thread t, Runnable r) {
                }
            };
        }
        return new ThreadPoolExecutor(1, 1, 0L, TimeUnit.MILLISECONDS, q);
    }

    public static ThreadPoolExecutor subclassWithANewQueue() {
        return new SubPool(new LinkedBlockingQueue<>());
    }

    public static ThreadPoolExecutor subclassThatKeepsItsQueue() {
        return new KeepingSubPool(new LinkedBlockingQueue<>());
    }

    /** An anonymous pool subclass that reads the queue it captured: javac passes it to the constructor twice. */
    public static ThreadPoolExecutor anonymousSubclassReadingItsQueue() {
        BlockingQueue<Runnable> q = new LinkedBlockingQueue<>(100);
        return new ThreadPoolExecutor(1, 1, 0L, TimeUnit.MILLISECONDS, q) {
            @Override
            protected void beforeExecute(Thread t, Runnable r) {
                if (q.size() > 50) {
                    Thread.yield();
                }
            }
        };
    }

    public static ThreadPoolExecutor helperWatching(BlockingQueue<Runnable> q, Collection<?> watch) {
        watched = watch;
        return new ThreadPoolExecutor(1, 1, 0L, TimeUnit.MILLISECONDS, q);
    }

    public static ThreadPoolExecutor helperGivenTheQueueTwice() {
        LinkedBlockingQueue<Runnable> q = new LinkedBlockingQueue<>();
        return helperWatching(q, q);
    }

    /** Two pools on one queue, the second of a subclass that keeps it. */
    public static ThreadPoolExecutor aSecondPoolKeepsIt() {
        LinkedBlockingQueue<Runnable> q = new LinkedBlockingQueue<>();
        ThreadPoolExecutor first = new ThreadPoolExecutor(1, 1, 0L, TimeUnit.MILLISECONDS, q);
        second = new KeepingSubPool(q);
        return first;
    }

    /** Two pools of the JDK's class on one queue: they share its work, each is a site of its own. */
    public static ThreadPoolExecutor twoPoolsOnOneQueue() {
        BlockingQueue<Runnable> shared = new LinkedBlockingQueue<>();
        ThreadPoolExecutor a1 = new ThreadPoolExecutor(1, 1, 0, TimeUnit.SECONDS, shared);
        ThreadPoolExecutor a2 = new ThreadPoolExecutor(1, 1, 0, TimeUnit.SECONDS, shared);
        second = a2;
        return a1;
    }

    /** The configured size, else (refused) one thread, on the one queue: one pool is ever built. */
    public static ThreadPoolExecutor fallbackPoolOnOneQueue(int core, int max) {
        BlockingQueue<Runnable> q = new LinkedBlockingQueue<>();
        ThreadPoolExecutor p;
        try {
            p = new ThreadPoolExecutor(core, max, 0L, TimeUnit.MILLISECONDS, q);
        } catch (IllegalArgumentException e) {
            p = new ThreadPoolExecutor(1, 1, 0L, TimeUnit.MILLISECONDS, q);
        }
        return p;
    }

    /** Tries again with one thread until the constructor takes the sizes: one pool is ever built. */
    public static ThreadPoolExecutor retriedPoolOnOneQueue(int core, int max) {
        BlockingQueue<Runnable> q = new LinkedBlockingQueue<>();
        while (true) {
            try {
                return new ThreadPoolExecutor(core, max, 0L, TimeUnit.MILLISECONDS, q);
            } catch (IllegalArgumentException e) {
                core = 1;
                max = 1;
            }
        }
    }

    /** Built lazily inside a loop, once: control flow alone cannot tell it from a pool per round. */
    public static ThreadPoolExecutor lazyPoolInALoop(List<Runnable> tasks) {
        BlockingQueue<Runnable> q = new LinkedBlockingQueue<>();
        ThreadPoolExecutor pool = null;
        for (Runnable t : tasks) {
            if (pool == null) {
                pool = new ThreadPoolExecutor(1, 1, 0L, TimeUnit.MILLISECONDS, q);
            }
            pool.execute(t);
        }
        return pool;
    }

    /** A pool per round on the one queue made before the loop. */
    public static List<ThreadPoolExecutor> poolsInALoopOnOneQueue(int n) {
        BlockingQueue<Runnable> q = new LinkedBlockingQueue<>();
        List<ThreadPoolExecutor> pools = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            pools.add(new ThreadPoolExecutor(1, 1, 0L, TimeUnit.MILLISECONDS, q));
        }
        return pools;
    }

    /** A pool per round, each on a queue of its own made in that round (in either branch). */
    public static List<ThreadPoolExecutor> poolsInALoopEachOnItsQueue(int n, int capacity) {
        List<ThreadPoolExecutor> pools = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            BlockingQueue<Runnable> q = capacity > 0 ? new ArrayBlockingQueue<>(capacity) : new LinkedBlockingQueue<>();
            pools.add(new ThreadPoolExecutor(1, 1, 0L, TimeUnit.MILLISECONDS, q));
        }
        return pools;
    }

    /** A pool subclass whose constructor also builds a helper pool on its own queue. */
    public static final class TwinPool extends ThreadPoolExecutor {
        public final ThreadPoolExecutor twin;

        public TwinPool(BlockingQueue<Runnable> q) {
            super(1, 1, 0L, TimeUnit.MILLISECONDS, q);
            twin = new ThreadPoolExecutor(1, 1, 0L, TimeUnit.MILLISECONDS, q);
        }
    }

    public static ThreadPoolExecutor twinPool() {
        return new TwinPool(new LinkedBlockingQueue<>());
    }

    /** One pool or the other on the queue, but the other is a {@link TwinPool}, two pools on it. */
    public static ThreadPoolExecutor eitherBranchOneATwin(boolean twin) {
        BlockingQueue<Runnable> q = new LinkedBlockingQueue<>();
        if (twin) {
            return new TwinPool(q);
        }
        return new ThreadPoolExecutor(1, 1, 0L, TimeUnit.MILLISECONDS, q);
    }

    /** A helper that builds a pool on the queue it makes and returns it for another. */
    private static BlockingQueue<Runnable> queueWithAPoolOnIt() {
        BlockingQueue<Runnable> q = new LinkedBlockingQueue<>();
        second = new ThreadPoolExecutor(1, 1, 0L, TimeUnit.MILLISECONDS, q);
        return q;
    }

    public static ThreadPoolExecutor fromAHelperThatBuiltAPoolOnIt() {
        return new ThreadPoolExecutor(1, 1, 0L, TimeUnit.MILLISECONDS, queueWithAPoolOnIt());
    }

    /** The queue kept in an array (a local one, even): the pool gets it from an element. */
    @SuppressWarnings("unchecked")
    public static ThreadPoolExecutor readFromAnArray() {
        BlockingQueue<Runnable>[] queues = new BlockingQueue[] {new LinkedBlockingQueue<>()};
        ThreadPoolExecutor p = new ThreadPoolExecutor(1, 1, 0, TimeUnit.SECONDS, queues[0]);
        return p;
    }

    /** The queue put into an array after the pool was built on it. */
    @SuppressWarnings("unchecked")
    public static BlockingQueue<Runnable>[] storedInAnArrayAfterwards(ThreadPoolExecutor[] out) {
        BlockingQueue<Runnable> q = new LinkedBlockingQueue<>();
        out[0] = new ThreadPoolExecutor(1, 1, 0L, TimeUnit.MILLISECONDS, q);
        BlockingQueue<Runnable>[] arr = new BlockingQueue[1];
        arr[0] = q;
        return arr;
    }

    private static BlockingQueue<Runnable>[] QUEUE_ARRAY;

    /** A private getter of an array element. */
    private static BlockingQueue<Runnable> queueAt(int k) {
        return QUEUE_ARRAY[k];
    }

    public static ThreadPoolExecutor fromAGetterOfAnArrayElement() {
        return new ThreadPoolExecutor(1, 1, 0L, TimeUnit.MILLISECONDS, queueAt(0));
    }

    /** The queue read from a list (as from an array): whoever holds the list reads the queue. */
    public static ThreadPoolExecutor readFromAList(List<BlockingQueue<Runnable>> queues, int i) {
        return new ThreadPoolExecutor(1, 1, 0, TimeUnit.SECONDS, queues.get(i));
    }

    /** A pool on each queue of a list, by a for-each loop: each queue comes from the list's iterator. */
    public static List<ThreadPoolExecutor> poolOnEachQueueOfAList(List<BlockingQueue<Runnable>> queues) {
        List<ThreadPoolExecutor> pools = new ArrayList<>();
        for (BlockingQueue<Runnable> q : queues) {
            pools.add(new ThreadPoolExecutor(1, 1, 0L, TimeUnit.MILLISECONDS, q));
        }
        return pools;
    }

    private static final List<BlockingQueue<Runnable>> QUEUE_LIST = new CopyOnWriteArrayList<>();

    /** A private getter of a list element. */
    private static BlockingQueue<Runnable> queueInList(int k) {
        return QUEUE_LIST.get(k);
    }

    public static ThreadPoolExecutor fromAGetterOfAListElement() {
        return new ThreadPoolExecutor(1, 1, 0L, TimeUnit.MILLISECONDS, queueInList(0));
    }

    /** A second pool built on another pool's queue: the two share its work. */
    public static ThreadPoolExecutor onAnotherPoolsQueue(ThreadPoolExecutor other) {
        return new ThreadPoolExecutor(1, 1, 0L, TimeUnit.MILLISECONDS, other.getQueue());
    }

    /** The same through a pool subclass's (inherited) getQueue and a private helper. */
    private static BlockingQueue<Runnable> queueOf(SubPool other) {
        return other.getQueue();
    }

    public static ThreadPoolExecutor onASubPoolsQueueThroughAHelper(SubPool other) {
        return new ThreadPoolExecutor(1, 1, 0L, TimeUnit.MILLISECONDS, queueOf(other));
    }

    /** A registry of queues by name, filled by a static helper. */
    static BlockingQueue<Runnable> queueFor(String name) {
        return QUEUES.computeIfAbsent(name, k -> new LinkedBlockingQueue<>());
    }

    public static ThreadPoolExecutor fromARegistry() {
        return new ThreadPoolExecutor(1, 1, 0L, TimeUnit.MILLISECONDS, queueFor("orders"));
    }

    /** The queue read from a map (as from a list): whoever holds the map reads the queue. */
    public static ThreadPoolExecutor readFromAMap(Map<String, BlockingQueue<Runnable>> queues) {
        return new ThreadPoolExecutor(1, 1, 0L, TimeUnit.MILLISECONDS, queues.get("orders"));
    }

    /** A pool on each queue of a map, by a for-each loop over its entries. */
    public static List<ThreadPoolExecutor> poolOnEachQueueOfAMap(Map<String, BlockingQueue<Runnable>> queues) {
        List<ThreadPoolExecutor> pools = new ArrayList<>();
        for (Map.Entry<String, BlockingQueue<Runnable>> e : queues.entrySet()) {
            pools.add(new ThreadPoolExecutor(1, 1, 0L, TimeUnit.MILLISECONDS, e.getValue()));
        }
        return pools;
    }

    public static ThreadPoolExecutor checkedSubclass() {
        return new CheckedPool(new LinkedBlockingQueue<>());
    }

    public static ThreadPoolExecutor queueOfItsOwnClass() {
        return new ThreadPoolExecutor(1, 1, 0L, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<Runnable>() {
            {
                REGISTRY.add(this);
            }
        });
    }

    /** A pool subclass that checks its queue for null before passing it on, as Kotlin and Guava users do. */
    public static final class CheckedPool extends ThreadPoolExecutor {
        public CheckedPool(BlockingQueue<Runnable> q) {
            super(1, 1, 0L, TimeUnit.MILLISECONDS, Objects.requireNonNull(q, "q"));
        }
    }

    /** A pool subclass whose constructor also builds a helper pool with {@code new}, after {@code super(...)}. */
    public static final class PoolWithHelper extends ThreadPoolExecutor {
        public final ThreadPoolExecutor helper;

        public PoolWithHelper() {
            super(1, 1, 0L, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>());
            helper = new ThreadPoolExecutor(1, 1, 0L, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(),
                    new ThreadPoolExecutor.AbortPolicy());
        }
    }

    /** A pool subclass that passes its queue on to {@code super}. */
    public static final class SubPool extends ThreadPoolExecutor {
        public SubPool(BlockingQueue<Runnable> q) {
            super(1, 1, 0L, TimeUnit.MILLISECONDS, q);
        }
    }

    /** A pool subclass that also keeps its queue, to read it later. */
    public static final class KeepingSubPool extends ThreadPoolExecutor {
        final BlockingQueue<Runnable> mine;

        public KeepingSubPool(BlockingQueue<Runnable> q) {
            super(1, 1, 0L, TimeUnit.MILLISECONDS, q);
            this.mine = q;
        }
    }
}
