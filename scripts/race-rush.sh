#!/usr/bin/env bash
# race-rush.sh burst|capacity [load flags...]
#
# The race's two rush measurements, as docs/results.md reports them, on a
# fresh seed each time: the server (embedded, SQLite) pinned to CPU 0, the
# generator to CPU 1 (GEN_CPUS to change it), both the same binary
# (TUTTI_BIN, default ./bin/tutti). Afterwards it checks the database: places
# taken against the cap, registrations, and bibs each given once.
#   burst:    the seed's opening rush, RUNNERS (50000) runners within 30 s,
#             15-60 s a page, the waiting room in front
#   capacity: the wizard with no think time, without the waiting room
#             (--room-rate 0), RATES (500,550,600) new runners/s for SECS (30)
#             each, from a seed of 100,000 runners
# DATA_DIR puts the server's data there instead of a fresh temporary
# directory (emptied first; e.g. /dev/shm/rush, memory instead of disk);
# SAMPLES=FILE writes, about each second, the CPU % and open files of the
# server and of the generator (from /proc), the size of SQLite's write-ahead
# log, and from the server's /metrics the milliseconds a second its queries
# waited for the read and the write pool, the mean microseconds a goroutine
# waited for a core, and the goroutines runnable: which side fell behind,
# whether checkpoints keep up, and where a slow second waited.
# DUMPS=DIR serves the server's Go profiles on PORT+1 and writes its
# goroutines (grouped by stack) to DIR every 15 s, and its log at the end:
# where requests wait, should a run collapse (one in eight did on
# 2026-11-27, the server at 40-50 % of its core while writes timed out).
# FLIGHT=DIR has the server's flight recorder (--flight-dir) write there
# the last 10 s of its execution trace whenever a handler took over a
# second; tracing costs CPU, enough to worsen the opening's p99.
# Example: scripts/race-rush.sh capacity --rates 500 --phase-seconds 60
set -euo pipefail
mode=${1:?burst or capacity}; shift
bin=${TUTTI_BIN:-./bin/tutti}
port=${PORT:-18095}
if [ -n "${DATA_DIR:-}" ]; then
  dir=$DATA_DIR; rm -rf "$dir"; mkdir -p "$dir"
else
  dir=$(mktemp -d)
fi
pid=
sampler=
dumper=
# Under set -e a kill of a helper already gone would end the trap before
# the server's kill: the trap runs without it.
trap 'set +e; [ -n "$sampler" ] && kill "$sampler" 2>/dev/null; [ -n "$dumper" ] && kill "$dumper" 2>/dev/null; [ -n "$pid" ] && kill "$pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$dir"' EXIT
serve=(--data-dir "$dir" --addr "127.0.0.1:$port" --log-level warn)
[ -n "${DUMPS:-}" ] && { mkdir -p "$DUMPS"; serve+=(--debug-addr "127.0.0.1:$((port + 1))"); }
[ -n "${FLIGHT:-}" ] && serve+=(--flight-dir "$FLIGHT")
case "$mode" in
burst)
  runners=${RUNNERS:-50000}
  "$bin" seed race --data-dir "$dir" --runners "$runners" --results 0 >/dev/null 2>"$dir/seed.log" || { cat "$dir/seed.log" >&2; exit 1; }
  load=(--scenario race-burst --opt "runners=$runners") ;;
capacity)
  "$bin" seed race --data-dir "$dir" --runners 100000 --results 0 >/dev/null 2>"$dir/seed.log" || { cat "$dir/seed.log" >&2; exit 1; }
  serve+=(--room-rate 0)
  load=(--scenario race-capacity --rates "${RATES:-500,550,600}" --phase-seconds "${SECS:-30}") ;;
*) echo "race-rush: burst or capacity, not $mode" >&2; exit 2 ;;
esac
taskset -c 0 "$bin" serve "${serve[@]}" >"$dir/serve.log" 2>&1 &
pid=$!
for _ in $(seq 100); do curl -fsS -o /dev/null "http://127.0.0.1:$port/healthz" 2>/dev/null && break; sleep 0.1; done
curl -fsS -o /dev/null "http://127.0.0.1:$port/healthz" || { echo "race-rush: the server did not start:" >&2; cat "$dir/serve.log" >&2; exit 1; }
rc=0
taskset -c "${GEN_CPUS:-1}" "$bin" load run "${load[@]}" --target "http://127.0.0.1:$port" \
  --seed-file "$dir/seed/race.json" --quiet "$@" &
