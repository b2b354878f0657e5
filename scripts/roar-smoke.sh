#!/usr/bin/env bash
# roar-smoke.sh: start a fresh embedded tutti (rate limits off: every simulated
# user logs in from 127.0.0.1 and posts as fast as it can), seed a small roar
# data set, run each roar scenario for a few seconds, and fail if any request
# failed. CI calls it; it takes about 30 s.
# Usage: scripts/roar-smoke.sh [seconds] [closed-sessions]
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-3}; n=${2:-4}
bin=./bin/tutti
[ -x $bin ] || make build >/dev/null
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"
data=$(mktemp -d)
port=$((20000 + RANDOM % 20000))
pid=
trap '[ -n "$pid" ] && { kill $pid 2>/dev/null || true; wait $pid 2>/dev/null || true; }; rm -rf "$data"' EXIT
$bin seed roar --data-dir "$data" --log-level warn --users 200 --roars 2000 --likes 2000 --follows 1000
TUTTI_LOG_LEVEL=warn $bin serve --data-dir "$data" --addr 127.0.0.1:$port --rate-limits=false --roar-posts-per-minute 0 &
pid=$!
for _ in $(seq 50); do curl -fsS -o /dev/null http://127.0.0.1:$port/readyz && break; sleep 0.1; done
run() {
	$bin load run --target http://127.0.0.1:$port --seed-file "$data/seed/roar.json" --quiet --max-errors 0 "$@" |
		sed -n '2,3p'
}
for s in roar-index roar-login roar-read roar-write roar-mixed; do
	run --scenario $s --closed "$n" --duration "${secs}s"
done
# The open model, two short phases.
run --scenario roar-read --rates 20,40 --phase-seconds "$secs" --opt actions=1 --opt users=20
# The live timeline: 200 listeners, 2 posters at 10 roars/s in all.
run --scenario roar-fanout --closed 202 --duration "$((secs + 2))s" --opt posters=2 --opt rate=10
echo "roar smoke: every scenario ran without errors"
