#!/usr/bin/env bash
# tools/pngbench/run.sh: chartd's PNG rendering against Chart.js +
# @napi-rs/canvas, on the same 30-bar chart, in one run. See README.md.
#
# Knobs (environment): N (uncached charts per chartd run, default 400),
# CACHED_N (cached requests, 500), CONC (connections of the throughput run,
# 8), CJS_N (Chart.js renders per run, 200), ACCOUNTS (pro accounts the
# charts are spread over, 8), OUT (where samples, logs and results go,
# tools/pngbench/out), KEEP=1 keeps chartd's data directory, CHARTD_FLAGS
# (more flags for chartd, e.g. -render.png-encoder=wasm).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cd "$root"

N=${N:-400}
CACHED_N=${CACHED_N:-500}
CONC=${CONC:-8}
CJS_N=${CJS_N:-200}
ACCOUNTS=${ACCOUNTS:-8}
OUT=${OUT:-$here/out}

die() { echo "pngbench: $*" >&2; exit 1; }
log() { echo "pngbench: $*" >&2; }
for tool in curl node npm; do command -v "$tool" >/dev/null || die "$tool is needed"; done

if [ ! -x bin/chartd ] || [ ! -x bin/chartctl ] || [ ! -x bin/loadgen ]; then
  log "building (make build)"
  make build >&2
fi
if [ ! -d "$here/chartjs/node_modules/chart.js" ] || [ ! -d "$here/chartjs/node_modules/@napi-rs/canvas" ]; then
  log "installing Chart.js and @napi-rs/canvas (npm ci)"
  (cd "$here/chartjs" && npm ci --no-audit --no-fund >&2)
fi

mkdir -p "$OUT"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pngbench.XXXXXX")
data="$tmp/data"
mkdir -p "$data"
chartd_pid=""
stop_chartd() {
  if [ -n "$chartd_pid" ] && kill -0 "$chartd_pid" 2>/dev/null; then
    kill -TERM "$chartd_pid" 2>/dev/null || true
    for _ in $(seq 1 100); do kill -0 "$chartd_pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$chartd_pid" 2>/dev/null || true
    wait "$chartd_pid" 2>/dev/null || true
  fi
  chartd_pid=""
}
cleanup() {
  stop_chartd
  if [ "${KEEP:-}" = 1 ]; then log "kept $tmp"; else rm -rf "$tmp"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# A free loopback port: the kernel picks one, node tells which.
port=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
base="http://127.0.0.1:$port"

started=$(date +%s)
load_start=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo "?")
log "starting chartd on $base (data in $data)"
# shellcheck disable=SC2086 # CHARTD_FLAGS is a list of flags
bin/chartd -target=all -data-dir "$data" -addr "127.0.0.1:$port" -public-url "$base" ${CHARTD_FLAGS:-} >"$OUT/chartd.log" 2>&1 &
chartd_pid=$!
ready=""
for _ in $(seq 1 120); do
  kill -0 "$chartd_pid" 2>/dev/null || die "chartd exited while starting; see $OUT/chartd.log"
  if [ "$(curl -s -o /dev/null -w '%{http_code}' "$base/readyz" || true)" = 200 ]; then ready=1; break; fi
  sleep 0.5
done
[ -n "$ready" ] || die "chartd was not ready after 60s; see $OUT/chartd.log"
log "ready after $(( $(date +%s) - started ))s"

# Accounts: ACCOUNTS for the uncached charts (each chart is created and
# rendered with its own account's key, so no account goes near the pro
# plan's 1,200 requests a minute), one for the cached run.
new_key() {
  bin/chartctl -data-dir "$data" account create -plan pro | tr -d '\n' |
    sed -n 's/.*"api_key"[[:space:]]*:[[:space:]]*"\([^"]*\)".*/\1/p'
}
keys=()
for _ in $(seq 1 "$ACCOUNTS"); do keys+=("$(new_key)"); done
cached_key=$(new_key)
for k in "${keys[@]}" "$cached_key"; do [ -n "$k" ] || die "chartctl gave no api_key"; done

