#!/usr/bin/env bash
# race-tx.sh [load flags...]: what race's registrations cost PostgreSQL,
# on a fresh database: one tutti on PostgreSQL (and Redis, as the
# cluster's instances are, when TUTTI_REDIS_URL is set: its keys under a
# prefix of this run's own), seeded with RUNNERS (3000) runners, the
# race-capacity scenario at RATES (40) new runners/s for SECS (20) s
# each, without the waiting room. Afterwards: registrations written and
# their rate, and per registration the statements and write transactions
# tutti counted for requests (/metrics: the writer's batches and other
# background work are not counted there), and the transactions
# PostgreSQL committed in the database (pg_stat_database.xact_commit:
# everything, each read outside a transaction being one, the writer's
# and the background's too).
# TUTTI_BIN names the binary (default ./bin/tutti); TUTTI_TEST_POSTGRES
# (or the local default) the server, on which a database race_tx is made.
# Example: nice -n 19 scripts/race-tx.sh
set -euo pipefail
bin=${TUTTI_BIN:-./bin/tutti}
base=${TUTTI_TEST_POSTGRES:-postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable}
dbname=${DBNAME:-race_tx}
psql "$base" -qc "DROP DATABASE IF EXISTS $dbname" -qc "CREATE DATABASE $dbname"
export TUTTI_DATABASE_URL=$(echo "$base" | sed -E "s#/[A-Za-z0-9_]+(\?|$)#/$dbname\1#")
export TUTTI_REDIS_PREFIX="race-tx-$$:"
dir=$(mktemp -d)
port=$((20000 + RANDOM % 20000))
pid=
trap 'set +e; [ -n "$pid" ] && kill "$pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$dir"' EXIT
"$bin" seed race --data-dir "$dir" --runners "${RUNNERS:-3000}" --results 0 >/dev/null 2>"$dir/seed.log" || { cat "$dir/seed.log" >&2; exit 1; }
"$bin" serve --data-dir "$dir" --addr "127.0.0.1:$port" --log-level warn --room-rate 0 >"$dir/serve.log" 2>&1 &
pid=$!
for _ in $(seq 300); do curl -fsS -o /dev/null "http://127.0.0.1:$port/healthz" 2>/dev/null && break; sleep 0.1; done
metric() { curl -fsS "http://127.0.0.1:$port/metrics" | awk -v m="$1" '$1 == m {printf "%d", $2}'; }
xacts() { psql "$base" -Atc "SELECT xact_commit FROM pg_stat_database WHERE datname = '$dbname'"; }
regs() { psql "$TUTTI_DATABASE_URL" -Atc "SELECT count(*) FROM race_registrations"; }
s0=$(metric tutti_db_statements_total); t0=$(metric tutti_db_transactions_total); x0=$(xacts); r0=$(regs)
"$bin" load run --scenario race-capacity --target "http://127.0.0.1:$port" --seed-file "$dir/seed/race.json" --quiet \
  --rates "${RATES:-40}" --phase-seconds "${SECS:-20}" "$@" | tail -25
sleep 2 # the writer's last batch
s1=$(metric tutti_db_statements_total); t1=$(metric tutti_db_transactions_total); x1=$(xacts); r1=$(regs)
n=$((r1 - r0))
awk -v n="$n" -v s="$((s1 - s0))" -v t="$((t1 - t0))" -v x="$((x1 - x0))" 'BEGIN {
  printf "registrations %d\nper registration: %.2f statements, %.2f write transactions (requests'"'"'), %.2f PostgreSQL transactions (all)\n", n, s / n, t / n, x / n }'
