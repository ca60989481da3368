package dev.turntable.pool.classes;

import java.util.Objects;

/**
 * The load-based planner for task classes, after Twitter Scoot's {@code LoadBasedAlg}: decides
 * how many tasks of each class start on idle workers and, when rebalancing, how many of each
 * class's most recently started tasks stop. A pure function; stateless; any thread (each thread
 * with its own {@link LoadSnapshot} and {@link LoadPlan}). No clock: time comes in as
 * {@code nowNanos}, and the memory between calls is the {@link RebalanceState} value the caller
 * passes back in.
 *
 * <h2>Arithmetic</h2>
 * Classes are taken in planner order (share descending, then name). Percents are
 * {@link ClassConfig#normalisedPercent(int) normalised percents}.
 * <ol>
 * <li><b>Entitlement</b> of class i: {@code floor(workers * percent / 100)}, the whole workers of
 * its share; each worker left over goes to a different class still under its exact share, the
 * one with the larger fraction of a worker first, then the first in class order. So entitlements
 * sum to the workers and never pass a class's exact share rounded up ({@link LoadPlan#ceilingWorkers}).
 * These are what {@link LoadPlan#entitledWorkers} reports and rebalancing starts classes up to.
 * For starting tasks (the entitlement pass below) the workers left over go first to the class
 * furthest below its percent of the usage so far ({@link LoadSnapshot#usage}: the engine gives
 * the worker time each class has used): so over many passes each class gets its share of a worker the shares split,
 * where a fixed rule would give it to the same class every time.</li>
 * <li><b>Entitlement pass</b> (at most one round per class): each class that waits and runs (plus
 * starts so far) no more than its entitlement wants the difference; those wants are turned into
 * percents ({@code floor(want * 100 / total want)}, the first class with a want getting the
 * rest up to 100); {@code min(idle, total want)} workers are shared out class by class, each class
 * getting {@code min(waiting, ceil(workers * percent / 100))}, cut so the round never exceeds
 * its workers. The classes go furthest below their percent of the usage so far first
 * ({@link LoadSnapshot#usage}; in class order when none is given): a pass often has one
 * worker to give, and in class order the first class took every such worker. With tasks too
 * short to be seen running, so that no class ever reached its entitlement, it took all of them
 * until its backlog had run (3 workers at {@code interactive:75;batch:25}: 0 of the first 400
 * starts were batch's). Rounding up can take a class past its entitlement while a class after it, still
 * under its own, is cut short: such excess starts move to the class still wanting (our one
 * departure from Scoot's rounding; without it, 4 workers at {@code interactive:75;batch:25}
 * could run 4 interactive tasks and no batch one when workers come free one pass at a time).
 * Rounds stop when no class wants, nothing waits or no idle worker is left.</li>
 * <li><b>Loan pass</b> (at most one round per class): the idle workers left are shared the same
 * way by the percents of the classes still waiting, re-normalised to them (the first waiting
 * class getting the rest up to 100). A class may thus run above its entitlement on workers
 * other classes do not use.</li>
 * <li><b>Delta entitlement spread</b>: for each class with waiting tasks (as the design notes
 * define it), {@code percent - floor(running * 100 / workers)}; the spread is the largest of
 * these (and 0) minus the smallest (and 0). A class running above its percent with nothing
 * waiting does not count by itself: borrowing workers no one else wants is what loans are
 * for, and counting it kept the over-threshold time running while no class was short, so the
 * first task of a class that came back later rebalanced at once, with no damping. With rebalancing on (threshold above 0), a plan whose spread is
 * above the threshold records the time in its next state; a later plan still above it, at least
 * {@code rebalanceMinimumDurationNanos} after that time, rebalances and resets the state; a plan
 * at or below the threshold resets the state.</li>
 * <li><b>Rebalance</b>: a class running more than its ceiling (its exact share rounded up:
 * a worker the shares split is never taken back by a stop, only by the starts as tasks end, or a
 * rebalance and the next starts handed it back and forth, a restartable task each time) stops
 * {@code running - ceiling} tasks (its most recently started); a class running at least its
 * entitlement keeps what it runs; a class whose running plus waiting stays under
 * its entitlement starts all its waiting tasks; any other class starts up to its entitlement.
 * Workers still free after that are loaned as in the loan pass; those that no class with waiting
 * tasks takes are then loaned again with each class's tasks to stop counting as waiting in it (a
 * loan to an over-entitled class lowers its stops): no task is stopped for a worker that no
 * waiting task of another class would take, and none is kept on one that such a task would. Idle workers are not a limit here, since stops free workers; but the plan
 * never starts more than {@code idle + stops} tasks: should it (possible only when the counts
 * disagree, e.g. a 0% class still runs tasks), starts are cut from the last class in planner
 * order.</li>
 * </ol>
 * A class at 0% is ignored: its waiting tasks never start, even when every worker is idle, and
 * its running tasks are neither counted nor stopped. Every result satisfies: starts of a class
 * never exceed its waiting tasks; total starts never exceed idle workers (plus stops when
 * rebalancing); without rebalancing, total starts are {@code min(idle, waiting of classes above
 * 0%)}.
 *
 * <h2>Where this differs from Scoot's code</h2>
 * Scoot's published test numbers are all reproduced; these choices differ from its code:
 * the requestor map is tried in the order given with full matches (Scoot: Go map order,
 * partial match); shares not summing to 100 normalise to {@code floor(share * 100 / total)}
 * (Scoot's code omits the {@code * 100}, handing the largest class everything); in the
 * entitlement pass the rounding leftover goes to the first class that wants workers (Scoot: to
 * the largest class even when it is over its entitlement); entitlements share the workers the
 * floors leave by the largest fractions, and starts share them and each round's workers by the
 * usage so far (Scoot: all to the first class, and rounds in class order,
 * which on a small pool left a class with a real share entitled to nothing while another was
 * backlogged: 3 workers at {@code interactive:75;batch:25} planned 3:0, not 2:1, and 1 worker at
 * {@code a:50;b:50} ran all of {@code a}'s backlog first; Scoot's clusters have hundreds of
 * workers, a pool a handful); a rebalance stops tasks only above a class's exact share rounded
 * up (Scoot: above its entitlement); {@code ceil} is exact integer
 * arithmetic (Scoot: float32); when rebalancing, planned starts are taken off the waiting tasks
 * before loaning (Scoot could loan a class more than it has waiting), loans repeat like the loan
 * pass and starts are capped at idle plus stops; the state resets when the spread is at or below
 * the threshold (Scoot keeps the old start time), the duration test is {@code >=} (Scoot:
 * {@code >}) and a threshold above 0 alone turns rebalancing on (Scoot also needs a duration
 * above 0); class order ties are broken by name (Scoot: unstable sort).
 *
 * <p><b>Cost</b>: O(c²) for c classes, whatever the numbers of workers or tasks; no allocation
 * when a {@link LoadPlan} is reused (one small object when a spread first exceeds the threshold).
 */
