package dev.turntable.pool;

import java.util.AbstractQueue;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * A pool's shared queue: an unbounded, lock-free FIFO of tasks that found no room on a worker's
 * own queue, found no worker, or were left behind by a worker that left. Any thread may call any
 * method; the size is not kept here ({@code TurntableQueue.sharedCount} counts the tasks).
 *
 * <p>Two queues in one, polled front first:
 * <ul>
 *   <li>the tail, a {@link ConcurrentLinkedQueue}, takes every {@link #offer}: the hot path of a
 *       burst larger than the workers' queues, where every task of the rest of the burst passes
 *       through here;</li>
 *   <li>the front, a {@link ConcurrentLinkedDeque}, takes {@link #offerFirst}: a leaving worker's
 *       queued tasks, which are older than anything in the tail. Cold.</li>
 * </ul>
 * One deque did both until it showed in a profile of a 200,000-task burst into two workers: its
 * {@code offerLast} was a third of the submitter's time and its {@code pollFirst} (with the
 * unlinking a deque needs) a third of the workers'. With this queue (and the take announced on
 * the taker's own slot) ROUND_ROBIN took a 100,000-task burst at 1.05–1.26× a
 * ThreadPoolExecutor's rate, from 0.78–0.81×, and FAIR_SHARE at 0.68–0.95×, from 0.44–0.56×
 * (benchmarks/RESULTS.md, "bursts past the workers' queues").
 *
 * <p>Guarantees:
 * <ul>
 *   <li>every task offered is polled, removed or iterated until it is taken: none is lost or
 *       returned twice (each element is taken by one successful CAS in its own queue);</li>
 *   <li>tasks offered at the tail by one thread are polled in the order offered; tasks put at
 *       the front ({@link #offerFirst}) are polled before every task at the tail, the last put
 *       first (a leaving worker puts its tasks back newest first, so they read in order);</li>
 *   <li>{@link #poll} finds the front empty at one instant and the tail's head at a later one: a
 *       task put at the front in between may be overtaken by that one tail task, as one put
 *       there just after the poll would be. That is no weaker than one deque's order for tasks
 *       racing with their own placement.</li>
 * </ul>
 */
final class SharedQueue extends AbstractQueue<Runnable> {

    private final ConcurrentLinkedDeque<Runnable> front = new ConcurrentLinkedDeque<>();
    private final ConcurrentLinkedQueue<Runnable> tail = new ConcurrentLinkedQueue<>();

    /** At the tail, behind everything here. Allocates one node; never fails but out of memory. */
    @Override
    public boolean offer(Runnable task) {
        return tail.offer(task);
    }

    /** At the front, before everything here: for tasks older than all of them. Allocates one node. */
    void offerFirst(Runnable task) {
        front.offerFirst(task);
    }

    @Override
    public Runnable poll() {
        // The front's emptiness: a read of its head's lines, which stay unwritten while the
        // front is empty (only a leaving worker's move and the polls that take it write them).
        if (!front.isEmpty()) {
            Runnable r = front.pollFirst();
            if (r != null) {
                return r;
            }
        }
        return tail.poll();
    }

    @Override
    public Runnable peek() {
        Runnable r = front.peekFirst();
        return r != null ? r : tail.peek();
    }

    @Override
    public boolean isEmpty() {
        return front.isEmpty() && tail.isEmpty();
    }

    /** Removes one task equal to {@code o}, front first. */
    @Override
    public boolean remove(Object o) {
        return front.remove(o) || tail.remove(o);
    }

    /** Counts the tasks, front and tail, by walking them (O(n)): monitoring and tests only. */
    @Override
    public int size() {
        long n = (long) front.size() + tail.size();
        return (int) Math.min(n, Integer.MAX_VALUE);
    }

    /** Weakly consistent, as its two queues' iterators are: the front, then the tail. */
    @Override
    public Iterator<Runnable> iterator() {
        return new Iterator<>() {
            private Iterator<Runnable> current = front.iterator();
            /** The iterator that returned the last element, for remove(); hasNext may have moved on. */
            private Iterator<Runnable> last;
            private boolean inTail;

            @Override
            public boolean hasNext() {
                if (current.hasNext()) {
                    return true;
                }
                if (!inTail) {
                    current = tail.iterator();
                    inTail = true;
                    return current.hasNext();
                }
                return false;
            }

            @Override
            public Runnable next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                last = current;
                return current.next();
            }

            @Override
            public void remove() {
                if (last == null) {
                    throw new IllegalStateException("next() first");
                }
                last.remove();
                last = null;
            }
        };
    }
}
