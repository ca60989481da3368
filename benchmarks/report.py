#!/usr/bin/env python3
"""Turns one run.sh results directory into markdown tables.

Usage: report.py RESULTS_DIR

Reads RESULTS_DIR/dispatch-r*.json and RESULTS_DIR/stats-r*.json (JMH's -rf json output, one
file per round, each round a whole set of pools) and RESULTS_DIR/latency.json (LatencyRunner).

A round's score for a benchmark is the median of its measurement iterations (robust to a spell
of throttling inside the trial). The table shows the median of the rounds' scores and the
median of the rounds' ratios to TPE (each ratio taken within one round, so both sides of it
saw the same stretch of machine time), with the lowest and highest round ratio in brackets.
"""
import glob
import json
import os
import re
import statistics
import sys

POOL_ORDER = ["TPE", "FJP", "TPE_SPIN", "ROUND_ROBIN", "LEAST_USED", "LEAST_BUSY", "LEAST_CPU", "FAIR_SHARE",
              "WEIGHTED_ROUND_ROBIN", "INTERLEAVED_WEIGHTED_ROUND_ROBIN", "LIFETIME_FIRST"]
STRATEGIES = POOL_ORDER[3:]  # TPE_SPIN is the ceiling of a queue under TPE, not a strategy
BUSY = 0.5  # others' CPUs above which a latency comparison says more about the machine than the pool
STATS_ORDER = ["TPE", "LEAST_USED", "LEAST_USED_HISTOGRAMS", "FAIR_SHARE"]


def median(xs):
    return statistics.median(xs) if xs else None


def load_rounds(results_dir, prefix):
    """{round: [jmh result, ...]} for files named PREFIX-rN.json."""
    rounds = {}
    for path in sorted(glob.glob(os.path.join(results_dir, prefix + "-r*.json"))):
        m = re.search(r"-r(\d+)\.json$", path)
        if not m or os.path.getsize(path) == 0:
            continue
        with open(path) as f:
            rounds[int(m.group(1))] = json.load(f)
    return rounds


def round_score(result):
    raw = [x for fork in result["primaryMetric"]["rawData"] for x in fork]
    return median(raw) if raw else result["primaryMetric"]["score"]


def secondary(result, name):
    m = result.get("secondaryMetrics", {}).get(name)
    if not m:
        return None
    v = m.get("score")
    try:
        v = float(v)
    except (TypeError, ValueError):
        return None
    return None if v != v else v


def machine_note(rounds):
    """One sentence on how much CPU other processes took during the measurement iterations."""
    others = [secondary(res, "·others.cpu") for results in rounds.values() for res in results]
    others = [x for x in others if x is not None]
    steal = [secondary(res, "·steal.cpu") for results in rounds.values() for res in results]
    steal = [x for x in steal if x is not None]
    if not others:
        return ""
    busy = sum(1 for x in others if x > 0.5)
    return ("others' CPUs = CPUs (of the machine's 2) that other processes used during a pool's measurement "
            "iterations, median (max) over its trials. Over the whole table: median %.2f, max %.2f, %d of %d trials "
            "above 0.5; steal median %.2f.\n") % (
        median(others), max(others), busy, len(others), median(steal) if steal else float("nan"))


def method(result):
    return result["benchmark"].rsplit(".", 1)[1]


def others_by_key(rounds, key_param):
    """{key value: [others' CPUs of each of its trials]}"""
    out = {}
    for results in rounds.values():
        for res in results:
            v = secondary(res, "·others.cpu")
            if v is not None:
                out.setdefault(res["params"][key_param], []).append(v)
    return out


def fmt_others(xs):
    return "%.2f (max %.2f)" % (median(xs), max(xs)) if xs else "n/a"


