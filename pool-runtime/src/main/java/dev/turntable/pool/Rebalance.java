package dev.turntable.pool;

import java.util.Map;

/**
 * What a {@link TurntableQueue} with task classes reports each time it rebalances: the delta
 * entitlement spread stayed above the threshold for the minimum duration, so over-entitled
 * classes give workers back. Immutable; handed to listeners on the thread that ran the
 * scheduling pass (a submitter, a worker or the housekeeper).
 *
 * @param deltaSpreadPercent the spread that triggered it, in percentage points
 * @param tasksToStop        per class, tasks over its entitlement the plan named
 * @param tasksStopped       per class, restartable tasks actually interrupted (to run again later);
 *                           the rest of each class is held: none of its tasks start until it is
 *                           back within its entitlement
 */
public record Rebalance(int deltaSpreadPercent, Map<String, Integer> tasksToStop, Map<String, Integer> tasksStopped) {

    public Rebalance {
        tasksToStop = Map.copyOf(tasksToStop);
        tasksStopped = Map.copyOf(tasksStopped);
    }
}
