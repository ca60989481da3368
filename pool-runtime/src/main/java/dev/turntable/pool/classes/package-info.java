/**
 * Task classes: load shares per class, the requestor-to-class map, and the load-based planner
 * (after Twitter Scoot's load-based scheduling algorithm) that decides how many tasks of each
 * class start on idle workers and, when rebalancing, how many of each class's most recently
 * started tasks stop. Everything here is pure computation: no threads, no clocks, no engine types.
 *
 * <p>Entry points: {@link dev.turntable.pool.classes.ClassConfig} (parse the texts),
 * {@link dev.turntable.pool.classes.LoadPlanner} (plan from a
 * {@link dev.turntable.pool.classes.LoadSnapshot} into a
 * {@link dev.turntable.pool.classes.LoadPlan}, carrying a
 * {@link dev.turntable.pool.classes.RebalanceState} between calls) and
 * {@link dev.turntable.pool.classes.JobRoundRobin} (split a class's starts over its jobs).
 */
package dev.turntable.pool.classes;
