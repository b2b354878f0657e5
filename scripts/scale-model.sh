#!/usr/bin/env bash
# scale-model.sh: issue 10's scale model of horizontal scaling on one machine.
#
# deploy/local-cluster runs N instances behind nginx; each instance is put in
# a cgroup (v1) of its own whose CPU quota is QUOTA percent of one core, so
# that an instance is a small machine and N of them fit on two cores beside
# the shared parts (nginx, PostgreSQL, Redis, NATS), which are not capped.
# For each N in COUNTS, the workload runs SECS seconds against nginx; the
# script prints the throughput and the CPU each part used per request, so
# the part that saturates first shows.
#
#   scripts/scale-model.sh [QUOTA] [SECS] [COUNTS] [WORKLOAD]
#     QUOTA     percent of a core per instance (default 10)
#     SECS      seconds per step (default 15)
#     COUNTS    instance counts (default "1 2 4 8")
#     WORKLOAD  hot   : wrk, 64 connections, a visitor's poll page (cached)
#               read  : tutti load run --scenario roar-read --closed 32
#                       (signed-in users reading their timeline; the 10 s
#                       warm-up, not measured, signs them in)
#               race  : tutti load run --scenario race-capacity at RATE
#                       (default 50) new runners/s: whole registrations with
#                       no think time, each step on runners not used before
#                       (a seed of 100,000 made once)
#
# Needs root (cgroup v1 cpu controller at /sys/fs/cgroup/cpu), the cluster's
# tools (deploy/local-cluster), wrk, and a built bin/tutti. It seeds meet and
# roar into the cluster once (TUTTI_CLUSTER_DIR/seed). Bounded: every step
# stops by itself. The cluster is left up with the last N; take it down with
# deploy/local-cluster down.
set -euo pipefail
cd "$(dirname "$0")/.."
QUOTA=${1:-10}
SECS=${2:-15}
COUNTS=${3:-"1 2 4 8"}
WORKLOAD=${4:-hot}
CG=/sys/fs/cgroup/cpu/tutti-scale
BIN=${TUTTI_BIN:-$PWD/bin/tutti}
[[ -x $BIN ]] || make build >/dev/null
export TUTTI_BIN=$BIN
[[ -d /sys/fs/cgroup/cpu ]] || { echo "no cgroup v1 cpu controller" >&2; exit 1; }

if [[ $WORKLOAD == race ]]; then export TUTTI_ROOM_RATE=0; fi # the wizard itself, not the waiting room
max=0
for n in $COUNTS; do ((n > max)) && max=$n; done
deploy/local-cluster up "$max" >/dev/null
eval "$(deploy/local-cluster env)"
STATE=$TUTTI_CLUSTER_DIR
export SSL_CERT_FILE=$TUTTI_CLUSTER_CA
seeds=$STATE/seed
if [[ ! -s $seeds/seed/meet.json || ! -s $seeds/seed/roar.json ]]; then
	mkdir -p "$seeds"
	(cd "$seeds" && "$BIN" seed meet --data-dir "$seeds" >/dev/null 2>&1 && "$BIN" seed roar --data-dir "$seeds" >/dev/null 2>&1)
fi
if [[ $WORKLOAD == race && ! -s $seeds/seed/race.json ]]; then
	"$BIN" seed race --data-dir "$seeds" --runners 100000 --results 0 >/dev/null 2>&1
fi
RATE=${RATE:-50}
used=0 # race: runners of the seed taken by earlier steps
poll=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['polls'][0]['id'])" "$seeds/seed/meet.json")

mkdir -p "$CG"
cleanup() {
	for d in "$CG"/t*; do
		[[ -d $d ]] || continue
		while read -r p; do echo "$p" >/sys/fs/cgroup/cpu/cgroup.procs 2>/dev/null || true; done <"$d/cgroup.procs"
		rmdir "$d" 2>/dev/null || true
	done
	rmdir "$CG" 2>/dev/null || true
}
trap cleanup EXIT

