package dev.turntable.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.turntable.pool.TurntableQueue;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.DelayQueue;
import java.util.concurrent.Delayed;
import java.util.concurrent.LinkedBlockingDeque;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.LinkedTransferQueue;
import java.util.concurrent.PriorityBlockingQueue;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import org.junit.jupiter.api.Test;

class QueuePolicyTest {

    private static QueuePolicy.Verdict v(BlockingQueue<?> q) {
        return QueuePolicy.classify(ThreadPoolExecutor.class, q);
    }

    @Test
    void anEmptyUnboundedLinkedBlockingQueueStaysUnbounded() {
        QueuePolicy.Verdict v = v(new LinkedBlockingQueue<Runnable>());
        assertTrue(v.takeOver());
        assertEquals(TurntableQueue.Capacity.UNBOUNDED, v.capacity());
        assertEquals("LinkedBlockingQueue, unbounded", v.reason());
    }

    @Test
    void aBoundedLinkedBlockingQueueKeepsItsCapacity() {
        QueuePolicy.Verdict v = v(new LinkedBlockingQueue<Runnable>(250));
        assertTrue(v.takeOver());
        assertEquals(TurntableQueue.Capacity.BOUNDED, v.capacity());
        assertEquals(250, v.bound());
    }

    @Test
    void anArrayBlockingQueueKeepsItsCapacity() {
        QueuePolicy.Verdict v = v(new ArrayBlockingQueue<Runnable>(100));
        assertTrue(v.takeOver());
        assertEquals(TurntableQueue.Capacity.BOUNDED, v.capacity());
        assertEquals(100, v.bound());
        assertEquals("ArrayBlockingQueue, bounded to 100", v.reason());
    }

    @Test
    void aNonFairSynchronousQueueBecomesHandOff() {
        QueuePolicy.Verdict v = v(new SynchronousQueue<Runnable>());
        assertTrue(v.takeOver());
        assertEquals(TurntableQueue.Capacity.HAND_OFF, v.capacity());
    }

    @Test
    void fairnessIsReadFromTheSerializedForm() {
        assertEquals(Boolean.FALSE, QueuePolicy.isFair(new SynchronousQueue<>()));
        assertEquals(Boolean.FALSE, QueuePolicy.isFair(new SynchronousQueue<>(false)));
        assertEquals(Boolean.TRUE, QueuePolicy.isFair(new SynchronousQueue<>(true)));
    }

    @Test
    void leftAloneWithAReason() {
        LinkedBlockingQueue<Runnable> full = new LinkedBlockingQueue<>();
        full.add(() -> { });
        ArrayBlockingQueue<Runnable> fullArray = new ArrayBlockingQueue<>(3);
        fullArray.add(() -> { });
        fullArray.add(() -> { });
        notTaken(v(full), "LinkedBlockingQueue already holds 1 task(s)");
        notTaken(v(fullArray), "ArrayBlockingQueue already holds 2 task(s)");
        notTaken(v(new SynchronousQueue<Runnable>(true)), "fair SynchronousQueue");
        notTaken(v(new PriorityBlockingQueue<Runnable>()), "priority queue java.util.concurrent.PriorityBlockingQueue");
        notTaken(v(new DelayQueue<Delayed>()), "delay queue java.util.concurrent.DelayQueue");
        notTaken(v(new LinkedBlockingQueue<Runnable>() { }), "custom queue dev.turntable.agent.QueuePolicyTest$");
        notTaken(v(new ArrayBlockingQueue<Runnable>(4) { }), "(a subclass may change how tasks are queued)");
        notTaken(v(new SynchronousQueue<Runnable>() { }), "custom queue");
        notTaken(v(new LinkedBlockingDeque<Runnable>()), "custom queue java.util.concurrent.LinkedBlockingDeque");
        notTaken(v(new LinkedTransferQueue<Runnable>()), "custom queue java.util.concurrent.LinkedTransferQueue");
        notTaken(v(TurntableQueue.builder().build()), "already runs on a Turntable queue");
        notTaken(QueuePolicy.classify(ScheduledThreadPoolExecutor.class, new LinkedBlockingQueue<Runnable>()),
                "ScheduledThreadPoolExecutor");
        notTaken(v(null), "no work queue");
    }

    private static void notTaken(QueuePolicy.Verdict v, String reasonStart) {
        assertFalse(v.takeOver(), v.reason());
        assertTrue(v.reason().startsWith(reasonStart) || v.reason().contains(reasonStart), v.reason());
    }
}
