#!/usr/bin/env bash
# race-suggest.sh RESULTS_URL [seconds] [connections]: the results search
# box's suggestions (RESULTS_URL/names?q=) as fast as wrk asks them, a
# random start of 2 to 5 letters of a finisher's name word each request
# (the words are gathered first from the server's own suggestions for every
# two-letter start). wrk on CPU 1 (pin the server to CPU 0: taskset -c 0
# tutti serve ...), 64 connections, gzip accepted. Prints wrk's report with
# its latency percentiles; a non-2xx answer or socket error fails the run.
# Example, after `tutti seed race` (event 2 has the results):
#   scripts/race-suggest.sh http://127.0.0.1:18092/race/r/rush-city-marathon-1/results/2 10
set -euo pipefail
base=${1:?results page URL}; secs=${2:-10}; conns=${3:-64}
command -v wrk >/dev/null || apt-get install -y -q wrk >/dev/null
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
for a in {a..z}; do for b in {a..z}; do
  curl -fsS "$base/names?q=$a$b"; echo
done; done > "$d/answers"
# Each answer is a JSON list of {"name","bib"}; its words, lower-cased,
# each prefix of 2-5 letters percent-encoded for the query.
python3 - "$d/answers" > "$d/names.lua" <<'PY'
import json, sys, urllib.parse
words = set()
for line in open(sys.argv[1], encoding="utf-8"):
    line = line.strip()
    if line.startswith("["):
        for r in json.loads(line):
            words.update(w.lower() for w in r["name"].split())
prefixes = sorted({urllib.parse.quote(w[:n]) for w in words for n in range(2, 6) if len(w) >= n})
if not prefixes:
    sys.exit("race-suggest: the server suggested no names; is this an event with results?")
print("local q = {" + ",".join('"%s"' % p for p in prefixes) + "}")
print("math.randomseed(os.time())")
print('request = function() return wrk.format("GET", wrk.path .. "/names?q=" .. q[math.random(#q)]) end')
print("-- %d words, %d prefixes" % (len(words), len(prefixes)), file=sys.stderr)
PY
out=$(taskset -c 1 wrk -t1 -c"$conns" -d"${secs}s" --latency -H 'Accept-Encoding: gzip' -s "$d/names.lua" "$base")
echo "$out"
if grep -qE 'Non-2xx|Socket errors' <<<"$out"; then echo "race-suggest: errors above" >&2; exit 1; fi