def goal(name, what, rs, threshold, at_least, busy, latency):
    """A row of the goals table: (goal, measured, verdict, others' CPUs)."""
    met = median(rs) >= threshold if at_least else median(rs) <= threshold
    verdict = "yes" if met else "**no**"
    if len(rs) > 1:
        agree = sum(1 for r in rs if (r >= threshold if at_least else r <= threshold) == met)
        verdict += " (%d of %d rounds)" % (agree, len(rs))
    if latency and busy is not None and busy > BUSY:
        # Latency at 25-40% load with a quarter of the machine or more taken is overload.
        verdict += ", unreliable: machine busy"
    measured = (what + " " if what else "") + fmt_ratio(rs)
    return name, measured, verdict, busy


def busy_note(rounds, key_param, keys, meth, task):
    """Others' CPUs (median over the trials) of the trials a goal compares."""
    xs = []
    for results in rounds.values():
        for res in results:
            p = res["params"]
            if p[key_param] in keys and method(res) == meth and (task is None or p.get("task") == task):
                v = secondary(res, "·others.cpu")
                if v is not None:
                    xs.append(v)
    return median(xs)


def collect(rounds, key_param, group_params):
    """{(method, *group values): {key value: {round: score}}}"""
    table = {}
    for r, results in rounds.items():
        for res in results:
            p = res["params"]
            group = (method(res),) + tuple(p[g] for g in group_params)
            table.setdefault(group, {}).setdefault(p[key_param], {})[r] = round_score(res)
    return table


def ratios(scores_by_round, base_by_round):
    return [scores_by_round[r] / base_by_round[r]
            for r in scores_by_round if r in base_by_round and base_by_round[r] > 0]


def fmt_ops(x):
    if x is None:
        return "n/a"
    if x >= 1e6:
        return "%.2f M" % (x / 1e6)
    return "%.0f k" % (x / 1e3)


def fmt_ratio(rs):
    if not rs:
        return "n/a"
    if len(rs) == 1:
        return "%.2f×" % rs[0]
    return "%.2f× (%.2f–%.2f)" % (median(rs), min(rs), max(rs))


def ordered(keys, order):
    return [k for k in order if k in keys] + sorted(k for k in keys if k not in order)


def dispatch_table(results_dir, goals):
    rounds = load_rounds(results_dir, "dispatch")
    if not rounds:
        return "_No DispatchBenchmark results._\n"
    table = collect(rounds, "pool", ["task"])
    groups = [(m, t) for t in ("NOOP", "WORK_10US") for m in ("producers1", "producers2") if (m, t) in table]
    pools = ordered({p for g in groups for p in table[g]}, POOL_ORDER)
    label = {"producers1": "1 producer", "producers2": "2 producers"}
    head = ["Pool"]
    for m, t in groups:
        name = "no-op" if t == "NOOP" else "10 µs"
        head += ["%s, %s ops/s" % (name, label[m]), "× TPE"]
    head.append("others' CPUs")
    others = others_by_key(rounds, "pool")
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for pool in pools:
        row = [pool]
        for g in groups:
            s = table[g].get(pool, {})
            row.append(fmt_ops(median(list(s.values()))))
            row.append(fmt_ratio(ratios(s, table[g].get("TPE", {}))))
        row.append(fmt_others(others.get(pool)))
        lines.append("| " + " | ".join(row) + " |")
    out = "\n".join(lines) + "\n"
    out += "\n%d round(s); ops/s = median over rounds of each round's median iteration; " \
           "× TPE = median (min–max) over rounds of the ratio to TPE in the same round.\n" % len(rounds)
    out += machine_note(rounds)
    for m in ("producers1", "producers2"):
        g = (m, "NOOP")
        if g not in table or "TPE" not in table[g]:
            continue
        base = table[g]["TPE"]
        meds = {p: median(ratios(table[g][p], base)) for p in STRATEGIES if p in table[g]}
        meds = {p: v for p, v in meds.items() if v is not None}
        if not meds:
            continue
        worst = min(meds, key=meds.get)
        best = max(meds, key=meds.get)
        goals.append(goal("no-op throughput ≥ 1.0× TPE for every strategy (%s)" % label[m],
                          "lowest: " + worst, ratios(table[g][worst], base), 1.0, True,
                          busy_note(rounds, "pool", (worst, "TPE"), m, "NOOP"), False))
        goals.append(goal("no-op throughput ≥ 1.5× TPE for the best strategy (%s)" % label[m],
                          "best: " + best, ratios(table[g][best], base), 1.5, True,
                          busy_note(rounds, "pool", (best, "TPE"), m, "NOOP"), False))
    return out