# The chart's CSV with the last bar at $1 (317 is the chart itself).
csv_head="category,value"
for i in $(seq 0 28); do csv_head="$csv_head\\nC$i,$(( 40 + (i * 53) % 420 ))"; done
csv() { printf '%s\\nC29,%s' "$csv_head" "$1"; }
# body VALUE [MARK]: the chart with the last bar at VALUE, and MARK after
# its title. The mark makes every timed picture distinct: bars sit on
# whole pixels, so values alone drew about 180 of 400 charts alike, and
# those answers came from the image cache.
body() {
  printf '{"type":"bar","data":"%s","ops":[{"op":"setTitle","title":{"text":"Thirty bars and their labels%s"}}]}' "$(csv "$1")" "${2:+ $2}"
}

# create_charts FIRST COUNT: creates COUNT charts whose last bar is
# 100.25 + j/2 and whose title ends in #j for j = FIRST..FIRST+COUNT-1
# (all different pictures, none the chart itself, the axis stays 0–500),
# chart j with account j % ACCOUNTS; prints 'KEY ID' lines, accounts
# taking turns. One curl process per account sends its charts over one
# connection; the accounts' curls run side by side.
create_charts() {
  local first=$1 count=$2 a i j cfg pids=() files=() accts=()
  for a in $(seq 0 $(( ACCOUNTS - 1 ))); do
    cfg="$tmp/create-$first-$a.curl"
    : >"$cfg"
    for j in $(seq $(( first + (a - first % ACCOUNTS + ACCOUNTS) % ACCOUNTS )) "$ACCOUNTS" $(( first + count - 1 ))); do
      body "$(( 100 + j / 2 )).$(( j % 2 ? 75 : 25 ))" "#$j" >"$tmp/body-$j.json"
      [ ! -s "$cfg" ] || echo next >>"$cfg"
      cat >>"$cfg" <<CFG
url = "$base/api/v1/charts"
header = "Authorization: Bearer ${keys[$a]}"
header = "Content-Type: application/json"
data-binary = "@$tmp/body-$j.json"
write-out = "\\n"
silent
CFG
    done
    [ -s "$cfg" ] || continue
    curl -K "$cfg" >"$tmp/created-$first-$a.txt" &
    pids+=($!)
    files+=("$tmp/created-$first-$a.txt")
    accts+=("$a")
  done
  for a in "${pids[@]}"; do wait "$a" || die "curl creating charts failed"; done
  for i in "${!files[@]}"; do
    # Every non-empty line must be one created chart.
    if grep -v '^$' "${files[$i]}" | grep -qv '^{"chart":{"id":"'; then
      die "creating charts failed: $(grep -v '^$' "${files[$i]}" | grep -v '^{"chart":{"id":"' | head -1)"
    fi
    sed -n 's/^{"chart":{"id":"\([^"]*\)".*/\1/p' "${files[$i]}" | sed "s/^/${keys[${accts[$i]}]} /" >"${files[$i]}.ids"
  done
  local ids=()
  for a in "${files[@]}"; do ids+=("$a.ids"); done
  paste -d '\n' "${ids[@]}" | grep -v '^$' >"$tmp/created-$first"
  [ "$(wc -l <"$tmp/created-$first")" = "$count" ] || die "created $(wc -l <"$tmp/created-$first") charts, wanted $count"
  cat "$tmp/created-$first"
}

log "creating $((2 * N)) charts over $ACCOUNTS accounts"
t0=$(date +%s)
create_charts 0 "$N" >"$tmp/setA"
create_charts "$N" "$N" >"$tmp/setB"
log "created in $(( $(date +%s) - t0 ))s"
awk -v b="$base" '{print $1, b "/api/v1/charts/" $2 "/render.png"}' "$tmp/setA" >"$tmp/pairs-s1"
awk -v b="$base" '{print $1, b "/api/v1/charts/" $2 "/render.png?scale=2"}' "$tmp/setA" >"$tmp/pairs-s2"
awk -v b="$base" '{print $1, b "/api/v1/charts/" $2 "/render.png"}' "$tmp/setB" >"$tmp/pairs-c"

