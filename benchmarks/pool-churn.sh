#!/usr/bin/env bash
# An application that builds a pool per request, with and without the agent: RUNS rounds, each
# running example.legacy.PoolPerRequest in a fresh JVM without the agent and then under each
# AGENT_JAR given (default: this build's agent), so they share the machine's minutes. Prints one
# line per JVM and phase: cold = the first 6,000 pools' wall time, warm = us per pool once the
# JIT is done.
#
#   bash benchmarks/pool-churn.sh RUNS [AGENT_JAR ...]
#   (build first: mvn -B -q -DskipTests package -pl agent,benchmarks -am)
set -euo pipefail
if [ $# -lt 1 ]; then sed -n '2,9p' "$0"; exit 2; fi
RUNS=$1; shift
case "$RUNS" in ''|*[!0-9]*) echo "RUNS must be a positive integer, not '$RUNS'" >&2; exit 2 ;; esac
AGENTS=("$@")
[ ${#AGENTS[@]} -gt 0 ] || AGENTS=(agent/target/turntable-agent.jar)
# PoolPerRequest needs only the JDK: the classes directory keeps the engine off the class path,
# so under the agent the pools run on the agent's own (shaded) engine, as an application's would.
BENCH=benchmarks/target/classes
for f in "${AGENTS[@]}" "$BENCH/example/legacy/PoolPerRequest.class"; do
  [ -f "$f" ] || { echo "no such file: $f (build first)" >&2; exit 2; }
done
for r in $(seq 1 "$RUNS"); do
  java -cp "$BENCH" example.legacy.PoolPerRequest | sed "s/^/r$r plain /"
  for a in "${AGENTS[@]}"; do
    java -javaagent:"$a" -cp "$BENCH" example.legacy.PoolPerRequest 2>/dev/null | sed "s|^|r$r $(basename "$a") |"
  done
done
