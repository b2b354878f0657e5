#!/usr/bin/env bash
# load-smoke.sh: start a fresh embedded tutti, seed meet, run the seven-phase
# meet scenario with short phases, and fail if any request failed.
# Usage: scripts/load-smoke.sh [phase-seconds] [extra tutti load flags...]
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-3}; shift || true
bin=./bin/tutti
data=$(mktemp -d)
port=$((20000 + RANDOM % 20000))
trap 'kill $pid 2>/dev/null || true; wait $pid 2>/dev/null || true; rm -rf "$data"' EXIT
$bin seed meet --data-dir "$data" --log-level warn
TUTTI_LOG_LEVEL=warn $bin serve --data-dir "$data" --addr 127.0.0.1:$port &
pid=$!
for _ in $(seq 50); do curl -fsS -o /dev/null http://127.0.0.1:$port/healthz && break; sleep 0.1; done
$bin load run --scenario meet --target http://127.0.0.1:$port --seed-file "$data/seed/meet.json" \
	--phase-seconds "$secs" --max-errors 0 --json "${LOAD_JSON:-/dev/null}" "$@"