public final class LoadPlanner {

    private LoadPlanner() {
    }

    /** Plans into a new {@link LoadPlan}; see {@link #plan(ClassConfig, LoadSnapshot, long, RebalanceState, LoadPlan)}. */
    public static LoadPlan plan(ClassConfig config, LoadSnapshot snapshot, long nowNanos, RebalanceState previous) {
        return plan(config, snapshot, nowNanos, previous, new LoadPlan(config));
    }

    /**
     * Plans which tasks to start and stop for {@code snapshot}, overwriting and returning {@code out}.
     *
     * @param nowNanos the current time, {@code System.nanoTime()}-style
     * @param previous the previous plan's {@link LoadPlan#nextState()}, or {@link RebalanceState#INITIAL}
     * @throws IllegalArgumentException if the snapshot or plan was made for a different configuration
     */
    public static LoadPlan plan(ClassConfig config, LoadSnapshot snapshot, long nowNanos, RebalanceState previous,
                                LoadPlan out) {
        sameConfig(config, snapshot.config(), "snapshot");
        sameConfig(config, out.config(), "plan");
        Objects.requireNonNull(previous, "previous");
        int n = config.classCount();
        int total = snapshot.totalWorkers();
        int idle = snapshot.idleWorkers();
        for (int i = n - 1; i >= 0; i--) {
            int pct = config.normalisedPercent(i);
            out.starts[i] = 0;
            out.stops[i] = 0;
            out.running[i] = pct == 0 ? 0 : snapshot.runningTasks(i);
            out.waitingLeft[i] = pct == 0 ? 0 : snapshot.waitingTasks(i);
        }
        behind(config, snapshot, out);
        entitle(config, out, total, out.entitled, false);
        for (int i = 0; i < n; i++) {
            out.ceiling[i] = (int) (((long) total * config.normalisedPercent(i) + 99) / 100);
        }
        entitle(config, out, total, out.seats, true);
        int spread = spread(config, out, total);
        out.deltaSpreadPercent = spread;
        out.rebalanced = false;
        if (!config.rebalancingEnabled() || spread <= config.rebalanceThresholdPercent()) {
            out.nextState = RebalanceState.INITIAL;
        } else if (!previous.overThreshold()) {
            out.nextState = RebalanceState.overSince(nowNanos);
        } else if (previous.overThresholdForNanos(nowNanos) >= config.rebalanceMinimumDurationNanos()) {
            out.nextState = RebalanceState.INITIAL;
            out.rebalanced = true;
        } else {
            out.nextState = previous;
        }
        if (out.rebalanced) {
            rebalance(config, out, total, idle);
        } else {
            startOnIdle(config, out, idle);
        }
        return out;
    }

