#!/usr/bin/env bash
# Interleaved A/B of DispatchBenchmark between jars built from different commits: each round runs
# every jar, and in each jar every pool, one JMH fork per trial, so the jars share the machine's
# minutes (this VM's speed drifts by 2x over minutes; jars measured an hour apart say nothing).
# Prints one line per trial: round, jar, pool, median iteration (M ops/s) and the iterations.
# The jars' order rotates from round to round (see below).
#
#   bash benchmarks/ab.sh ROUNDS producers1|producers2 "POOL ..." JAR [JAR ...]
#   e.g. bash benchmarks/ab.sh 4 producers1 "TPE ROUND_ROBIN LEAST_USED" /tmp/base.jar benchmarks/target/benchmarks.jar
#
# A JAR may also be LABEL=JAR:JVMFLAG, to compare one jar with itself under a flag (a scratch
# switch read with Boolean.getBoolean, say), which leaves out every difference between two builds:
#   bash benchmarks/ab.sh 3 producers1 "TPE ROUND_ROBIN" off=/tmp/x.jar on=/tmp/x.jar:-Dx.batch=true
#
# Build a jar of another commit with: git worktree add /tmp/base <commit> &&
#   (cd /tmp/base && mvn -B -q -DskipTests package -pl benchmarks -am) && cp /tmp/base/benchmarks/target/benchmarks.jar /tmp/base.jar
# TASK=WORK_10US for the 10 us tasks; JMH_TIMES to change the trial (default: -wi 2 -w 500ms -i 4 -r 500ms).
# BENCHMARK=BurstBenchmark for bursts past the workers' queues (producers1 only, no TASK);
# BENCHMARK=SingleWorkerBenchmark for one-worker pools (producers1 only, no TASK).
set -euo pipefail
if [ $# -lt 4 ]; then sed -n '2,18p' "$0"; exit 2; fi
ROUNDS=$1; BENCH=$2; POOLS=$3; shift 3
case "$BENCH" in producers1|producers2) ;; *) echo "benchmark must be producers1 or producers2, not '$BENCH'" >&2; exit 2 ;; esac
BENCHMARK=${BENCHMARK:-DispatchBenchmark}
case "$BENCHMARK" in
  DispatchBenchmark) ;;
  BurstBenchmark|SingleWorkerBenchmark) [ "$BENCH" = producers1 ] || { echo "$BENCHMARK has producers1 only, not '$BENCH'" >&2; exit 2; } ;;
  *) echo "BENCHMARK must be DispatchBenchmark, BurstBenchmark or SingleWorkerBenchmark, not '$BENCHMARK'" >&2; exit 2 ;;
esac
case "$ROUNDS" in ''|*[!0-9]*) echo "ROUNDS must be a positive integer, not '$ROUNDS'" >&2; exit 2 ;; esac
# Each spec: JAR, or LABEL=JAR:JVMFLAG (one flag, passed to the forked JVM).
spec_label() { case "$1" in *=*) echo "${1%%=*}" ;; *) basename "$1" ;; esac; }
spec_jar() { local r=$1; case "$r" in *=*) r=${r#*=}; echo "${r%%:*}" ;; *) echo "$r" ;; esac; }
spec_flag() { local r=$1; case "$r" in *=*:*) r=${r#*=}; echo "${r#*:}" ;; *) echo "" ;; esac; }
for spec in "$@"; do jar=$(spec_jar "$spec"); [ -f "$jar" ] || { echo "no such jar: $jar (from '$spec')" >&2; exit 2; }; done
TASK=${TASK:-NOOP}
TASK_PARAM=()
if [ "$BENCHMARK" = DispatchBenchmark ]; then TASK_PARAM=(-p "task=$TASK"); fi
read -r -a TIMES <<< "${JMH_TIMES:--wi 2 -w 500ms -i 4 -r 500ms}"
JARS=("$@")
for r in $(seq 1 "$ROUNDS"); do
  # The jars' order rotates by round: a trial's place in the round biases it on this VM (three
  # copies of one jar, 3 rounds, FAIR_SHARE: 3.76-3.82 M ops/s first, 3.06-3.41 second and third),
  # so a fixed order can pass for a difference. Run a multiple of the jars' count in rounds.
  for k in $(seq 0 $((${#JARS[@]} - 1))); do
    spec=${JARS[$(( (k + r - 1) % ${#JARS[@]} ))]}
    jar=$(spec_jar "$spec"); flag=$(spec_flag "$spec"); label=$(spec_label "$spec")
    for p in $POOLS; do
      its=$(java -jar "$jar" "$BENCHMARK.$BENCH\$" -p pool="$p" ${TASK_PARAM[@]+"${TASK_PARAM[@]}"} -f 1 ${flag:+-jvmArgsAppend "$flag"} "${TIMES[@]}" 2>&1 \
              | awk '/^Iteration/ {gsub(",", "", $3); printf "%.2f ", $3 / 1e6}')
      med=$(echo "$its" | tr ' ' '\n' | grep -v '^$' | sort -n | awk '{a[NR] = $1} END {if (NR == 0) print "n/a"; else if (NR % 2) print a[(NR + 1) / 2]; else printf "%.2f\n", (a[NR / 2] + a[NR / 2 + 1]) / 2}')
      echo "r$r $label $p $med [ $its]"
    done
  done
done
