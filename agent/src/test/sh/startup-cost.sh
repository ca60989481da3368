#!/usr/bin/env bash
# Start-up cost of the agent: a trivial main run with and without -javaagent, alternating (so
# machine noise hits both alike). Prints each run, then the medians of wall time and of CPU time
# (user + sys, which other load on the machine disturbs less).
#   agent/src/test/sh/startup-cost.sh [runs] [java]
# Build first: mvn -B -q -DskipTests package   (the agent jar and the test classes)
set -euo pipefail
cd "$(dirname "$0")/../../.."          # the agent module
RUNS=${1:-10}
JAVA=${2:-java}
JAR=target/turntable-agent.jar
CP=target/test-classes
MAIN=com.example.apps.HelloApp
if [ ! -f "$JAR" ] || [ ! -f "$CP/com/example/apps/HelloApp.class" ]; then
  echo "build first: mvn -B -q -DskipTests package" >&2
  exit 2
fi

# one run: prints "<wall ms> <cpu ms>"
run() {
  local TIMEFORMAT='%R %U %S' t
  t=$( { time "$@" >/dev/null 2>&1; } 2>&1 )
  awk '{printf "%d %d\n", $1 * 1000, ($2 + $3) * 1000}' <<<"$t"
}
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : int((a[NR/2] + a[NR/2+1]) / 2)}'; }

run "$JAVA" -cp "$CP" "$MAIN" >/dev/null                        # warm the file cache
run "$JAVA" -javaagent:"$JAR" -cp "$CP" "$MAIN" >/dev/null
pw=(); pc=(); aw=(); ac=()
for i in $(seq "$RUNS"); do
  read -r w c < <(run "$JAVA" -cp "$CP" "$MAIN"); pw+=("$w"); pc+=("$c")
  read -r w c < <(run "$JAVA" -javaagent:"$JAR" -cp "$CP" "$MAIN"); aw+=("$w"); ac+=("$c")
  echo "run $i: without ${pw[-1]} ms (cpu ${pc[-1]}), with agent ${aw[-1]} ms (cpu ${ac[-1]})"
done
m() { printf '%s\n' "$@" | median; }
echo "median of $RUNS on $("$JAVA" -version 2>&1 | head -1):"
echo "  wall: without agent $(m "${pw[@]}") ms, with agent $(m "${aw[@]}") ms"
echo "  cpu:  without agent $(m "${pc[@]}") ms, with agent $(m "${ac[@]}") ms"
