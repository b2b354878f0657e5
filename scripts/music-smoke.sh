#!/usr/bin/env bash
# music-smoke.sh: start a fresh embedded tutti (rate limits off: every
# simulated person signs up or logs in from 127.0.0.1), seed a small music
# data set, run the critical path (two short phases, short think times) and
# the listeners, and fail if any request failed.
# Usage: scripts/music-smoke.sh [phase-seconds]
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-3}
bin=./bin/tutti
[ -x $bin ] || make build >/dev/null
data=$(mktemp -d)
port=$((20000 + RANDOM % 20000))
pid=
trap '[ -n "$pid" ] && { kill $pid 2>/dev/null || true; wait $pid 2>/dev/null || true; }; rm -rf "$data"' EXIT
$bin seed music --data-dir "$data" --log-level warn --users 50 --songs 500 --audios 100 --comments 500 --likes 500 --friendships 100
TUTTI_LOG_LEVEL=warn $bin serve --data-dir "$data" --addr 127.0.0.1:$port --rate-limits=false &
pid=$!
for _ in $(seq 50); do curl -fsS -o /dev/null http://127.0.0.1:$port/readyz && break; sleep 0.1; done
run() {
	$bin load run --target http://127.0.0.1:$port --seed-file "$data/seed/music.json" --quiet --max-errors 0 "$@" |
		sed -n '2,3p'
}
run --scenario music --rates 2,4 --phase-seconds "$secs" --opt think=200ms
run --scenario music-listen --closed 12 --duration "${secs}s" --opt posters=2 --opt rate=4 --opt pace=fast
echo "music smoke: every scenario ran without errors"