def stats_table(results_dir, goals):
    rounds = load_rounds(results_dir, "stats")
    if not rounds:
        return "_No StatisticsCostBenchmark results._\n"
    table = collect(rounds, "config", [])
    methods = [m for m in ("producers1", "producers2") if (m,) in table]
    configs = ordered({c for m in methods for c in table[(m,)]}, STATS_ORDER)
    label = {"producers1": "1 producer", "producers2": "2 producers"}
    head = ["Config"]
    for m in methods:
        head += ["no-op, %s ops/s" % label[m], "× TPE", "× LEAST_USED"]
    head.append("others' CPUs")
    others = others_by_key(rounds, "config")
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for c in configs:
        row = [c]
        for m in methods:
            s = table[(m,)].get(c, {})
            row.append(fmt_ops(median(list(s.values()))))
            row.append(fmt_ratio(ratios(s, table[(m,)].get("TPE", {}))))
            row.append(fmt_ratio(ratios(s, table[(m,)].get("LEAST_USED", {}))))
        row.append(fmt_others(others.get(c)))
        lines.append("| " + " | ".join(row) + " |")
    out = "\n".join(lines) + "\n"
    out += "\n%d round(s); ratios are per round, median (min–max). LEAST_USED_HISTOGRAMS = LEAST_USED " \
           "with setLatencyHistograms(true).\n" % len(rounds)
    out += machine_note(rounds)
    for m in methods:
        t = table[(m,)]
        if "LEAST_USED" in t and "LEAST_USED_HISTOGRAMS" in t:
            r = median(ratios(t["LEAST_USED_HISTOGRAMS"], t["LEAST_USED"]))
            if r is not None:
                goals.append(goal("statistics on ≥ 0.7× of off, LEAST_USED no-op (%s)" % label[m], "",
                                  ratios(t["LEAST_USED_HISTOGRAMS"], t["LEAST_USED"]), 0.7, True,
                                  busy_note(rounds, "config", ("LEAST_USED_HISTOGRAMS", "LEAST_USED"), m, None),
                                  False))
    return out


def quiet_segment(v):
    o = v.get("othersCpu")
    return o is not None and o < BUSY


