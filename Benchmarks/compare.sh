#!/usr/bin/env bash
# This build beside another one (a binary built from an earlier commit, e.g. in a git worktree) on the same seeded
# database (server.sh's data), alternating three times: timeline pages of 20 and like/unlike toggles with wrk
# (1 thread, 64 connections, on the other core). The machines are shared and noisy: only the interleaved rounds
# make a difference of a few percent visible. Prints a table; appends it to HISTORY.md.
# Usage: Benchmarks/compare.sh <other makestagram binary> [seconds per run, default 10]
# With OWN_DATA=1 each build seeds a database of its own (the same seed.sql, so the same sizes; random() draws
# differ): a change of schema shows only this way, since a database keeps the schema of whoever created it.
set -euo pipefail
cd "$(dirname "$0")/.."
other="${1:?usage: Benchmarks/compare.sh <other makestagram binary> [seconds]}"
duration="${2:-10}"
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
  local bin=$1 data=$2 flags=()
  # The help is read whole first: `grep -q` stops reading at its match, and under pipefail the help's broken pipe
  # would then count as no match.
  local help
  help=$("$bin" serve --help)
  grep -q -- "--rate-limit" <<< "$help" && flags=(--rate-limit all=off)
  grep -q -- "--max-connections-per-address" <<< "$help" && flags+=(--max-connections-per-address 1048576)
  taskset -c 0 "$bin" serve --port "$port" --data "$work/$data" --log-level notice "${flags[@]}" \
    > "$work/server.log" 2>&1 &
  server_pid=$!
  for _ in $(seq 1 300); do curl -sf "$base/healthz" > /dev/null && return 0; sleep 0.1; done
  cat "$work/server.log"
  exit 1
}
stop() { kill "$server_pid"; wait "$server_pid" 2>/dev/null || true; server_pid=""; }
rate() { TOKENS="$work/tokens-$data" taskset -c 1 wrk -t1 -c64 -d"$1" "${@:2}" | awk '/Requests\/sec/ {print int($2)}'; }

# Seeds database $2 with build $1: the benchmark users signed up through it, then seed.sql.
seed() {
  echo "== seeding $2"
  start "$1" "$2"
  : > "$work/tokens-$2"
  for i in $(seq 1 64); do
    curl -sf "$base/api/v1/accounts" -H 'content-type: application/json' \
      -d "{\"username\":\"bench$i\",\"password\":\"benchmark password\",\"displayName\":\"Bench $i\"}" \
      | python3 -c 'import sys, json; print(json.load(sys.stdin)["token"])' >> "$work/tokens-$2"
  done
  stop
  sqlite3 "$work/$2/makestagram.sqlite" < Benchmarks/seed.sql > /dev/null
}
if [ "${OWN_DATA:-0}" = 1 ]; then
  seed "$this" data-this
  seed "$other" data-other
else
  seed "$this" data
fi

rows=""
for round in 1 2 3; do
  for name in this other; do
    bin=$this; [ "$name" = other ] && bin=$other
    data=data; [ "${OWN_DATA:-0}" = 1 ] && data=data-$name
    start "$bin" "$data"
    rate 3s -s Benchmarks/timeline.lua "$base" > /dev/null
    timeline=$(rate "${duration}s" -s Benchmarks/timeline.lua "$base")
    toggles=$(rate "${duration}s" -s Benchmarks/toggle.lua "$base")
    stop
    echo "round $round, $name: timeline $timeline req/s, toggles $toggles req/s"
    rows+="| $round | $name | $timeline | $toggles |
"
  done
done

machine="$(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(free -g | awk '/Mem:/ {print $2}') GiB"
report=$(printf '### %s — this build (%s) beside %s\n\nMachine: %s. Release builds on server.sh'"'"'s data%s; server on core 0, wrk (1 thread, 64 connections, %s s) on core 1; builds alternate.\n\n| round | build | timeline req/s | toggles req/s |\n|---|---|---|---|\n%s' \
  "$(date -u +%Y-%m-%d)" "$(git rev-parse --short HEAD)" "$other" "$machine" \
  "$([ "${OWN_DATA:-0}" = 1 ] && echo ', each build on a database it seeded')" "$duration" "$rows")
echo
echo "$report"
printf '\n%s\n' "$report" >> Benchmarks/HISTORY.md
