#!/usr/bin/env bash
# skipped-tests.sh [-a ALLOWED]... [FILE...]: reads `go test -json` output
# (the FILEs, or standard input), prints every skipped test with the reason
# it gave, and fails when one is not allowed by an ALLOWED file
# (scripts/skips-allowed.txt by default; -a again adds a file, as the
# cluster run adds scripts/skips-allowed-cluster.txt). Each line is an
# extended regular expression, then " # " and why such skips are right;
# it is matched against "PACKAGE.TEST: REASON", PACKAGE without the
# module's prefix (internal/app.TestBrowserTour: set TUTTI_TEST_BROWSER=1 ...).
# Lines that begin with # are comments.
#
#   go test -json ./... | tee out/test.json | scripts/skipped-tests.sh
set -euo pipefail
lists=()
while [ "${1:-}" = -a ]; do lists+=("$2"); shift 2; done
[ ${#lists[@]} -gt 0 ] || lists=("$(dirname "$0")/skips-allowed.txt")
command -v jq >/dev/null || { echo "skipped-tests.sh needs jq (apt-get install jq)" >&2; exit 2; }

patterns=() whys=()
for allowed in "${lists[@]}"; do
  while IFS= read -r line || [ -n "$line" ]; do
    case "$line" in '' | '#'*) continue ;; esac
    [[ $line == *' # '* ]] || { echo "$allowed: no ' # why' in: $line" >&2; exit 2; }
    patterns+=("${line%% # *}")
    whys+=("${line#* # }")
  done <"$allowed"
done

# One line per skipped test: PACKAGE.TEST: the last line it printed before
# the skip (t.Skip's message).
skips=$(cat "$@" | jq -nrR '
  reduce (inputs | fromjson? | select(type == "object" and .Test != null)) as $e
    ({said: {}, out: []};
     (($e.Package | sub("^github.com/tutti-dev/tutti/"; "")) + "." + $e.Test) as $k
     | if $e.Action == "output" then
         ($e.Output | sub("^\\s+"; "") | sub("\\s+$"; "")) as $o
         | if $o == "" or ($o | test("^(=== |--- )")) then . else .said[$k] = ($o | sub("^[^ ]+\\.go:[0-9]+: "; "")) end
       elif $e.Action == "skip" then .out += ["\($k): \(.said[$k] // "(no reason given)")"]
       else . end)
  | .out[]')

n=0 bad=0
while IFS= read -r s; do
  [ -n "$s" ] || continue
  n=$((n + 1))
  why=""
  for i in "${!patterns[@]}"; do
    if [[ $s =~ ${patterns[$i]} ]]; then why=${whys[$i]}; break; fi
  done
  if [ -n "$why" ]; then
    echo "skipped  $s  [allowed: $why]"
  else
    echo "SKIPPED, NOT ALLOWED  $s"
    bad=$((bad + 1))
  fi
done <<<"$skips"
echo "$n skipped, $bad not allowed by ${lists[*]}"
[ "$bad" -eq 0 ]
