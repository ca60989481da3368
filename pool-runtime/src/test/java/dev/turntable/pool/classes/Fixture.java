package dev.turntable.pool.classes;

/** Builds snapshots for the planner tests: idle workers default to total minus all running tasks. */
final class Fixture {

    private Fixture() {
    }

    /** {@code loads} are triples (class name, waiting, running); idle = total - sum of running. */
    static LoadSnapshot snapshot(ClassConfig config, int totalWorkers, Object... loads) {
        LoadSnapshot s = new LoadSnapshot(config);
        int running = 0;
        for (int i = 0; i < loads.length; i += 3) {
            s.classLoad((String) loads[i], (Integer) loads[i + 1], (Integer) loads[i + 2]);
            running += (Integer) loads[i + 2];
        }
        return s.workers(totalWorkers, totalWorkers - running);
    }

    /** Plans with rebalancing state INITIAL at time 0. */
    static LoadPlan plan(ClassConfig config, int totalWorkers, Object... loads) {
        return LoadPlanner.plan(config, snapshot(config, totalWorkers, loads), 0, RebalanceState.INITIAL);
    }
}
