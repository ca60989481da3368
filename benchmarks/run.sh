#!/usr/bin/env bash
# Builds the benchmarks and runs all three, sized for this machine (2 vCPUs, throttled to about
# one core in spells, often shared with other builds): every round runs the whole set of pools,
# in an order rotated by round; the report takes medians over rounds and ratios to TPE within
# each round. Prints one markdown table per benchmark (and the goals) and keeps everything in
# benchmarks/target/results/<timestamp>-<mode>/.
#
#   bash benchmarks/run.sh            full run: 5 rounds, ~20 minutes
#   bash benchmarks/run.sh --quick    smoke run: 1 round, short iterations, ~2-3 minutes
#
# Options (after the mode): --rounds N (override), --skip-build, --only dispatch,stats,latency
set -euo pipefail

CMDLINE="bash benchmarks/run.sh${*:+ $*}"
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

MODE=full
ROUNDS=
BUILD=1
ONLY=dispatch,stats,latency
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) MODE=quick ;;
    --full) MODE=full ;;
    --rounds) ROUNDS=$2; shift ;;
    --skip-build) BUILD=0 ;;
    --only) ONLY=$2; shift ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    *) echo "unknown option $1 (--quick | --rounds N | --skip-build | --only dispatch,stats,latency)" >&2; exit 2 ;;
  esac
  shift
done

if [ "$MODE" = quick ]; then
  ROUNDS=${ROUNDS:-1}
  # Per trial: 1 x 0.5 s warm-up, 2 x 0.5 s measurement (plus ~1 s fork start).
  JMH_TIMES=(-wi 1 -w 500ms -i 2 -r 500ms)
  LATENCY_ARGS=(--tasks 4000 --warmup-tasks 500 --quiet-wait 2 --quiet-budget 15 --retry-budget 10)
else
  # More, shorter rounds rather than long trials: the machine's background load changes on a
  # scale of seconds to minutes, and a median over 5 interleaved rounds shrugs off a bad one.
  ROUNDS=${ROUNDS:-5}
  # Per trial: 2 x 0.5 s warm-up, 3 x 0.5 s measurement (plus ~1 s fork start).
  JMH_TIMES=(-wi 2 -w 500ms -i 3 -r 500ms)
  # Latency under a competing build measures the overload, not the pool: before each segment
  # wait up to 10 s for other processes to drop below 0.3 CPUs (120 s at most in all), and rerun
  # a segment they disturbed anyway (90 s of reruns at most in all). See LatencyRunner.
  LATENCY_ARGS=(--tasks 12000 --warmup-tasks 1500 --quiet-wait 10 --quiet-budget 120 --retry-budget 90)
fi
HEAP="-Xms1g -Xmx1g"

want() { [[ ",$ONLY," == *",$1,"* ]]; }

# Rotates a comma-separated list left by N places: round r starts with a different pool.
rotate() {
  local IFS=, n=$2
  local -a a=($1)
  local len=${#a[@]} out=() i
  for ((i = 0; i < len; i++)); do out+=("${a[(i + n) % len]}"); done
  echo "${out[*]}"
}

START=$(date +%s)
# The engine changes under our feet: keep exactly what is built and measured (its diff against
# HEAD, untracked files included), taken just before the build.
ENGINE_DIFF=$(mktemp)
{
  git diff HEAD -- pool-runtime/src/main 2>/dev/null || true
  git ls-files --others --exclude-standard -- pool-runtime/src/main 2>/dev/null | while read -r f; do
    git diff --no-index -- /dev/null "$f" 2>/dev/null || true
  done
} > "$ENGINE_DIFF"
if [ "$BUILD" = 1 ]; then
  echo ">> building: mvn -B -q -DskipTests package -pl benchmarks -am" >&2
  # pool-runtime is edited concurrently: a half-written file breaks a build for a minute or so.
  for try in 1 2 3 4; do
    if mvn -B -q -DskipTests package -pl benchmarks -am > /tmp/turntable-bench-build.$$ 2>&1; then
      break
    fi
    if [ "$try" = 4 ]; then
      cat /tmp/turntable-bench-build.$$ >&2; rm -f /tmp/turntable-bench-build.$$
      echo "!! build failed 4 times" >&2; exit 1
    fi
    echo "!! build failed (try $try; someone else's half-written file?); retrying in 60 s" >&2
    grep -m3 ERROR /tmp/turntable-bench-build.$$ >&2 || true
    sleep 60
  done
  rm -f /tmp/turntable-bench-build.$$
fi
BUILT_JAR=benchmarks/target/benchmarks.jar
[ -f "$BUILT_JAR" ] || { echo "$BUILT_JAR is missing: build first" >&2; exit 1; }

OUT=benchmarks/target/results/$(date +%Y%m%d-%H%M%S)-$MODE
mkdir -p "$OUT"
# Run a copy: anyone's root `mvn verify` rebuilds target/benchmarks.jar, which must not change
# under a run (JMH starts a fresh JVM from the jar for every trial).
JAR=$OUT/benchmarks.jar
cp "$BUILT_JAR" "$JAR"
mv "$ENGINE_DIFF" "$OUT/pool-runtime.diff"
ENGINE="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
if [ -s "$OUT/pool-runtime.diff" ]; then
  ENGINE="$ENGINE + uncommitted pool-runtime/src/main changes (sha1 of diff $(sha1sum < "$OUT/pool-runtime.diff" | cut -c1-12), saved as pool-runtime.diff)"
fi

# One calibration for the whole run: "10 us" is the same work in every fork and round.
TPM=$(java -cp "$JAR" dev.turntable.benchmarks.Work --value)
echo ">> $MODE run, $ROUNDS round(s), consumeCPU tokens/us = $TPM, results in $OUT" >&2
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)

