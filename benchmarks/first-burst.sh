#!/usr/bin/env bash
# The application's first pool, cold, with and without the agent: RUNS fresh JVMs of each,
# alternated, each running example.legacy.FirstBurst (a burst of 200 tasks into a new
# ThreadPoolExecutor(2, 4) with 100 places, one second after start). Prints one line per JVM.
#
#   bash benchmarks/first-burst.sh RUNS [AGENT_JAR]
#   (build first: mvn -B -q -DskipTests package -pl agent,benchmarks -am)
set -euo pipefail
if [ $# -lt 1 ]; then sed -n '2,7p' "$0"; exit 2; fi
RUNS=$1
case "$RUNS" in ''|*[!0-9]*) echo "RUNS must be a positive integer, not '$RUNS'" >&2; exit 2 ;; esac
AGENT=${2:-agent/target/turntable-agent.jar}
# FirstBurst needs only the JDK: the classes directory keeps the engine off the class path, so
# under the agent the pool runs on the agent's own (shaded) engine, as an application's would.
BENCH=benchmarks/target/classes
for f in "$AGENT" "$BENCH/example/legacy/FirstBurst.class"; do [ -f "$f" ] || { echo "no such file: $f (build first)" >&2; exit 2; }; done
for r in $(seq 1 "$RUNS"); do
  echo "plain $(java -cp "$BENCH" example.legacy.FirstBurst)"
  echo "agent $(java -javaagent:"$AGENT" -cp "$BENCH" example.legacy.FirstBurst 2>/dev/null)"
done
