#!/usr/bin/env bash
# cluster-compare.sh: issue 10's "cluster against embedded" on one machine.
#
# The same closed-model scenarios run against
#   embedded : one tutti serve on SQLite, pinned to CPU 0;
#   cluster  : deploy/local-cluster up 2 (PostgreSQL primary + replica, Redis,
#              three NATS, MinIO, nginx with TLS, two instances), every one of
#              its processes pinned to CPU 0, reached through nginx's https
#              (TUTTI_CLUSTER_TLS=off: plain http, as embedded is reached,
#              to see what TLS costs);
# with the load generator on CPU 1, each on fresh seeds (tutti seed meet and
# roar), rate limits off in both (as scripts/measure-roar.sh: a load test's
# sessions all come from 127.0.0.1).
#   meet  : its open model (sessions think 0.5-2 s) on a ladder of arrival
#           rates; the highest rate each holds (0 errors, p99 under 1 s).
#   race-capacity: race's wizard with no think time on the same ladder
#           (new runners/s), the waiting room off in both, from a seed of
#           100,000 signed-in runners.
#   roar-*: closed model, CLOSED sessions that sign in once (argon2id)
#           and then act until the run ends; requests/s and errors over
#           SECS, after a warm-up of WARMUP seconds (default 20) in which
#           every session signs in: with a 3 s warm-up the cluster, whose
#           instances hash on the core they share with nginx and
#           PostgreSQL, was still signing its sessions in while measured
#           (roar-read 257 requests/s against 473 after 20 s, one sitting).
#
#   scripts/cluster-compare.sh [SECS] [CLOSED] [RATES] [SCENARIOS]
#     SECS       seconds per run or rate step (default 20)
#     CLOSED     roar sessions looping at once (default 64)
#     RATES      meet's ladder (default 64,96,128,160,192,256)
#     SCENARIOS  default "meet roar-index roar-read roar-write roar-mixed";
#                race-capacity too when named
#
# EMBEDDED=nginx runs embedded behind the same nginx with TLS, as an
# embedded site is run for the public (TUTTI_CLUSTER_SERVICES=none
# deploy/local-cluster up 1, its processes on CPU 0 too): then the two
# differ only in what cluster mode adds, not in TLS.
#
# Uses its own state directory and port base (TUTTI_CLUSTER_PORT, default
# 19000) and takes that cluster down at the end. Every run is bounded.
set -euo pipefail
cd "$(dirname "$0")/.."
SECS=${1:-20}
CLOSED=${2:-64}
RATES=${3:-64,96,128,160,192,256}
SCENARIOS=${4:-"meet roar-index roar-read roar-write roar-mixed"}
BIN=${TUTTI_BIN:-$PWD/bin/tutti}
[[ -x $BIN ]] || make build >/dev/null
WORK=$(mktemp -d /tmp/tutti-compare.XXXXXX)
chmod 755 "$WORK"
export TUTTI_RATE_LIMITS=off TUTTI_ROAR_POSTS_PER_MINUTE=0
export TUTTI_BIN=$BIN TUTTI_CLUSTER_DIR=$WORK/cluster TUTTI_CLUSTER_PORT=${TUTTI_CLUSTER_PORT:-19000}
emb_pid=""
cleanup() {
	[[ -n $emb_pid ]] && kill "$emb_pid" 2>/dev/null && wait "$emb_pid" 2>/dev/null
	deploy/local-cluster down >/dev/null 2>&1 || true
	TUTTI_CLUSTER_SERVICES=none TUTTI_CLUSTER_DIR="$WORK/emb-nginx" deploy/local-cluster down >/dev/null 2>&1 || true
	rm -rf "$WORK"
}
trap cleanup EXIT

# run NAME TARGET SEEDDIR: each scenario with the generator on CPU 1;
# prints "scenario result errors" lines (meet: the highest rate held).
run() {
	local name=$1 target=$2 seeds=$3 sc out
	for sc in $SCENARIOS; do
		out=$WORK/$name-$sc.json
		if [[ $sc == meet || $sc == race-capacity ]]; then
			taskset -c 1 "$BIN" load run --scenario "$sc" --target "$target" --seed-file "$seeds/seed/${sc%%-*}.json" \
				--phase-seconds "$SECS" --rates "$RATES" --quiet --json "$out" >/dev/null 2>&1 || true
			python3 - "$out" "$sc" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
held, errs = 0, 0
for p in d['phases']:
    errs += p['errors']
    if errs == 0 and p['p99_ms'] < 1000:
        held = p['rate']
    else:
        break
print(sys.argv[2], held, d['totals']['errors'])
EOF
			python3 -c "import json,sys; [print(' ', sys.argv[3], sys.argv[2], p['rate'], '/s errors', p['errors'], 'p99', p['p99_ms'], 'ms', file=sys.stderr) for p in json.load(open(sys.argv[1]))['phases']]" "$out" "$name" "$sc"
			continue
		fi
		local warm=3s
		[[ $sc == roar-index ]] || warm=${WARMUP:-20}s
		taskset -c 1 "$BIN" load run --scenario "$sc" --target "$target" --seed-file "$seeds/seed/roar.json" \
			--closed "$CLOSED" --duration "${SECS}s" --warmup "$warm" --quiet --json "$out" >/dev/null 2>&1 || true
		python3 -c "import json,sys; t=json.load(open(sys.argv[1]))['totals']; print(sys.argv[2], t['requests_per_s'], t['errors'])" "$out" "$sc"
	done
}

