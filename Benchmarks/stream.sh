#!/usr/bin/env bash
# How the caches' change stream copes with a write transaction that stays open, on PostgreSQL: two instances (A and
# B, both on core 0) over one database, like/unlike toggles through A (wrk, 1 thread, 64 connections, core 1) while B
# reads every change for its caches and live clients. First with nothing else running (the baseline), then with a
# transaction that has written held open for the whole run: no change above the oldest running transaction can be
# forgotten, so a reader that re-read all of them at every read did work growing with the run (and slowed A's
# toggles through the shared CPU and database). Figures: A's toggles a second with the transaction open against
# without, and B's CPU per toggle in both. Given another makestagram binary (for instance one built from an earlier
# commit), each runs in turn on the same data. The data of server.sh, in a throwaway PostgreSQL server (fsync on).
# Prints the figures and appends them to HISTORY.md.
# Usage: Benchmarks/stream.sh [other makestagram binary] [seconds per run, default 20]
set -euo pipefail
cd "$(dirname "$0")/.."
other="${1:-}"
duration="${2:-20}"
source Benchmarks/common.sh
start_postgres
seed_postgres

# instance BIN NAME DB: starts BIN on core 0 over DB; sets $port and $pid.
instance() {
  port=$(free_port)
  taskset -c 0 "$1" serve --port "$port" --data "$work/data-$2" --log-level notice --rate-limit all=off \
    --max-connections-per-address 1048576 --database "$(url_of "$3")" > "$work/$2.log" 2>&1 &
  pid=$!
  echo "$pid" >> "$work/pids"
  for _ in $(seq 1 300); do curl -sf "http://127.0.0.1:$port/healthz" > /dev/null && return 0; sleep 0.1; done
  cat "$work/$2.log"
  exit 1
}
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
# toggles URL B_PID: prints "toggles/s B_µs_per_toggle".
toggles() {
  local before after out total
  before=$(ticks "$2")
  out=$(TOKENS="$work/tokens" taskset -c 1 wrk -t1 -c64 -d"${duration}s" -s Benchmarks/toggle.lua "$1")
  after=$(ticks "$2")
  total=$(awk '/requests in/ {print $1}' <<< "$out")
  echo "$(awk '/Requests\/sec/ {printf "%d", $2}' <<< "$out") $(( (after - before) * 10000000 / total / 1000 ))"
}
# run BIN: prints "free_rate free_b held_rate held_b" for BIN on a fresh copy of the data.
run() {
  psql "$MAKESTAGRAM_TEST_POSTGRES" -qc "DROP DATABASE IF EXISTS run" -qc "CREATE DATABASE run TEMPLATE seeded"
  psql "$(url_of run)" -qc "UPDATE change_consumers SET position = $position_for_every_build"
  instance "$1" a run; local a=$port
  instance "$1" b run; local b=$pid
  TOKENS="$work/tokens" taskset -c 1 wrk -t1 -c64 -d3s -s Benchmarks/toggle.lua "http://127.0.0.1:$a" > /dev/null
  local free held
  free=$(toggles "http://127.0.0.1:$a" "$b")
  # A transaction with a transaction ID of its own (it wrote), open until after the run.
  psql "$(url_of run)" -q -c "BEGIN" -c "SELECT pg_current_xact_id()" -c "SELECT pg_sleep($((duration + 5)))" \
    -c "COMMIT" > /dev/null &
  local hold=$!
  sleep 1
  held=$(toggles "http://127.0.0.1:$a" "$b")
  wait "$hold"
  xargs -r kill < "$work/pids" 2>/dev/null || true
  while read -r p; do while kill -0 "$p" 2>/dev/null; do sleep 0.1; done; done < "$work/pids"
  : > "$work/pids"
  echo "$free $held"
}
ratio() { python3 -c "print(f'{$1 / $2:.2f}')"; }
row() { # label free_rate free_b held_rate held_b
  echo "| $1 | $4 | $2 | $(ratio "$4" "$2") | $5 µs | $3 µs |"
}

rows=""
if [ -n "$other" ]; then
  for round in 1 2; do
    echo "== round $round: this build"; read -r f fb h hb <<< "$(run "$bin/makestagram")"
    rows+="$(row "this build, run $round" "$f" "$fb" "$h" "$hb")"$'\n'
    echo "== round $round: $other"; read -r f fb h hb <<< "$(run "$other")"
    rows+="$(row "other build ($other), run $round" "$f" "$fb" "$h" "$hb")"$'\n'
  done
else
  echo "== this build"; read -r f fb h hb <<< "$(run "$bin/makestagram")"
  rows+="$(row "this build" "$f" "$fb" "$h" "$hb")"$'\n'
fi

report=$(cat <<REPORT
### $(date -u +%Y-%m-%d) — PostgreSQL: the caches' change stream while a write transaction stays open

Machine: $machine. Release builds; instances A and B pinned to core 0, wrk (1 thread, 64 connections, ${duration} s)
to core 1, PostgreSQL $(psql "$MAKESTAGRAM_TEST_POSTGRES" -tAc "SHOW server_version") (fsync on) unpinned. Data as
server.sh. Like/unlike toggles through A, B reading every change; then the same with a transaction that wrote held
open for the whole run.

| build | toggles/s through A, transaction open | baseline: without (same build, same data) | ratio | B's CPU per toggle, transaction open | without |
|---|---|---|---|---|---|
${rows}
REPORT
)
echo
echo "$report"
printf '\n%s\n' "$report" >> Benchmarks/HISTORY.md