POOLS=TPE,FJP,TPE_SPIN,ROUND_ROBIN,LEAST_USED,LEAST_BUSY,LEAST_CPU,FAIR_SHARE,WEIGHTED_ROUND_ROBIN,INTERLEAVED_WEIGHTED_ROUND_ROBIN,LIFETIME_FIRST
STATS=TPE,LEAST_USED,LEAST_USED_HISTOGRAMS,FAIR_SHARE
NPOOLS=10
NSTATS=4

jmh() { # name regex params... ; output to $OUT/name-rN.{json,log}
  local name=$1 regex=$2 r=$3; shift 3
  java -jar "$JAR" "$regex" -f 1 "${JMH_TIMES[@]}" -prof dev.turntable.benchmarks.OtherLoadProfiler \
    -jvmArgs "$HEAP -Dturntable.tokensPerMicro=$TPM" "$@" \
    -rf json -rff "$OUT/$name-r$r.json" > "$OUT/$name-r$r.log" 2>&1 \
    || echo "!! $name round $r: JMH exited with an error; see $OUT/$name-r$r.log" >&2
  # A failed benchmark (lost task, exception) leaves the rest of the round running; say so.
  if grep -q '<failure>' "$OUT/$name-r$r.log"; then
    echo "!! $name round $r: some benchmarks failed (n/a in the table); see $OUT/$name-r$r.log" >&2
    FAILURES="$FAILURES $name-r$r"
  fi
}
FAILURES=

for ((r = 1; r <= ROUNDS; r++)); do
  if want dispatch; then
    echo ">> round $r/$ROUNDS: DispatchBenchmark ($(( $(date +%s) - START )) s)" >&2
    jmh dispatch '^dev\.turntable\.benchmarks\.DispatchBenchmark\.' "$r" \
      -p pool="$(rotate $POOLS $(( (r - 1) % NPOOLS )))"
  fi
  if want stats; then
    echo ">> round $r/$ROUNDS: StatisticsCostBenchmark ($(( $(date +%s) - START )) s)" >&2
    jmh stats '^dev\.turntable\.benchmarks\.StatisticsCostBenchmark\.' "$r" \
      -p config="$(rotate $STATS $(( (r - 1) % NSTATS )))"
  fi
done

if want latency; then
  echo ">> HeterogeneousLatencyBenchmark via LatencyRunner, $ROUNDS round(s) ($(( $(date +%s) - START )) s)" >&2
  java $HEAP -Dturntable.tokensPerMicro="$TPM" -cp "$JAR" dev.turntable.benchmarks.LatencyRunner \
    --rounds "$ROUNDS" "${LATENCY_ARGS[@]}" --loads 0.25,0.40 --out "$OUT/latency.json" 2> "$OUT/latency.log" \
    || { echo "!! latency run failed; see $OUT/latency.log" >&2; tail -20 "$OUT/latency.log" >&2; exit 1; }
fi

ELAPSED=$(( $(date +%s) - START ))
{
  echo "## Turntable benchmarks, $MODE run"
  echo
  echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "- machine: nproc $(nproc), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), load average before $LOAD_BEFORE, after $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "- java: $(java -version 2>&1 | tr '\n' ' ' | sed 's/ *$//')"
  echo "- engine measured: $ENGINE"
  echo "- command: \`$CMDLINE\`"
  echo "- settings: $ROUNDS round(s); JMH ${JMH_TIMES[*]}, 1 fork per round, $HEAP; latency ${LATENCY_ARGS[*]}; consumeCPU tokens/µs $TPM; took ${ELAPSED} s"
  [ -z "$FAILURES" ] || echo "- **failed benchmarks** in:$FAILURES (see their .log files; those cells are n/a)"
  echo
  python3 benchmarks/report.py "$OUT"
} > "$OUT/report.md"
cat "$OUT/report.md"
echo ">> report: $OUT/report.md" >&2