    /**
     * How far each class above 0% is below its percent of the usage so far
     * ({@link LoadSnapshot#usage}), in hundredths of a unit: {@code percent * all - 100 *
     * its own}; and the classes in that order, furthest behind first, ties in class order. All 0,
     * and class order, when no usage was given. Usage is read up to 2^50, far from overflow.
     */
    private static void behind(ClassConfig config, LoadSnapshot snapshot, LoadPlan p) {
        int n = p.behind.length;
        long all = 0;
        for (int i = 0; i < n; i++) {
            if (config.normalisedPercent(i) > 0) {
                all = Math.min(USAGE_CAP, all + Math.min(USAGE_CAP, snapshot.usage(i)));
            }
        }
        for (int i = 0; i < n; i++) {
            int pct = config.normalisedPercent(i);
            p.behind[i] = pct == 0 ? 0 : pct * all - 100 * Math.min(USAGE_CAP, snapshot.usage(i));
            // Insertion sort, stable: n is the number of classes.
            int k = i;
            while (k > 0 && p.behind[p.order[k - 1]] < p.behind[i]) {
                p.order[k] = p.order[k - 1];
                k--;
            }
            p.order[k] = i;
        }
    }

    /** Usage is read up to this (2^50): ample to rank classes, and 100 times it fits a long. */
    private static final long USAGE_CAP = 1L << 50;

    /**
     * Entitlements into {@code out}: each class above 0% gets the whole workers of its share,
     * {@code floor(total * percent / 100)}; each worker left over goes to a class whose exact
     * share ({@code total * percent / 100}) it does not reach, at most one each: with
     * {@code byUsage}, the one furthest {@link LoadPlan#behind} its share of the usage so far
     * first; then the one with the larger fraction of a worker, then the first in class order.
     * Workers left after that (percents normalised to under 100) go to the first class above 0%.
     */
    private static void entitle(ClassConfig config, LoadPlan p, int total, int[] out, boolean byUsage) {
        int n = out.length;
        int given = 0;
        for (int i = 0; i < n; i++) {
            out[i] = (int) ((long) total * config.normalisedPercent(i) / 100);
            given += out[i];
        }
        for (int left = total - given; left > 0; left--) {
            int best = -1;
            long bestFraction = 0;
            for (int x = 0; x < n; x++) {
                int i = byUsage ? p.order[x] : x;
                int pct = config.normalisedPercent(i);
                if (pct == 0 || (long) out[i] * 100 >= (long) total * pct) {
                    continue; // at 0%, or already at (or past) its exact share
                }
                long fraction = (long) total * pct % 100;
                if (best < 0 || ((!byUsage || p.behind[i] == p.behind[best]) && fraction > bestFraction)) {
                    best = i;
                    bestFraction = fraction;
                }
            }
            if (best < 0) {
                out[firstAbove0(config)] += left;
                break;
            }
            out[best]++;
        }
    }