gen=$!
if [ -n "${SAMPLES:-}" ]; then
  ticks() { awk '{print $14+$15}' "/proc/$1/stat" 2>/dev/null || echo 0; }
  files() { ls -f "/proc/$1/fd" 2>/dev/null | grep -c '^[0-9]'; } # unsorted: a third cheaper
  # From the server's /metrics: the seconds its queries waited for a
  # pooled connection (read pool, write pool), and its goroutines' waits
  # for a core (count, sum) and how many were runnable.
  server_metrics() {
    curl -fsS -m 1 "http://127.0.0.1:$port/metrics" 2>/dev/null | awk '
      /^tutti_db_wait_seconds_total\{pool="read"\}/ {r = $2}
      /^tutti_db_wait_seconds_total\{pool="write"\}/ {w = $2}
      /^go_sched_latencies_seconds_count / {n = $2; seen = 1}
      /^go_sched_latencies_seconds_sum / {l = $2}
      /^go_sched_goroutines_runnable_goroutines / {q = $2}
      END {if (seen) printf "%.6f %.6f %d %.6f %d\n", r, w, n, l, q}'
  }
  # Each line covers the time since the one before, which is longer than
  # the 1 s slept (the reads take time, more so on a saturated machine):
  # CPU and waits are per second of that time, and "second" is the time
  # since the start. A /metrics that did not answer in 1 s leaves its
  # columns "-" and the next line spans both.
  now_ms() { date +%s%3N; }
  (
    s0=$(ticks "$pid"); g0=$(ticks "$gen"); c0=$(now_ms); start=$c0; m0=$c0; hz=$(getconf CLK_TCK)
    read -r r0 w0 n0 l0 _ <<<"$(server_metrics)"
    echo "second server_cpu% generator_cpu% server_files generator_files wal_kib read_wait_ms/s write_wait_ms/s sched_wait_us runnable"
    while kill -0 "$gen" 2>/dev/null; do
      sleep 1; s1=$(ticks "$pid"); g1=$(ticks "$gen"); c1=$(now_ms)
      m=$(server_metrics); m1=$(now_ms)
      cpu=$(awk -v s="$((s1 - s0))" -v g="$((g1 - g0))" -v ms="$((c1 - c0))" -v hz="$hz" 'BEGIN {printf "%d %d", s * 100000 / hz / ms, g * 100000 / hz / ms}')
      db="- - - -"
      if [ -n "$m" ]; then
        read -r r1 w1 n1 l1 runnable <<<"$m"
        db=$(awk -v r0="$r0" -v r1="$r1" -v w0="$w0" -v w1="$w1" -v n0="$n0" -v n1="$n1" -v l0="$l0" -v l1="$l1" -v ms="$((m1 - m0))" -v q="$runnable" \
          'BEGIN {printf "%d %d %d %d", (r1 - r0) * 1e6 / ms, (w1 - w0) * 1e6 / ms, (n1 > n0) ? (l1 - l0) * 1e6 / (n1 - n0) : 0, q}')
        r0=$r1; w0=$w1; n0=$n1; l0=$l1; m0=$m1
      fi
      echo "$(( (c1 - start) / 1000 )) $cpu $(files "$pid") $(files "$gen") $(( $(stat -c %s "$dir/tutti.db-wal" 2>/dev/null || echo 0) / 1024 )) $db"
      s0=$s1; g0=$g1; c0=$c1
    done
  ) >"$SAMPLES" &
  sampler=$!
fi
if [ -n "${DUMPS:-}" ]; then
  (
    t=0
    while kill -0 "$gen" 2>/dev/null; do
      curl -fsS -o "$DUMPS/goroutines-$(printf %04d "$t").txt" "http://127.0.0.1:$((port + 1))/debug/pprof/goroutine?debug=1" 2>/dev/null || true
      sleep 15; t=$((t + 15))
    done
  ) &
  dumper=$!
fi
wait "$gen" || rc=$?
[ -n "$sampler" ] && { kill "$sampler" 2>/dev/null || true; wait "$sampler" 2>/dev/null || true; sampler=; }
[ -n "$dumper" ] && { kill "$dumper" 2>/dev/null || true; wait "$dumper" 2>/dev/null || true; dumper=; cp "$dir/serve.log" "$DUMPS/"; }
kill "$pid"; wait "$pid" 2>/dev/null || true; pid=
# Each event's places taken against its cap and its confirmed
# registrations (taken counts holds too: those left open expire later).
if command -v sqlite3 >/dev/null; then
  sqlite3 "$dir/tutti.db" "SELECT 'event ' || e.id || ': ' || e.taken || ' taken of ' || e.cap || ', '
      || (SELECT count(*) FROM race_registrations r WHERE r.event_id = e.id AND r.status = 'confirmed') || ' confirmed, '
      || (SELECT count(*) FROM race_holds h WHERE h.event_id = e.id AND h.status IN ('open', 'paying', 'paid')) || ' holds open'
    FROM race_events e;"
fi
exit "$rc"
