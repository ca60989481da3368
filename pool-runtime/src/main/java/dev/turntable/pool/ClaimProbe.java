package dev.turntable.pool;

/**
 * Test seam: told, on the claiming thread, of the edges of a claim counted in transit before it
 * is made ({@code TurntableQueue.countedClaim}: a leaving worker's move or a submitter's rescue,
 * {@code WorkerRegistry.moveProbe}; a class pass's start or flush, {@code ClassScheduler.claimProbe};
 * a removal, {@code WaitingTasks.removalProbe}), so that a test can hold the claimant in the
 * instant where another thread takes the task it saw. Those fields are null outside tests and
 * read only on those cold paths. Must not throw.
 */
interface ClaimProbe {
    /** The claimant saw a task and is about to count its claim. */
    void beforeCount();

    /** The counted claim found nothing (another thread took the task); the count is still raised. */
    void claimedNothing();
}
