#!/usr/bin/env bash
# nginx-ratio.sh URL [seconds] [rounds]: requests/s of URL against nginx
# serving the same bytes as a static file (gzip_static, sendfile), measured
# in ROUNDS alternating pairs of SECONDS each; prints every pair's ratio and
# the median. nginx is pinned to CPU 0 (pin the server under test there too:
# taskset -c 0 tutti serve ...), wrk to CPU 1, 64 connections, gzip accepted.
#
# It checks what it measures: both must answer 200, gzip-encoded, the same
# number of bytes (nginx serves the url's own gzip body), and a round with any non-2xx answer or socket error
# fails the run. (Run as
# root, nginx's workers are "nobody": a private mktemp directory gives them
# 403s, which are just as fast to serve as a 10 KB file.)
set -euo pipefail
url=$1; secs=${2:-10}; rounds=${3:-3}
command -v nginx >/dev/null && command -v wrk >/dev/null || apt-get install -y -q nginx wrk >/dev/null
d=$(mktemp -d); chmod 755 "$d"
trap 'kill $(cat $d/nginx.pid 2>/dev/null) 2>/dev/null || true; rm -rf "$d"' EXIT
# nginx serves the very bytes the url sends a client that accepts gzip
# (gzip_static), and the same page decompressed to one that does not.
mkdir -p "$d/www"
curl -fsS -H 'Accept-Encoding: gzip' -o "$d/www/page.gz" "$url"
gzip -t "$d/www/page.gz" 2>/dev/null || { echo "the url does not answer gzip" >&2; exit 1; }
gzip -dc "$d/www/page.gz" > "$d/www/page"; chmod -R a+rX "$d/www"
# A random port, another should it be taken (a port can be held by a
# client's connection that nginx's bind() collides with).
for try in 1 2 3 4 5; do
  port=$((20000 + RANDOM % 30000))
  cat > "$d/nginx.conf" <<CONF
worker_processes 1; pid $d/nginx.pid; error_log $d/error.log; daemon on;
events { worker_connections 4096; }
http { access_log off; sendfile on; keepalive_requests 100000; default_type application/json;
  server { listen 127.0.0.1:$port; root $d/www; gzip_static on; } }
CONF
  taskset -c 0 nginx -c "$d/nginx.conf" 2>"$d/start.log" && break
  [ "$try" = 5 ] && { cat "$d/start.log" >&2; exit 1; }
done
for _ in $(seq 20); do curl -fsS -o /dev/null "http://127.0.0.1:$port/page" 2>/dev/null && break; sleep 0.1; done
ngx=http://127.0.0.1:$port/page
# status, gzip or not, and size of what each sends a client that accepts gzip
probe() { curl -fsS -H 'Accept-Encoding: gzip' -D - -o /dev/null -w 'status %{http_code} %{size_download}\n' "$1" |
  awk 'tolower($1) == "content-encoding:" { enc = $2 } $1 == "status" { print $2, $3, (enc ~ /gzip/ ? "gzip" : "identity") }'; }
read -r code nsize nenc < <(probe "$ngx"); read -r ucode usize uenc < <(probe "$url")
[ "$code" = 200 ] && [ "$ucode" = 200 ] || { echo "nginx answered $code, the url $ucode" >&2; exit 1; }
[ "$nenc" = gzip ] && [ "$uenc" = gzip ] || { echo "not both gzip: url $uenc, nginx $nenc" >&2; exit 1; }
# The same bytes: a url whose page changes between two fetches (or that
# compresses it anew each time) is not measured against a copy of itself.
[ "$usize" = "$nsize" ] || { echo "sizes differ: url $usize bytes, nginx $nsize bytes" >&2; exit 1; }
echo "gzip body: url $usize bytes, nginx $nsize bytes"
rps() {
  local out; out=$(taskset -c 1 wrk -t1 -c64 -d"${secs}s" -H 'Accept-Encoding: gzip' "$1")
  if grep -qE 'Non-2xx|Socket errors' <<<"$out"; then echo "wrk $1: $out" >&2; exit 1; fi
  awk '/Requests\/sec/ {print $2}' <<<"$out"
}
ratios=()
for i in $(seq "$rounds"); do
  n=$(rps "$ngx"); u=$(rps "$url")
  r=$(awk -v u="$u" -v n="$n" 'BEGIN { printf "%.2f", u/n }')
  ratios+=("$r")
  printf 'round %d: ratio %s (url %.0f req/s, nginx %.0f req/s)\n' "$i" "$r" "$u" "$n"
done
printf '%s\n' "${ratios[@]}" | sort -n | awk '{a[NR]=$1} END {print "median ratio " a[int((NR+1)/2)] " of " NR " rounds"}'