    private static int firstAbove0(ClassConfig config) {
        for (int i = 0; i < config.classCount(); i++) {
            if (config.normalisedPercent(i) > 0) {
                return i;
            }
        }
        return 0;
    }

    private static void startOnIdle(ClassConfig config, LoadPlan p, int idle) {
        int n = p.starts.length;
        int idleLeft = idle;
        boolean waiting = true;
        for (int round = 0; round < n; round++) {
            long totalWant = 0;
            for (int i = 0; i < n; i++) {
                long used = (long) p.running[i] + p.starts[i];
                p.entitlement[i] = used <= p.seats[i] && p.waitingLeft[i] > 0 ? (int) (p.seats[i] - used) : 0;
                totalWant += p.entitlement[i];
            }
            if (totalWant == 0) {
                break;
            }
            toPercents(p.entitlement, totalWant, p.percent);
            idleLeft -= share(p, (int) Math.min(idleLeft, totalWant));
            giveBackRoundingExcess(p);
            waiting = anyWaiting(p);
            if (!waiting || idleLeft <= 0) {
                break;
            }
        }
        if (idleLeft > 0 && waiting) {
            loan(config, p, idleLeft);
        }
    }

    /** Loan rounds: shares {@code free} workers by percents re-normalised to the waiting classes. */
    private static int loan(ClassConfig config, LoadPlan p, int free) {
        int n = p.starts.length;
        int left = free;
        for (int round = 0; round < n && left > 0; round++) {
            long totalPct = 0;
            for (int i = 0; i < n; i++) {
                p.entitlement[i] = p.waitingLeft[i] > 0 ? config.normalisedPercent(i) : 0;
                totalPct += p.entitlement[i];
            }
            if (totalPct == 0) {
                return left;
            }
            toPercents(p.entitlement, totalPct, p.percent);
            left -= share(p, left);
        }
        return left;
    }

    private static void rebalance(ClassConfig config, LoadPlan p, int total, int idle) {
        int n = p.starts.length;
        long afterwards = 0;
        for (int i = 0; i < n; i++) {
            int run = p.running[i];
            int ent = p.entitled[i];
            int wait = p.waitingLeft[i];
            int delta;
            if (run > p.ceiling[i]) {
                delta = p.ceiling[i] - run;
            } else if (run >= ent) {
                delta = 0; // within its entitlement, or on a split worker it keeps (ceilingWorkers)
            } else if ((long) run + wait < ent) {
                delta = wait;
            } else {
                delta = ent - run;
            }
            p.starts[i] = delta;
            p.stops[i] = Math.max(0, -delta); // the stops before any loan, for the second round
            if (delta > 0) {
                p.waitingLeft[i] -= delta;
            }
            afterwards += (long) run + delta;
        }
        if (afterwards < total) {
            // Loans go first to the classes with tasks really waiting. The workers none of them
            // takes are then lent back to the tasks a class would stop (they count as waiting in
            // it), which are then not stopped. Stopping them anyway interrupted restartable work
            // only to start it again at once on the worker it freed (4 workers at 75/25, batch
            // running 3, one worker idle: one interactive task stopped 2 batch tasks, both
            // restarted as loans). In that order, a class keeps no borrowed worker that
            // another's waiting task would take. A first-round loan to a class that stops tasks
            // nets against its stops, so the second round may lend back all of its planned stops,
            // not just those left: counting only those left, a class's own waiting task lent a
            // worker in the first round cancelled a stop instead, and an idle worker stayed idle
            // beside it (5 workers at a:82;c:18, c running 4 and 1 waiting: nothing started).
            int left = loan(config, p, (int) (total - afterwards));
            if (left > 0) {
                for (int i = 0; i < n; i++) {
                    p.waitingLeft[i] += p.stops[i];
                }
                loan(config, p, left);
            }
        }
        long stops = 0;
        long starts = 0;
        for (int i = 0; i < n; i++) {
            int delta = p.starts[i];
            p.stops[i] = Math.max(0, -delta);
            p.starts[i] = Math.max(0, delta);
            stops += p.stops[i];
            starts += p.starts[i];
        }
        long excess = starts - (idle + stops);
        for (int i = n - 1; i >= 0 && excess > 0; i--) {
            int cut = (int) Math.min(excess, p.starts[i]);
            p.starts[i] -= cut;
            excess -= cut;
        }
    }

