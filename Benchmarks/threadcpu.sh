#!/usr/bin/env bash
# Where a like toggle's CPU goes, by server thread: this build beside another one (a binary built from an earlier
# commit), alternating, each run on a fresh copy of one seeded database (server.sh's data). wrk (1 thread, 64
# connections, on core 1) sends toggle.lua to the server on core 0; the server's threads are read from /proc before
# and after, and each kind of thread gets its CPU (user and system) and voluntary context switches per toggle.
# Request rates on this shared machine move by several percent from run to run; CPU per toggle by thread moves less,
# and tells apart changes that move work from one thread to another. Prints a table; appends it to HISTORY.md.
# Usage: Benchmarks/threadcpu.sh <other makestagram binary> [seconds per run, default 10] [rounds, default 3]
set -euo pipefail
export LC_ALL=C
cd "$(dirname "$0")/.."
other="${1:?usage: Benchmarks/threadcpu.sh <other makestagram binary> [seconds] [rounds]}"
duration="${2:-10}"
rounds="${3:-3}"
for tool in wrk sqlite3 curl; do
  command -v "$tool" >/dev/null || { apt-get update -qq && apt-get install -y -qq "$tool"; }
done
bash scripts/install-deps.sh
swift build -c release --product makestagram
this="$(swift build -c release --show-bin-path)/makestagram"

work="$(mktemp -d)"
server_pid=""
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
base="http://127.0.0.1:$port"

start() {
  local bin=$1 flags=() help
  help=$("$bin" serve --help)
  grep -q -- "--rate-limit" <<< "$help" && flags=(--rate-limit all=off)
  grep -q -- "--max-connections-per-address" <<< "$help" && flags+=(--max-connections-per-address 1048576)
  taskset -c 0 "$bin" serve --port "$port" --data "$work/data" --log-level notice "${flags[@]}" \
    > "$work/server.log" 2>&1 &
  server_pid=$!
  for _ in $(seq 1 300); do curl -sf "$base/healthz" > /dev/null && return 0; sleep 0.1; done
  cat "$work/server.log"
  exit 1
}
stop() { kill "$server_pid"; wait "$server_pid" 2>/dev/null || true; server_pid=""; }

# Per kind of thread (its name; dispatch and NIO threads are named by their queue or group): voluntary context
# switches and CPU clock ticks, summed.
threads() {
  for task in /proc/"$server_pid"/task/*; do
    printf '%s\t%s\t%s\n' "$(cat "$task/comm")" \
      "$(awk '/^voluntary_ctxt_switches/ {print $2}' "$task/status")" \
      "$(awk '{sub(/^.*\) /, ""); print $12 + $13}' "$task/stat")"
  done | awk -F'\t' '{v[$1] += $2; c[$1] += $3} END {for (k in v) printf "%s\t%d\t%d\n", k, v[k], c[k]}' | sort
}

echo "== seeding"
mkdir -p "$work/data"
start "$this"
: > "$work/tokens"
for i in $(seq 1 64); do
  curl -sf "$base/api/v1/accounts" -H 'content-type: application/json' \
    -d "{\"username\":\"bench$i\",\"password\":\"benchmark password\",\"displayName\":\"Bench $i\"}" \
    | python3 -c 'import sys, json; print(json.load(sys.stdin)["token"])' >> "$work/tokens"
done
stop
sqlite3 "$work/data/makestagram.sqlite" < Benchmarks/seed.sql > /dev/null
mv "$work/data" "$work/seeded"

ticks=$(getconf CLK_TCK)
rows=""
for round in $(seq 1 "$rounds"); do
  for name in this other; do
    bin=$this; [ "$name" = other ] && bin=$other
    rm -rf "$work/data"; cp -r "$work/seeded" "$work/data"
    start "$bin"
    TOKENS="$work/tokens" taskset -c 1 wrk -t1 -c64 -d3s -s Benchmarks/toggle.lua "$base" > /dev/null
    threads > "$work/before"
    TOKENS="$work/tokens" taskset -c 1 wrk -t1 -c64 -d"${duration}s" --latency -s Benchmarks/toggle.lua "$base" \
      > "$work/wrk.out"
    threads > "$work/after"
    stop
    requests=$(awk '/requests in/ {print $1}' "$work/wrk.out")
    rate=$(awk '/Requests\/sec/ {print int($2)}' "$work/wrk.out")
    p99=$(awk '$1 == "99%" {print $2}' "$work/wrk.out")
    # CPU µs and voluntary switches per toggle for each kind of thread that used any CPU, busiest first.
    split=$(join -t $'\t' "$work/before" "$work/after" | awk -F'\t' -v r="$requests" -v hz="$ticks" '
      { cpu = ($5 - $3) * 1e6 / hz / r; all += cpu
        if (cpu > 0) printf "%s\t%.1f\t%.3f\n", $1, cpu, ($4 - $2) / r }
      END { printf "all threads\t%.1f\t\n", all }' | sort -t $'\t' -k2,2nr)
    echo "round $round, $name: $rate toggles/s, p99 $p99"
    echo "$split" | awk -F'\t' '{printf "  %-24s %6s µs  %s switches per toggle\n", $1, $2, $3}'
    cells=$(echo "$split" | awk -F'\t' '{printf "%s%s %s µs", (NR > 1 ? "; " : ""), $1, $2}')
    rows+="| $round | $name | $rate | $p99 | $cells |
"
  done
done

table="| round | build | toggles/s | p99 | CPU per toggle by thread |
|---|---|---|---|---|
$rows"
{
  echo
  echo "### $(date -u +%F) — CPU per like toggle by thread: this build ($(git rev-parse --short HEAD)) beside $other"
  echo
  echo "Machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'). Release builds on"
  echo "server.sh's data (a fresh copy each run); server on core 0, wrk (1 thread, 64 connections, ${duration} s,"
  echo "toggle.lua) on core 1; builds alternate. Thread names as the kernel has them: the cooperative pool"
  echo "\`oot.default-qos\`, dispatch queues such as the database writer \`-qos.overcommit\`, NIO's event loops \`NIO-…\`."
  echo
  printf '%s' "$table"
} | tee -a Benchmarks/HISTORY.md
