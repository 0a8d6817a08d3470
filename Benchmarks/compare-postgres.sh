#!/usr/bin/env bash
# This build beside another one (a binary built from an earlier commit) on PostgreSQL: one instance on server.sh's
# data, a fresh copy of it each run, builds alternating three times: timeline pages of 20 and like/unlike toggles
# with wrk (1 thread, 64 connections, core 1; the server on core 0, PostgreSQL unpinned, fsync on). compare.sh does
# the same on SQLite. Each run starts the durable consumers at the log's end in the earlier form of a position
# (`xid|`), which every build reads. Prints a table; appends it to HISTORY.md.
# Usage: Benchmarks/compare-postgres.sh <other makestagram binary> [seconds per run, default 10]
set -euo pipefail
cd "$(dirname "$0")/.."
other="$(realpath "$1")"
duration="${2:-10}"
source Benchmarks/common.sh
start_postgres
this="$bin/makestagram"
seed_postgres

# run BIN: prints "timeline_rate toggle_rate" for BIN on a fresh copy of the data.
run() {
  psql "$MAKESTAGRAM_TEST_POSTGRES" -qc "DROP DATABASE IF EXISTS run" -qc "CREATE DATABASE run TEMPLATE seeded"
  psql "$(url_of run)" -qc "UPDATE change_consumers SET position = pg_snapshot_xmin(pg_current_snapshot())::text || '|'"
  local port
  port=$(free_port)
  taskset -c 0 "$1" serve --port "$port" --data "$work/data" --log-level notice --rate-limit all=off \
    --max-connections-per-address 1048576 --database "$(url_of run)" > "$work/server.log" 2>&1 &
  server_pid=$!
  base="http://127.0.0.1:$port"
  for _ in $(seq 1 300); do curl -sf "$base/healthz" > /dev/null && break; sleep 0.1; done
  local timeline toggles
  TOKENS="$work/tokens" taskset -c 1 wrk -t1 -c64 -d3s -s Benchmarks/toggle.lua "$base" > /dev/null
  timeline=$(TOKENS="$work/tokens" taskset -c 1 wrk -t1 -c64 -d"${duration}s" -s Benchmarks/timeline.lua "$base" |
    awk '/Requests\/sec/ {printf "%d", $2}')
  toggles=$(TOKENS="$work/tokens" taskset -c 1 wrk -t1 -c64 -d"${duration}s" -s Benchmarks/toggle.lua "$base" |
    awk '/Requests\/sec/ {printf "%d", $2}')
  stop_server
  echo "$timeline $toggles"
}

rows=""
for round in 1 2 3; do
  for name in this other; do
    target=$this
    [ "$name" = other ] && target=$other
    read -r timeline toggles <<< "$(run "$target")"
    echo "round $round, $name: timeline $timeline req/s, toggles $toggles req/s"
    rows+="| $round | $name | $timeline | $toggles |"$'\n'
  done
done

machine="$(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(free -g | awk '/Mem:/ {print $2}') GiB"
report=$(cat <<REPORT
### $(date -u +%Y-%m-%d) — PostgreSQL: this build ($(git rev-parse --short HEAD)) beside $other

Machine: $machine. Release builds on server.sh's data in PostgreSQL $(psql "$(url_of seeded)" -tAc "SHOW server_version")
(fsync on), a fresh copy each run; server on core 0, wrk (1 thread, 64 connections, $duration s) on core 1; builds
alternate.

| round | build | timeline req/s | toggles req/s |
|---|---|---|---|
${rows}
REPORT
)
echo
echo "$report"
printf '\n%s\n' "$report" >> Benchmarks/HISTORY.md
