#!/usr/bin/env bash
# measure-meet.sh: the measurements of the meet rows of docs/results.md, reproducible.
# TUTTI_BIN names another binary to measure (default ./bin/tutti).
#   scripts/measure-meet.sh embedded|postgres [phase-seconds] [rates]
# Starts a fresh tutti pinned to CPU 0 (GOMAXPROCS=1 follows the affinity),
# seeds meet, and runs `tutti load` pinned to CPU 1. Results go to out/.
# For postgres, TUTTI_TEST_POSTGRES (or the local default) names a server; a
# fresh database tutti_measure is created on it. PostgreSQL's own processes
# are not pinned.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-embedded}; secs=${2:-60}; rates=${3:-2,4,8,16,32,64,128}
mkdir -p out
bin=${TUTTI_BIN:-./bin/tutti}
[ -x "$bin" ] || make build >/dev/null
data=$(mktemp -d)
port=$((20000 + RANDOM % 20000))
dburl=""
if [ "$mode" = postgres ]; then
  base=${TUTTI_TEST_POSTGRES:-postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable}
  psql "$base" -qc 'DROP DATABASE IF EXISTS tutti_measure' -qc 'CREATE DATABASE tutti_measure'
  dburl=$(echo "$base" | sed -E 's#/[A-Za-z0-9_]+(\?|$)#/tutti_measure\1#')
fi
trap 'kill $pid 2>/dev/null || true; wait $pid 2>/dev/null || true; rm -rf "$data"' EXIT
TUTTI_DATABASE_URL="$dburl" $bin seed meet --data-dir "$data" --log-level warn
TUTTI_DATABASE_URL="$dburl" TUTTI_LOG_LEVEL=warn taskset -c 0 $bin serve --data-dir "$data" --addr 127.0.0.1:$port &
pid=$!
for _ in $(seq 50); do curl -fsS -o /dev/null http://127.0.0.1:$port/readyz && break; sleep 0.1; done
name=meet-$mode-$(echo "$rates" | tr , -)
taskset -c 1 $bin load run --scenario meet --target http://127.0.0.1:$port --seed-file "$data/seed/meet.json" \
  --phase-seconds "$secs" --rates "$rates" --json out/$name.json --html out/$name.html --quiet
echo "wrote out/$name.json and out/$name.html"