def latency_table(results_dir, goals):
    path = os.path.join(results_dir, "latency.json")
    if not os.path.exists(path) or os.path.getsize(path) == 0:
        return "_No latency results._\n"
    with open(path) as f:
        data = json.load(f)
    rows = data["results"]
    s = data["settings"]
    loads = sorted({r["load"] for r in rows})
    configs = []
    for r in rows:
        if r["config"] not in configs:
            configs.append(r["config"])

    def order_key(c):
        pool = c.split("+")[0].split("-steal")[0]
        return (POOL_ORDER.index(pool) if pool in POOL_ORDER else 99, "-steal" in c)

    configs.sort(key=order_key)
    by = {}
    for r in rows:
        by.setdefault((r["load"], r["config"]), {})[r["round"]] = r
    head = ["Load", "Pool", "short p50 µs", "short p99 µs", "short p99.9 µs", "all p50 µs", "all p99 µs",
            "all p99.9 µs", "short p99 × TPE", "× TPE, quiet rounds", "lag p99 µs", "others' CPUs"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for load in loads:
        base = {rd: v["short"]["p99"] for rd, v in by.get((load, "TPE"), {}).items()}
        for c in configs:
            rs = by.get((load, c))
            if not rs:
                continue

            def med(kind, p):
                return median([v[kind][p] for v in rs.values()])

            rat = [rs[rd]["short"]["p99"] / base[rd] for rd in rs if rd in base and base[rd] > 0]
            # Quiet rounds: neither this pool's segment nor TPE's of the same round shared the
            # machine with other processes using BUSY CPUs or more.
            tpe = by.get((load, "TPE"), {})
            quiet = [rs[rd]["short"]["p99"] / base[rd] for rd in rs
                     if rd in base and base[rd] > 0 and quiet_segment(rs[rd]) and quiet_segment(tpe[rd])]
            others = [v.get("othersCpu") for v in rs.values() if v.get("othersCpu") is not None]
            lines.append("| %d%% | %s | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f | %s | %s | %.0f | %s |" % (
                round(load * 100), c, med("short", "p50"), med("short", "p99"), med("short", "p999"),
                med("all", "p50"), med("all", "p99"), med("all", "p999"), fmt_ratio(rat),
                (fmt_ratio(quiet) + " n=%d" % len(quiet)) if quiet else "none", med("lag", "p99"),
                fmt_others(others)))
            if c.endswith("+steal") and rat:
                name = "short-task p99 ≤ 1.2× TPE, %s, load %d%%" % (c, round(load * 100))
                busy = median(others) if others else None
                if len(quiet) >= 3:
                    goals.append(goal(name, "quiet rounds:", quiet, 1.2, False, None, True)[:3] + (busy,))
                else:
                    g = goal(name, "all rounds:", rat, 1.2, False, None, True)
                    goals.append((g[0], g[1], g[2] + ", unreliable: %d quiet round(s)" % len(quiet), busy))
    out = "\n".join(lines) + "\n"
    out += ("\n%d round(s) of %d recorded tasks (+%d warm-up) per pool and load; 2 workers; %.0f%% of tasks ~%d µs, "
            "the rest ~%d µs (CPU loops, %.1f consumeCPU tokens/µs). Latency = submit to end of run; each "
            "percentile is the median over rounds; × TPE = median (min–max) over rounds of the ratio to TPE's short "
            "p99 in the same round; quiet rounds = only the rounds in which other processes used less than %.1f CPUs "
            "during both this pool's and TPE's segment (n = how many). lag = how late the open-loop generator "
            "submitted against its schedule. others' CPUs = CPUs used by other processes while the recorded tasks "
            "ran, median (max) over rounds. %d of %d segments were quiet; %.0f s were spent waiting for quiet and "
            "%d segment(s) were rerun because others disturbed them.\n") % (
        s["rounds"], s["tasks"], s["warmupTasks"], s["longFraction"] * 100, s["longNanos"] // 1000,
        s["shortNanos"] // 1000, s["tokensPerMicro"], BUSY, sum(1 for r in rows if quiet_segment(r)), len(rows),
        sum(r.get("quietWaitMillis", 0) for r in rows) / 1000.0, sum(r.get("attempts", 1) - 1 for r in rows))
    return out


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: report.py RESULTS_DIR")
    d = sys.argv[1]
    goals = []
    print("### DispatchBenchmark: submit-to-completion throughput (2 workers)\n")
    print(dispatch_table(d, goals))
    print("### StatisticsCostBenchmark: cost of statistics, no-op tasks (2 workers)\n")
    print(stats_table(d, goals))
    print("### HeterogeneousLatencyBenchmark: open-loop latency, 95% ~10 µs + 5% ~1 ms tasks (2 workers)\n")
    print(latency_table(d, goals))
    if goals:
        print("### Goals (ratios to TPE in the same run, median of rounds)\n")
        print("| Goal | Measured, median (min–max) over rounds | Met | others' CPUs |")
        print("|---|---|---|---|")
        for g, v, verdict, busy in goals:
            print("| %s | %s | %s | %s |" % (g, v, verdict, "n/a" if busy is None else "%.2f" % busy))
        print("\nMet = whether the median over rounds meets the goal, and in how many rounds the single-round "
              "ratio agrees. others' CPUs = median CPUs other processes used during the compared trials (or "
              "during this pool's latency segments). Latency goals are judged on quiet rounds only (other "
              "processes below %.1f CPUs during both segments compared: above that the pool is overloaded by "
              "them, not by its own load) and marked unreliable with fewer than 3 such rounds.\n" % BUSY)


if __name__ == "__main__":
    main()