# The chart itself (last bar 317), for the cached run and the samples.
cached_id=$(curl -sf -H "Authorization: Bearer $cached_key" -H 'Content-Type: application/json' \
  --data-binary "$(body 317)" "$base/api/v1/charts" | sed -n 's/^{"chart":{"id":"\([^"]*\)".*/\1/p')
[ -n "$cached_id" ] || die "creating the cached chart failed"
cached_url="$base/api/v1/charts/$cached_id/render.png"
for s in 1 2; do
  code=$(curl -s -o "$OUT/chartd-scale$s.png" -w '%{http_code}' -H "Authorization: Bearer $cached_key" "$cached_url?scale=$s")
  [ "$code" = 200 ] || die "render.png?scale=$s answered $code: $(head -c 400 "$OUT/chartd-scale$s.png")"
done
chartd_bytes1=$(wc -c <"$OUT/chartd-scale1.png")
chartd_bytes2=$(wc -c <"$OUT/chartd-scale2.png")

pngs() { find "$data/images" -type f 2>/dev/null | wc -l; }

# load NAME ARGS...: runs loadgen, keeps its line in $OUT/NAME.txt, checks
# every answer was a 200 and all requests were sent.
load() {
  local name=$1 want=$2; shift 2
  local before after line
  before=$(pngs)
  line=$(bin/loadgen -d 60s "$@" | tail -1)
  # The image cache is written off the request's path: wait for the
  # writes to land before counting.
  after=$(pngs)
  for _ in $(seq 1 50); do
    sleep 0.1
    [ "$(pngs)" = "$after" ] && break
    after=$(pngs)
  done
  echo "$line" >"$OUT/$name.txt"
  log "$name: $line (new PNGs in the image cache: $((after - before)))"
  case "$line" in *"statuses=map[200:$want]"*) ;; *) log "WARNING: $name: not $want answers of 200 (see above)";; esac
  echo "$line new_pngs=$((after - before))"
  # An uncached run must draw every picture: one new cache entry per
  # answer, or some answers were cache hits and the timing is not of
  # rasterizing.
  if [ "${UNCACHED:-}" = 1 ] && [ "$((after - before))" != "$want" ]; then
    die "$name: $((after - before)) new PNGs in the image cache for $want answers: some pictures were alike"
  fi
}

# Go durations (950µs, 48.2ms, 1.2s) in ms.
field() { printf '%s\n' "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }
ms() {
  awk -v d="$(field "$1" "$2")" 'BEGIN {
    if (d ~ /ms$/) v = substr(d, 1, length(d)-2);
    else if (d ~ /µs$/ || d ~ /us$/) v = substr(d, 1, length(d)-2) / 1000;
    else if (d ~ /ns$/) v = substr(d, 1, length(d)-2) / 1e6;
    else if (d ~ /m[0-9.]+s$/) { split(d, a, "m"); v = a[1] * 60000 + substr(a[2], 1, length(a[2])-1) * 1000 }
    else if (d ~ /s$/) v = substr(d, 1, length(d)-1) * 1000;
    else v = "nan";
    printf "%.1f", v }'
}
# Requests per second, from loadgen's count and duration (its rate= is rounded).
rate() { awk -v n="$(field "$1" requests)" -v d="$(ms "$1" duration)" 'BEGIN { printf "%.1f", n * 1000 / d }'; }
# A number from render.mjs's JSON, to one decimal.
jf() { node -p "(+JSON.parse(process.argv[1]).$2).toFixed(1)" "$1"; }

# The two sides take turns, each chartd run followed by its Chart.js
# counterpart, so that both see about the same load on a shared machine.
# chartd stays up but idle while Chart.js runs.
log "Chart.js $(node -p 'require("'"$here"'/chartjs/node_modules/chart.js/package.json").version') + @napi-rs/canvas $(node -p 'require("'"$here"'/chartjs/node_modules/@napi-rs/canvas/package.json").version')"
cjs() { node "$here/chartjs/render.mjs" --n "$CJS_N" "$@"; }
workers=$(node -p 'require("os").availableParallelism?.() ?? require("os").cpus().length')

