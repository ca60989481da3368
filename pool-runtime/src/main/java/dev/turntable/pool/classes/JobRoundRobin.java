package dev.turntable.pool.classes;

import java.util.Arrays;

/**
 * Chooses, within one task class, how many tasks to start from each job (the tasks of one
 * requestor from one submitting thread), after Scoot's selection: round robin over the jobs,
 * those with the fewest running tasks first. Stateless; any thread.
 *
 * <p>Jobs are grouped by running tasks. Starting at the group with the fewest, each job of the
 * group that still waits starts one task, in group order, and, if it still waits, joins the end
 * of the next group (one more running task). A group's order is its original jobs in the order
 * given, then the jobs promoted from the group below in the order they were served. Empty
 * groups are skipped. This stops once {@code tasksToStart} tasks are chosen or nothing waits.
 */
public final class JobRoundRobin {

    private JobRoundRobin() {
    }

    /**
     * How many tasks to start from each job.
     *
     * @param runningTasksPerJob running tasks of job j, each at least 0
     * @param waitingTasksPerJob waiting tasks of job j, each at least 0, same length
     * @param tasksToStart tasks to start in all, at least 0
     * @return tasks to start from job j, in the order given; they sum to
     *     {@code min(tasksToStart, total waiting)}
     * @throws IllegalArgumentException if the lengths differ or a count is negative
     */
    public static int[] startsPerJob(int[] runningTasksPerJob, int[] waitingTasksPerJob, int tasksToStart) {
        int[] out = new int[runningTasksPerJob.length];
        startsPerJob(runningTasksPerJob, waitingTasksPerJob, tasksToStart, out);
        return out;
    }

    /**
     * As {@link #startsPerJob(int[], int[], int)}, writing into {@code out} (same length) and
     * returning the number chosen. O(j log j + chosen) time for j jobs; allocates O(j).
     */
    public static int startsPerJob(int[] runningTasksPerJob, int[] waitingTasksPerJob, int tasksToStart, int[] out) {
        int jobs = runningTasksPerJob.length;
        if (waitingTasksPerJob.length != jobs || out.length != jobs) {
            throw new IllegalArgumentException("running (" + jobs + "), waiting (" + waitingTasksPerJob.length
                    + ") and out (" + out.length + ") must have one entry per job");
        }
        if (tasksToStart < 0) {
            throw new IllegalArgumentException("tasksToStart " + tasksToStart + " is not allowed: at least 0");
        }
        for (int j = 0; j < jobs; j++) {
            if (runningTasksPerJob[j] < 0 || waitingTasksPerJob[j] < 0) {
                throw new IllegalArgumentException("job " + j + " has running=" + runningTasksPerJob[j]
                        + " waiting=" + waitingTasksPerJob[j] + "; counts must be at least 0");
            }
        }
        Arrays.fill(out, 0);
        // jobs sorted by running count, stable (equal counts keep the order given)
        long[] keyed = new long[jobs];
        for (int j = 0; j < jobs; j++) {
            keyed[j] = ((long) runningTasksPerJob[j] << 32) | j;
        }
        Arrays.sort(keyed);
        int[] group = new int[jobs];
        int[] promoted = new int[jobs];
        int promotedCount = 0;
        long level = 0;
        int next = 0; // next unsorted-in job in keyed
        int chosen = 0;
        while (chosen < tasksToStart && (promotedCount > 0 || next < jobs)) {
            if (promotedCount == 0) {
                level = keyed[next] >>> 32; // skip empty groups
            }
            int size = 0;
            while (next < jobs && (keyed[next] >>> 32) == level) {
                group[size++] = (int) keyed[next++];
            }
            System.arraycopy(promoted, 0, group, size, promotedCount);
            size += promotedCount;
            promotedCount = 0;
            for (int g = 0; g < size && chosen < tasksToStart; g++) {
                int j = group[g];
                if (out[j] < waitingTasksPerJob[j]) {
                    out[j]++;
                    chosen++;
                    if (out[j] < waitingTasksPerJob[j]) {
                        promoted[promotedCount++] = j;
                    }
                }
            }
            level++;
        }
        return chosen;
    }
}
