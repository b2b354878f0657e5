#!/usr/bin/env bash
# console-rehearsal.sh URL DATA_DIR [runners] [within_s] [page_min-page_max]
#
# Runs a load rehearsal from the race's console, as a director would, against
# a server seeded with `tutti seed race --data-dir DATA_DIR` and serving at
# URL: signs in as the seed's director, starts the rehearsal of the seed's
# event (sign-up link 1-3 s, static files fetched, refunds after an hour),
# waits for it to end, and prints the report's figures and its page's URL.
# Example:
#   tutti seed race --data-dir D --runners 5000 --places 5000 --results 0
#   taskset -c 0 tutti serve --data-dir D --addr 127.0.0.1:18091 &
#   scripts/console-rehearsal.sh http://127.0.0.1:18091 D 5000 30 1-3
set -euo pipefail
url=${1:?URL}; dir=${2:?DATA_DIR}; runners=${3:-1000}; within=${4:-30}; pages=${5:-1-3}
seed="$dir/seed/race.json"
slug=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["race"])' "$seed")
event=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["event"])' "$seed")
jar=$(mktemp); trap 'rm -f "$jar"' EXIT
# The seed's first account directs the race (password: race.SeedPassword).
curl -fsS -c "$jar" -b "$jar" -o /dev/null -d "login=seed1&password=race-load-test" "$url/account/login"
page=$(curl -fsS -c "$jar" -b "$jar" -o /dev/null -w '%{redirect_url}' \
  -d "event=$event&runners=$runners&page_min=${pages%-*}&page_max=${pages#*-}&within=$within&click_min=1&click_max=3&refund_delay=3600&assets=on" \
  "$url/race/r/$slug/admin/rehearsals")
case "$page" in */rehearsals/[0-9]*) ;; *) echo "console-rehearsal: not started (is $url seeded from $dir?)" >&2; exit 1 ;; esac
echo "rehearsal: $page" >&2
while s=$(curl -fsS -b "$jar" "$page/progress") && [[ $s == *'"live":true'* ]]; do sleep 2; done
curl -fsS -b "$jar" "$page" | python3 -c '
import html, re, sys
s = sys.stdin.read()
for v, k in re.findall(r"<span class=\"gauge-value\">([^<]*)</span> <span class=\"gauge-label\">([^<]*)</span>", s):
    print(f"{html.unescape(k)}: {html.unescape(v)}")
print("request count failed mean p50 p90 p99 max (ms)")
for row in re.findall(r"<tr><td>(\w+)</td>((?:<td>[\d.]+</td>){7})</tr>", s):
    print(row[0], " ".join(re.findall(r"<td>([\d.]+)</td>", row[1])))
for li in re.findall(r"<li>([^<]*)</li>", s):
    print("not registered:", html.unescape(li))
'
