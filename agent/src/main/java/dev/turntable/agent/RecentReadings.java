package dev.turntable.agent;

import dev.turntable.agent.QueueFlow.Reading;
import java.lang.ref.WeakReference;

/**
 * The calling thread's last few readings of a method's code ({@link QueueFlow#read}), each kept
 * only until the next collection (weakly, as is its class): a method that builds many pools is
 * read once for all of them instead of once per pool (a verdict is cached per site), since its
 * pools are built one after the other on one thread. A few, not one: a site's verdict reads its
 * method, the helper that makes the queue, and its method again. Per thread, because a reading's
 * flow is confined to the thread that reads it (it fills in its predecessors on demand); every
 * method here acts on the calling thread's own readings, from any thread.
 */
final class RecentReadings {

    private static final ThreadLocal<RecentReadings> OF_THIS_THREAD = ThreadLocal.withInitial(RecentReadings::new);

    /** Most recently used first. */
    private final Remembered[] entries = new Remembered[4];
    /** Methods this thread analysed (the readings {@link #entries} did not answer), for tests. */
    private long analyses;

    private RecentReadings() {
    }

    /** A reading remembered, with the method it is of; neither keeps its class alive. */
    private static final class Remembered extends WeakReference<Reading> {
        final WeakReference<Class<?>> type;
        final String name;
        final String descriptor;

        Remembered(Class<?> type, String name, String descriptor, Reading reading) {
            super(reading);
            this.type = new WeakReference<>(type);
            this.name = name;
            this.descriptor = descriptor;
        }

        boolean isOf(Class<?> t, String n, String d) {
            return type.get() == t && name.equals(n) && descriptor.equals(d);
        }
    }

    /** This thread's reading of the method, if it still has it (then used last); else null. */
    static Reading find(Class<?> type, String name, String descriptor) {
        Remembered[] recent = OF_THIS_THREAD.get().entries;
        for (int i = 0; i < recent.length; i++) {
            Remembered r = recent[i];
            Reading known = r == null || !r.isOf(type, name, descriptor) ? null : r.get();
            if (known != null) {
                // Used last, so first: the one kept longest is the one used least recently
                // (a method whose pools each read another helper stays in).
                System.arraycopy(recent, 0, recent, 1, i);
                recent[0] = r;
                return known;
            }
        }
        return null;
    }

    /** Remembers a fresh analysis of the method; the least recently used reading goes. */
    static void remember(Class<?> type, String name, String descriptor, Reading fresh) {
        RecentReadings thisThread = OF_THIS_THREAD.get();
        Remembered[] recent = thisThread.entries;
        System.arraycopy(recent, 0, recent, 1, recent.length - 1);
        recent[0] = new Remembered(type, name, descriptor, fresh);
        thisThread.analyses++;
    }

    /**
     * How many methods the calling thread has analysed: tests count the readings a pool site
     * costs, undisturbed by other threads' readings (the agent's warm-up, say).
     */
    static long analyses() {
        return OF_THIS_THREAD.get().analyses;
    }
}
