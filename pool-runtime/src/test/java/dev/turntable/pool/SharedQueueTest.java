package dev.turntable.pool;

import static dev.turntable.pool.testing.NamedTask.named;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;

/**
 * The shared queue on its own: tasks put at the front (a leaving worker's) come before those at
 * the tail, in polls, peeks, iteration and removal; and under concurrent producers and consumers
 * every task comes out exactly once.
 */
class SharedQueueTest {

    private static List<String> names(Iterable<Runnable> tasks) {
        List<String> out = new ArrayList<>();
        tasks.forEach(t -> out.add(t.toString()));
        return out;
    }

    @Test
    void tasksPutAtTheFrontComeOutBeforeTheTailInTheOrderTheyAreAtTheFront() {
        SharedQueue q = new SharedQueue();
        q.offer(named("t1"));
        q.offer(named("t2"));
        // A leaving worker puts its queue back last task first, so that it reads in order.
        q.offerFirst(named("w2"));
        q.offerFirst(named("w1"));
        assertEquals(List.of("w1", "w2", "t1", "t2"), names(q));
        assertEquals(4, q.size());
        assertEquals("w1", q.peek().toString());
        List<String> polled = new ArrayList<>();
        Runnable r;
        while ((r = q.poll()) != null) {
            polled.add(r.toString());
        }
        assertEquals(List.of("w1", "w2", "t1", "t2"), polled);
        assertTrue(q.isEmpty());
        assertNull(q.peek());
        assertEquals(0, q.size());
    }

    @Test
    void removeTakesTheTaskWhereverItWaitsAndOnlyOnce() {
        SharedQueue q = new SharedQueue();
        Runnable front = named("front");
        Runnable tail = named("tail");
        q.offer(tail);
        q.offerFirst(front);
        assertTrue(q.remove(tail));
        assertFalse(q.remove(tail), "already gone");
        assertTrue(q.remove(front));
        assertTrue(q.isEmpty());
    }

    @Test
    void theIteratorRemovesTheElementItReturnedEvenAfterLookingIntoTheTail() {
        SharedQueue q = new SharedQueue();
        Runnable front = named("front");
        Runnable tail = named("tail");
        q.offer(tail);
        q.offerFirst(front);
        Iterator<Runnable> it = q.iterator();
        assertSame(front, it.next());
        assertTrue(it.hasNext(), "moves on to the tail");
        it.remove(); // must remove what next() returned, from the front
        assertEquals(List.of("tail"), names(q));
        assertSame(tail, it.next());
        it.remove();
        assertTrue(q.isEmpty());
        assertThrows(IllegalStateException.class, it::remove, "nothing returned since the last remove");
    }

    @Test
    void concurrentProducersAndConsumersTakeEveryTaskExactlyOnce() throws Exception {
        SharedQueue q = new SharedQueue();
        int producers = 3;
        int consumers = 3;
        int perProducer = 100_000;
        int total = producers * perProducer;
        AtomicIntegerArray taken = new AtomicIntegerArray(total);
        LongAdder takes = new LongAdder();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (int p = 0; p < producers; p++) {
            int base = p * perProducer;
            threads.add(new Thread(() -> {
                await(start);
                for (int i = 0; i < perProducer; i++) {
                    int id = base + i;
                    Runnable task = () -> taken.incrementAndGet(id);
                    // Some at the front, as a leaving worker's tasks go.
                    if ((i & 1023) == 0) {
                        q.offerFirst(task);
                    } else {
                        q.offer(task);
                    }
                }
            }, "producer-" + p));
        }
        for (int c = 0; c < consumers; c++) {
            threads.add(new Thread(() -> {
                await(start);
                while (takes.sum() < total) {
                    Runnable r = q.poll();
                    if (r != null) {
                        r.run();
                        takes.increment();
                    } else {
                        Thread.onSpinWait();
                    }
                }
            }, "consumer-" + c));
        }
        for (Thread t : threads) {
            t.setUncaughtExceptionHandler((th, e) -> failure.compareAndSet(null, e));
            t.start();
        }
        start.countDown();
        for (Thread t : threads) {
            t.join(TimeUnit.MINUTES.toMillis(1));
            assertFalse(t.isAlive(), t.getName() + " still running");
        }
        assertNull(failure.get());
        for (int i = 0; i < total; i++) {
            assertEquals(1, taken.get(i), "task " + i);
        }
        assertTrue(q.isEmpty());
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }
}