log "chartd: uncached PNG, scale 1, c=1, $N charts"
r_s1=$(UNCACHED=1 load uncached-scale1 "$N" -pairs "$tmp/pairs-s1" -c 1 -n "$N")
j_s1=$(cjs --scale 1 --out "$OUT/chartjs-scale1.png"); log "chartjs scale 1: $j_s1"
log "chartd: uncached PNG, scale 2, c=1, $N charts"
r_s2=$(UNCACHED=1 load uncached-scale2 "$N" -pairs "$tmp/pairs-s2" -c 1 -n "$N")
j_s2=$(cjs --scale 2 --out "$OUT/chartjs-scale2.png"); log "chartjs scale 2: $j_s2"
log "chartd: cached PNG, c=1, $CACHED_N requests"
r_ca=$(load cached "$CACHED_N" -url "$cached_url" -key "$cached_key" -c 1 -n "$CACHED_N")
log "chartd: uncached PNG, scale 1, c=$CONC, $N other charts"
r_c8=$(UNCACHED=1 load uncached-c"$CONC" "$N" -pairs "$tmp/pairs-c" -c "$CONC" -n "$N")
j_w=$(cjs --scale 1 --workers "$workers"); log "chartjs scale 1, $workers workers: $j_w"
stop_chartd

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }
row() { printf '%-40s %12s %12s %10s\n' "$@"; }
{
  echo
  echo "pngbench $(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) cores, load average at start $load_start, at end $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo "?")${CHARTD_FLAGS:+, chartd $CHARTD_FLAGS}"
  row "" "chartd" "Chart.js" "chartd/CJ"
  row "PNG p50 uncached, scale 1, c=1 (ms)" "$(ms "$r_s1" p50)" "$(jf "$j_s1" p50_ms)" "$(ratio "$(ms "$r_s1" p50)" "$(jf "$j_s1" p50_ms)")"
  row "PNG p99 uncached, scale 1, c=1 (ms)" "$(ms "$r_s1" p99)" "$(jf "$j_s1" p99_ms)" "$(ratio "$(ms "$r_s1" p99)" "$(jf "$j_s1" p99_ms)")"
  row "PNG p50 uncached, scale 2, c=1 (ms)" "$(ms "$r_s2" p50)" "$(jf "$j_s2" p50_ms)" "$(ratio "$(ms "$r_s2" p50)" "$(jf "$j_s2" p50_ms)")"
  row "PNG p99 uncached, scale 2, c=1 (ms)" "$(ms "$r_s2" p99)" "$(jf "$j_s2" p99_ms)" "$(ratio "$(ms "$r_s2" p99)" "$(jf "$j_s2" p99_ms)")"
  row "PNG p50 cached, scale 1, c=1 (ms)" "$(ms "$r_ca" p50)" "-" "-"
  row "PNGs/s uncached, one at a time" "$(rate "$r_s1")" "$(jf "$j_s1" per_second)" "$(ratio "$(rate "$r_s1")" "$(jf "$j_s1" per_second)")"
  row "PNGs/s uncached, c=$CONC | $workers workers" "$(rate "$r_c8")" "$(jf "$j_w" per_second)" "$(ratio "$(rate "$r_c8")" "$(jf "$j_w" per_second)")"
  row "PNG p50 under that load (ms)" "$(ms "$r_c8" p50)" "$(jf "$j_w" p50_ms)" "-"
  row "PNG bytes, scale 1 | scale 2" "$chartd_bytes1|$chartd_bytes2" "$(jf "$j_s1" bytes | cut -d. -f1)|$(jf "$j_s2" bytes | cut -d. -f1)" ""
  echo "chartd: $N different charts per uncached run (new PNGs cached: s1 $(field "$r_s1" new_pngs), s2 $(field "$r_s2" new_pngs), c=$CONC $(field "$r_c8" new_pngs)); times are HTTP round trips from loadgen."
  echo "Chart.js: $CJS_N renders after 20 warm-up, in-process (new chart + draw + PNG encode, no HTTP); node is single-threaded, the last throughput row uses $workers worker_threads."
  echo "samples: $OUT/{chartd,chartjs}-scale{1,2}.png; whole run $(( $(date +%s) - started ))s"
} | tee "$OUT/table.txt"