# cpu_snapshot: CPU seconds (utime+stime, all threads) of each of the cluster's parts.
cpu_snapshot() {
	python3 - "$STATE" <<'EOF'
import os, sys
state = sys.argv[1]
tot = {}
for pid in os.listdir('/proc'):
    if not pid.isdigit():
        continue
    try:
        cwd = os.readlink(f'/proc/{pid}/cwd')
        s = open(f'/proc/{pid}/stat').read()
    except OSError:
        continue
    if not cwd.startswith(state + '/'):
        continue
    part = cwd[len(state) + 1:].split('/')[0]
    part = 'tutti' if part.startswith('tutti') else 'nats' if part.startswith('nats') else part
    f = s[s.rfind(')') + 2:].split()
    tot[part] = tot.get(part, 0) + int(f[11]) + int(f[12])
print(' '.join(f'{k}={v}' for k, v in sorted(tot.items())))
EOF
}

# quota N: caps instances 1..N at QUOTA percent of a core each.
quota() {
	local i
	for ((i = 1; i <= $1; i++)); do echo $((QUOTA * 1000)) >"$CG/t$i/cpu.cfs_quota_us"; done
}

printf '%-3s %-9s %10s %8s   %s\n' N workload "req/s" errors "CPU per request by part (us)"
for n in $COUNTS; do
	deploy/local-cluster up "$n" >/dev/null
	for ((i = 1; i <= n; i++)); do
		d=$CG/t$i
		mkdir -p "$d"
		echo 100000 >"$d/cpu.cfs_period_us"
		echo -1 >"$d/cpu.cfs_quota_us"
		echo "$(cat "$STATE/run/tutti$i.pid")" >"$d/cgroup.procs"
	done
	sleep 1
	out=$(mktemp)
	case $WORKLOAD in
	hot)
		quota "$n"
		before=$(cpu_snapshot)
		wrk -t1 -c64 -d"${SECS}s" -H 'Accept-Encoding: gzip' "$TUTTI_CLUSTER_URL/meet/polls/$poll" >"$out"
		reqs=$(awk '/requests in/ {print $1}' "$out")
		errs=$(awk '/Non-2xx|Socket errors/ {s=s $0 "; "} END {print s ? s : 0}' "$out")
		;;
	read)
		sc=roar-read
		# The sign-ins (argon2id) run uncapped in the warm-up, then the cap
		# and the measure begin.
		"$BIN" load run --scenario "$sc" --target "$TUTTI_CLUSTER_URL" --seed-file "$seeds/seed/${sc%%-*}.json" \
			--closed 32 --warmup 10s --opt actions=100000 --duration "${SECS}s" --quiet --json "$out.json" >/dev/null 2>&1 &
		load=$!
		sleep 10
		quota "$n"
		before=$(cpu_snapshot)
		wait "$load" || true
		reqs=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['totals']['requests'])" "$out.json")
		errs=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['totals']['errors'])" "$out.json")
		;;
	race)
		quota "$n"
		before=$(cpu_snapshot)
		"$BIN" load run --scenario race-capacity --target "$TUTTI_CLUSTER_URL" --seed-file "$seeds/seed/race.json" \
			--rates "$RATE" --phase-seconds "$SECS" --opt "from=$used" --quiet --json "$out.json" >/dev/null 2>&1 || true
		reqs=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['totals']['requests'])" "$out.json")
		errs=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['totals']['errors'])" "$out.json")
		used=$((used + $(python3 -c "import json,sys; print(sum(p['arrivals'] for p in json.load(open(sys.argv[1]))['phases']))" "$out.json")))
		;;
	*) echo "unknown workload $WORKLOAD" >&2; exit 2 ;;
	esac
	after=$(cpu_snapshot)
	per=$(python3 - "$before" "$after" "$reqs" <<'EOF'
import sys
b = dict(kv.split('=') for kv in sys.argv[1].split())
a = dict(kv.split('=') for kv in sys.argv[2].split())
n = max(float(sys.argv[3]), 1)
print(' '.join(f'{k}={(int(a[k]) - int(b.get(k, 0))) * 10000 / n:.0f}' for k in sorted(a)))
EOF
)
	printf '%-3s %-9s %10.0f %8s   %s\n' "$n" "$WORKLOAD" "$(python3 -c "print($reqs/$SECS)")" "$errs" "$per"
	rm -f "$out" "$out.json"
done
