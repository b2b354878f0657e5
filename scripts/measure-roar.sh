#!/usr/bin/env bash
# measure-roar.sh: the seed's five experiments and the live timeline's
# fan-out, reproducible.
#   scripts/measure-roar.sh embedded|postgres [seconds] [sessions] [listeners]
# Starts a fresh tutti pinned to CPU 0 (GOMAXPROCS=1 follows the affinity)
# with its rate limits OFF (--rate-limits=false --roar-posts-per-minute 0:
# every simulated user logs in from 127.0.0.1, and writers post as fast as
# they can), seeds roar (1,000 users, 20,000 roars), and runs `tutti load`
# pinned to CPU 1: first the visitors' cached read against nginx
# (scripts/nginx-ratio.sh), then the closed model with 1, 10, 50, 100 sessions for 30 s
# each (after an unmeasured warm-up of 5 s + 1 s per 4 sessions, in which they log in) for
# index, login, read, write and mixed; the open model (the scenarios' default
# arrival rates, each for SECONDS) for index and read; then the fan-out: LISTENERS clients on
# /roar/stream while 4 posters post 10 roars/s. Results go to out/ as JSON and
# HTML, and a summary table to out/roar-MODE-summary.txt. TUTTI_BIN names
# another binary to measure (default ./bin/tutti).
# For postgres, TUTTI_TEST_POSTGRES (or the local default) names a server; a
# fresh database tutti_measure is created on it. PostgreSQL's own processes
# are not pinned.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-embedded}; secs=${2:-30}; sessions=${3:-1 10 50 100}; listeners=${4:-10000}
mkdir -p out
bin=${TUTTI_BIN:-./bin/tutti}
[ -x "$bin" ] || make build >/dev/null
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"
data=$(mktemp -d)
port=$((20000 + RANDOM % 20000))
dburl=""
if [ "$mode" = postgres ]; then
  base=${TUTTI_TEST_POSTGRES:-postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable}
  psql "$base" -qc 'DROP DATABASE IF EXISTS tutti_measure' -qc 'CREATE DATABASE tutti_measure'
  dburl=$(echo "$base" | sed -E 's#/[A-Za-z0-9_]+(\?|$)#/tutti_measure\1#')
fi
pid=
trap '[ -n "$pid" ] && { kill $pid 2>/dev/null || true; wait $pid 2>/dev/null || true; }; rm -rf "$data"' EXIT
TUTTI_DATABASE_URL="$dburl" $bin seed roar --data-dir "$data" --log-level warn
echo "server: taskset -c 0 tutti serve --rate-limits=false --roar-posts-per-minute 0 ($mode); generator: taskset -c 1"
TUTTI_DATABASE_URL="$dburl" TUTTI_LOG_LEVEL=warn taskset -c 0 $bin serve --data-dir "$data" --addr 127.0.0.1:$port \
  --rate-limits=false --roar-posts-per-minute 0 &
pid=$!
for _ in $(seq 50); do curl -fsS -o /dev/null http://127.0.0.1:$port/readyz && break; sleep 0.1; done
summary=out/roar-$mode-summary.txt
: > "$summary"
# The visitors' newest 200 as JSON (cached, gzip) against nginx serving the same bytes.
echo "visitor read against nginx:" | tee -a "$summary"
scripts/nginx-ratio.sh "http://127.0.0.1:$port/roar/api/roars" 10 3 | tee -a "$summary"
run() { # name, then tutti load run flags
  local name=$1; shift
  taskset -c 1 $bin load run --target http://127.0.0.1:$port --seed-file "$data/seed/roar.json" --quiet \
    --json out/$name.json --html out/$name.html "$@" > out/$name.txt
  sed -n 2,3p out/$name.txt | tee -a "$summary"
}
for s in index login read write mixed; do
  for n in $sessions; do
    # The warm-up grows with the sessions: their argon2id logins (about 36/s
    # on one core, sharing it with the sessions already reading) all fall in it.
    run roar-$mode-$s-c$n --scenario roar-$s --closed "$n" --warmup "$((5 + n / 4))s" --duration "${secs}s"
  done
done
# The open model: fixed arrival rates (the scenarios' default phases), latency percentiles.
run roar-$mode-index-open --scenario roar-index --phase-seconds "$secs"
# Arrivals outrun argon2id logins (about 36/s): 100 signed-in users are
# made, and each arrival reads as one of them.
run roar-$mode-read-open --scenario roar-read --phase-seconds "$secs" --opt actions=1 --opt users=100
run roar-$mode-fanout-$listeners --scenario roar-fanout --closed $((listeners + 4)) --warmup 10s --duration "${secs}s" \
  --opt posters=4 --opt rate=10 --opt ramp=2000
grep -A2 '^ *sample' out/roar-$mode-fanout-$listeners.txt | tee -a "$summary"
echo "wrote out/roar-$mode-*.json, .html, .txt and $summary"