    /**
     * After an entitlement round: rounding up can take a class past its entitlement while another
     * class, still under its own, has tasks waiting (4 workers, interactive:75 running 1 of its 3,
     * 3 idle: its 67% of 3 rounds up to all 3, and batch's entitled worker goes to a fourth
     * interactive task). Moves such excess starts, one at a time, to the under-entitled classes in
     * class order. Where no class is left wanting, Scoot's numbers are unchanged.
     */
    private static void giveBackRoundingExcess(LoadPlan p) {
        int n = p.starts.length;
        for (int j = 0; j < n; j++) {
            while (p.waitingLeft[j] > 0 && (long) p.running[j] + p.starts[j] < p.seats[j]) {
                int donor = -1;
                for (int i = n - 1; i >= 0; i--) {
                    long over = (long) p.running[i] + p.starts[i] - p.seats[i];
                    if (i != j && over > 0 && p.starts[i] > 0) {
                        donor = i;
                        break;
                    }
                }
                if (donor < 0) {
                    return;
                }
                p.starts[donor]--;
                p.waitingLeft[donor]++;
                p.starts[j]++;
                p.waitingLeft[j]--;
            }
        }
    }

    /**
     * Shares {@code workers} class by class, furthest behind its share of the usage first (class
     * order when none was given), class i taking {@code min(waiting, ceil(workers * percent /
     * 100))}, cut so the total never exceeds {@code workers}. Returns the total taken.
     */
    private static int share(LoadPlan p, int workers) {
        int taken = 0;
        for (int x = 0; x < p.starts.length; x++) {
            int i = p.order[x];
            long want = ((long) workers * p.percent[i] + 99) / 100;
            int k = (int) Math.min(p.waitingLeft[i], Math.min(want, workers - taken));
            p.starts[i] += k;
            p.waitingLeft[i] -= k;
            taken += k;
        }
        return taken;
    }

    /**
     * Percents of {@code weights}: {@code floor(w * 100 / total)} for each, except the first
     * positive weight, which gets 100 minus the others.
     */
    private static void toPercents(int[] weights, long total, int[] percentOut) {
        int first = -1;
        int others = 0;
        for (int i = 0; i < weights.length; i++) {
            if (weights[i] > 0 && first < 0) {
                first = i;
                percentOut[i] = 0;
            } else {
                percentOut[i] = (int) (weights[i] * 100L / total);
                others += percentOut[i];
            }
        }
        percentOut[first] = 100 - others;
    }

    private static boolean anyWaiting(LoadPlan p) {
        for (int w : p.waitingLeft) {
            if (w > 0) {
                return true;
            }
        }
        return false;
    }

    private static int spread(ClassConfig config, LoadPlan p, int total) {
        if (total == 0 || p.starts.length < 2) {
            return 0;
        }
        int min = 0;
        int max = 0;
        for (int i = 0; i < p.starts.length; i++) {
            int pct = config.normalisedPercent(i);
            int diff = pct - (int) Math.min(Integer.MAX_VALUE / 2, (long) p.running[i] * 100 / total);
            if (p.waitingLeft[i] > 0) {
                min = Math.min(min, diff);
                max = Math.max(max, diff);
            }
        }
        return max - min;
    }

    private static void sameConfig(ClassConfig config, ClassConfig other, String what) {
        if (config != other && !config.equals(other)) {
            throw new IllegalArgumentException("the " + what + " was made for configuration [" + other
                    + "], not [" + config + "]");
        }
    }
}