# seed DIR: what SCENARIOS need
seed() {
	local app args
	for app in meet roar race; do
		args=()
		case $app in
		meet) [[ " $SCENARIOS " == *" meet "* ]] || continue ;;
		roar) [[ " $SCENARIOS " == *" roar-"* ]] || continue ;;
		race) [[ " $SCENARIOS " == *" race-capacity "* ]] || continue; args=(--runners 100000 --results 0) ;;
		esac
		"$BIN" seed "$app" --data-dir "$1" "${args[@]}" >/dev/null 2>"$WORK/seed.log" ||
			{ echo "cluster-compare: seed $app failed:" >&2; cat "$WORK/seed.log" >&2; exit 1; }
	done
}
if [[ " $SCENARIOS " == *" race-capacity "* ]]; then export TUTTI_ROOM_RATE=0; fi

# pin DIR: every process running in DIR (a local cluster's) onto CPU 0.
pin() {
	local p cwd
	for p in /proc/[0-9]*; do
		cwd=$(readlink "$p/cwd" 2>/dev/null) || continue
		[[ $cwd == "$1"/* ]] && taskset -a -p -c 0 "${p#/proc/}" >/dev/null 2>&1 || true
	done
}

# embedded
if [[ ${EMBEDDED:-} == nginx ]]; then
	emb_env=(TUTTI_CLUSTER_SERVICES=none TUTTI_CLUSTER_DIR="$WORK/emb-nginx" TUTTI_CLUSTER_PORT=$((TUTTI_CLUSTER_PORT + 2000)))
	mkdir -p "$WORK/emb-nginx/tutti1/data"
	seed "$WORK/emb-nginx/tutti1/data"
	env "${emb_env[@]}" deploy/local-cluster up 1 >/dev/null
	pin "$WORK/emb-nginx"
	(
		eval "$(env "${emb_env[@]}" deploy/local-cluster env)"
		export SSL_CERT_FILE=$TUTTI_CLUSTER_CA
		run embedded "$TUTTI_CLUSTER_URL" "$WORK/emb-nginx/tutti1/data" >"$WORK/embedded.txt"
	)
	env "${emb_env[@]}" deploy/local-cluster down >/dev/null 2>&1 || true
else
	mkdir -p "$WORK/emb"
	seed "$WORK/emb"
	port=$((TUTTI_CLUSTER_PORT + 50))
	taskset -c 0 "$BIN" serve --addr "127.0.0.1:$port" --data-dir "$WORK/emb" >"$WORK/emb.log" 2>&1 &
	emb_pid=$!
	for _ in $(seq 50); do curl -sf "http://127.0.0.1:$port/readyz" >/dev/null && break; sleep 0.2; done
	run embedded "http://127.0.0.1:$port" "$WORK/emb" >"$WORK/embedded.txt"
	kill "$emb_pid"
	wait "$emb_pid" 2>/dev/null || true
	emb_pid=""
fi

# cluster
deploy/local-cluster up 2 >/dev/null
eval "$(deploy/local-cluster env)"
export SSL_CERT_FILE=$TUTTI_CLUSTER_CA
mkdir -p "$WORK/cl"
seed "$WORK/cl"
pin "$TUTTI_CLUSTER_DIR"
run cluster "$TUTTI_CLUSTER_URL" "$WORK/cl" >"$WORK/cluster.txt"

printf '%-12s %12s %8s %12s %8s %8s\n' scenario "embedded/s" errors "cluster/s" errors ratio
join <(sort "$WORK/embedded.txt") <(sort "$WORK/cluster.txt") | while read -r sc e ee c ce; do
	printf '%-12s %12.0f %8s %12.0f %8s %8.2f\n' "$sc" "$e" "$ee" "$c" "$ce" "$(python3 -c "print($c/$e if $e else 0)")"
done
