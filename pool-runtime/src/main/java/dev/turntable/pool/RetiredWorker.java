package dev.turntable.pool;

/**
 * What a {@link TurntableQueue} reports each time a worker thread retires: immutable, handed to
 * the listeners of {@link TurntableQueue#addRetirementListener} on the retiring worker thread
 * itself, just before it leaves.
 *
 * @param index         the worker's slot index; its replacement usually takes the same slot
 * @param threadName    the retiring thread's name
 * @param lifetimeTasks tasks the thread started in its life
 * @param reason        {@link #LIFETIME} or {@link #RECYCLED}
 * @param retirements   retirements of this pool so far, this one included
 */
public record RetiredWorker(int index, String threadName, long lifetimeTasks, String reason, long retirements) {

    /** The worker reached {@code max-lifetime-tasks}. */
    public static final String LIFETIME = "LIFETIME";
    /** An operator asked for it ({@code recycleWorker}). */
    public static final String RECYCLED = "RECYCLED";
}
