#!/usr/bin/env bash
# People search at 100,000 users: release build; wrk (1 thread, on the other core) against searches of different
# kinds, one connection (a search's own latency) and 64 (throughput), beside a bare Hummingbird JSON endpoint
# measured in the same run; then, per query, the statement the server runs timed alone (Benchmarks/
# search-statements.py) through its indexes and, as the baseline, as the same ranking over a scan of every user.
# Prints the tables; appends them to HISTORY.md.
# Usage: Benchmarks/search.sh [seconds per run, default 10]
set -euo pipefail
cd "$(dirname "$0")/.."
duration="${1:-10}"
source Benchmarks/common.sh

echo "== seeding"
start_server
sign_up_bench_users
stop_server
db="$work/data/makestagram.sqlite"
sqlite3 "$db" < Benchmarks/seed-people.sql
start_server
start_bare

# One connection: a search's own time, one after another.
measure1() {
  local out
  out=$(TOKENS="$work/tokens" taskset -c 1 wrk -t1 -c1 -d"${duration}s" --latency "$@")
  python3 Benchmarks/wrk-summary.py <<< "$out"
}

echo "== warm-up"
QUERY=son TOKENS="$work/tokens" taskset -c 1 wrk -t1 -c64 -d3s -s Benchmarks/search.lua "$base" > /dev/null
taskset -c 1 wrk -t1 -c64 -d3s "http://127.0.0.1:$bare_port/json" > /dev/null
echo "== bare endpoint"; read -r bare_rps bare_p50 bare_p99 _ <<< "$(measure "http://127.0.0.1:$bare_port/json")"
rows=""
for query in "m" "ma" "ob" "iv" "smith" "son" "olivia%20mar" "4821"; do
  q="${query//%20/ }"
  echo "== search \"$q\""
  export QUERY="$query"
  read -r one_rps one_p50 one_p99 _ <<< "$(measure1 -s Benchmarks/search.lua "$base")"
  read -r rps p50 p99 err <<< "$(measure -s Benchmarks/search.lua "$base")"
  read -r matches indexed scan <<< "$(python3 Benchmarks/search-statements.py "$db" "$q")"
  rows+="| \"$q\" | $matches | $one_p50 | $one_p99 | $rps | $(python3 -c "print(f'{$rps / $bare_rps:.3f}')") | $err | $indexed | $scan |"$'\n'
done
echo "== bare endpoint again"; read -r bare2_rps _ _ _ <<< "$(measure "http://127.0.0.1:$bare_port/json")"

report=$(cat <<REPORT
### $(date -u +%Y-%m-%d) — people search at 100,000 users (SQLite)

Machine: $machine. Release build; server pinned to core 0, wrk (1 thread, 64 connections, ${duration} s) to core 1.
Data: $(sqlite3 "$db" "SELECT count(*) FROM users") users with ordinary names (50 first × 50 last names and a
number), each following 10. Bare Hummingbird JSON endpoint: $bare_rps req/s before the searches, $bare2_rps after
(p50 $bare_p50 ms, p99 $bare_p99 ms). "statement" columns: the statement alone (Python's sqlite3, median of 20),
through the indexes the server uses and as the same ranking over a scan of every user (for one character, the
usernames' index against a scan; for two, the pairs' index against a scan of every key).

| query | matches | 1 connection: p50 ms | p99 ms | 64 connections: req/s | ratio to bare | non-2xx | statement, indexed ms | statement, scan ms |
|---|---|---|---|---|---|---|---|---|
$rows
REPORT
)
echo
echo "$report"
printf '\n%s\n' "$report" >> Benchmarks/HISTORY.md
