#!/usr/bin/env bash
# PostgreSQL benchmark: the data of server.sh (10,000 users / 100,000 posts / ~1,000,000 likes) in SQLite and in a
# throwaway PostgreSQL server; wrk (1 thread, 64 connections, core 1) against timeline pages of 20 and like/unlike
# toggles on each, beside the bare Hummingbird JSON endpoint, all in one run (the server on core 0; PostgreSQL's
# processes wherever the kernel puts them: on this 2-core machine they share both cores with the rest). Then two
# instances on the PostgreSQL database: the time from a like sent to one until a socket on the other receives it,
# at 20 likes a second. Prints the figures and appends them to HISTORY.md.
# Usage: Benchmarks/postgres.sh [seconds per run, default 20]
set -euo pipefail
cd "$(dirname "$0")/.."
duration="${1:-20}"
for tool in wrk sqlite3 curl; do
  command -v "$tool" >/dev/null || { apt-get update -qq && apt-get install -y -qq "$tool"; }
done
bash scripts/install-deps.sh --test
swift build -c release --product makestagram
swift build -c release --product BareServer
bin="$(swift build -c release --show-bin-path)"

work="$(mktemp -d)"
pids=()
eval "$(bash scripts/postgres.sh start)"
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  bash scripts/postgres.sh stop "$MAKESTAGRAM_TEST_PGDATA"
  rm -rf "$work"
}
trap cleanup EXIT
psql "$MAKESTAGRAM_TEST_POSTGRES" -qc "CREATE DATABASE bench"
pg_url="${MAKESTAGRAM_TEST_POSTGRES%/postgres}/bench?sslmode=disable"

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# start_server NAME CORE [flags…]: starts an instance, sets $base and records its pid.
start_server() {
  local name=$1 core=$2 port
  shift 2
  port=$(free_port)
  taskset -c "$core" "$bin/makestagram" serve --port "$port" --data "$work/data-$name" --log-level notice \
    --rate-limit all=off --max-connections-per-address 1048576 "$@" > "$work/$name.log" 2>&1 &
  pids+=($!)
  base="http://127.0.0.1:$port"
  for _ in $(seq 1 300); do
    curl -sf "$base/healthz" > /dev/null && return 0
    sleep 0.1
  done
  cat "$work/$name.log"
  exit 1
}
stop_servers() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
  pids=()
}

sign_up() {
  : > "$2"
  for i in $(seq 1 64); do
    curl -sf "$1/api/v1/accounts" -H 'content-type: application/json' \
      -d "{\"username\":\"bench$i\",\"password\":\"benchmark password\",\"displayName\":\"Bench $i\"}" \
      | python3 -c 'import sys, json; print(json.load(sys.stdin)["token"])' >> "$2"
  done
}

echo "== seeding SQLite and PostgreSQL"
start_server sqlite 0
sign_up "$base" "$work/tokens-sqlite"
start_server pg 0 --database "$pg_url"
sign_up "$base" "$work/tokens-pg"
stop_servers
sqlite3 "$work/data-sqlite/makestagram.sqlite" < Benchmarks/seed.sql
seed_start=$(date +%s)
psql "$pg_url" -q -f Benchmarks/seed-postgres.sql
echo "PostgreSQL seeded in $(( $(date +%s) - seed_start )) s"

measure() {
  local tokens=$1 out
  shift
  out=$(TOKENS="$tokens" taskset -c 1 wrk -t1 -c64 -d"${duration}s" --latency "$@")
  echo "$out" >> "$work/wrk.log"
  python3 Benchmarks/wrk-summary.py <<< "$out"
}

bare_port=$(free_port)
# Under the scheduling policy `makestagram serve` takes by default on SQLite (SCHED_BATCH; on PostgreSQL it keeps
# the normal one); the bare endpoint's rate differs by about 1 % between the two.
chrt -b 0 taskset -c 0 "$bin/BareServer" "$bare_port" > "$work/bare.log" 2>&1 &
bare_pid=$!
sleep 1
bare="http://127.0.0.1:$bare_port/json"
taskset -c 1 wrk -t1 -c64 -d3s "$bare" > /dev/null
echo "== bare endpoint"; read -r bare1 bare_p50 bare_p99 _ <<< "$(measure "$work/tokens-sqlite" "$bare")"
kill "$bare_pid"; wait "$bare_pid" 2>/dev/null || true

start_server sqlite 0
TOKENS="$work/tokens-sqlite" taskset -c 1 wrk -t1 -c64 -d3s -s Benchmarks/timeline.lua "$base" > /dev/null
echo "== SQLite timeline"; read -r stl stl50 stl99 stle <<< "$(measure "$work/tokens-sqlite" -s Benchmarks/timeline.lua "$base")"
# activity_during_toggles OUT: the toggle benchmark, with Benchmarks/activity.py timing activity meanwhile.
photo=../shared/fixtures/photos/chelsea.jpg
echo "== SQLite toggles, activity timed meanwhile"
python3 Benchmarks/activity.py "$base" "$photo" 150 10 > "$work/activity-sqlite" &
activity_pid=$!
read -r stg stg50 stg99 stge <<< "$(measure "$work/tokens-sqlite" -s Benchmarks/toggle.lua "$base")"
wait "$activity_pid"
read -r sac50 sac99 sacmax < "$work/activity-sqlite"
stop_servers

start_server pg 0 --database "$pg_url"
TOKENS="$work/tokens-pg" taskset -c 1 wrk -t1 -c64 -d3s -s Benchmarks/timeline.lua "$base" > /dev/null
echo "== PostgreSQL timeline"; read -r ptl ptl50 ptl99 ptle <<< "$(measure "$work/tokens-pg" -s Benchmarks/timeline.lua "$base")"
echo "== PostgreSQL toggles, activity timed meanwhile"
python3 Benchmarks/activity.py "$base" "$photo" 150 10 > "$work/activity-pg" &
activity_pid=$!
read -r ptg ptg50 ptg99 ptge <<< "$(measure "$work/tokens-pg" -s Benchmarks/toggle.lua "$base")"
wait "$activity_pid"
read -r pac50 pac99 pacmax < "$work/activity-pg"
base_a=$base
echo "== cross-instance like -> socket"
start_server pg2 0 --database "$pg_url"
base_b=$base
read -r cross50 cross99 crossmax <<< "$(python3 Benchmarks/crossinstance.py "$base_a" "$base_b" "$work/tokens-pg" 400 20)"
stop_servers
exact=$(psql "$pg_url" -tAc \
  "SELECT count(*) FROM posts p WHERE like_count <> (SELECT count(*) FROM likes l WHERE l.post_id = p.id)")
# Unread counts and activity groups against the rows they count, once the consumer has caught up (it has: the
# servers stopped gracefully).
# Both stores keep unread counts in a table of their own, a row only while the count is above zero.
derived_check="SELECT (SELECT count(*) FROM users u
    WHERE coalesce((SELECT count FROM unread_activity r WHERE r.user_id = u.id), 0) <> (SELECT count(*)
    FROM activity a WHERE a.recipient_id = u.id AND a.unread = 1))
  + (SELECT count(*) FROM activity_groups g WHERE size <> (SELECT count(*) FROM activity a
    WHERE a.recipient_id = g.recipient_id AND a.group_key = g.group_key))"
derived_pg=$(psql "$pg_url" -tAc "$derived_check")
derived_sqlite=$(sqlite3 "$work/data-sqlite/makestagram.sqlite" "$derived_check")

chrt -b 0 taskset -c 0 "$bin/BareServer" "$bare_port" > "$work/bare.log" 2>&1 &
bare_pid=$!
sleep 1
echo "== bare endpoint again"; read -r bare2 _ _ _ <<< "$(measure "$work/tokens-sqlite" "$bare")"
kill "$bare_pid"; wait "$bare_pid" 2>/dev/null || true

bare_avg=$(( (bare1 + bare2) / 2 ))
ratio() { python3 -c "print(f'{$1 / $2:.2f}')"; }
machine="$(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(free -g | awk '/Mem:/ {print $2}') GiB"
pg_version=$(psql "$MAKESTAGRAM_TEST_POSTGRES" -tAc "SHOW server_version")
report=$(cat <<REPORT
### $(date -u +%Y-%m-%d) — PostgreSQL: timeline and like toggles beside SQLite, cross-instance delivery

Machine: $machine. Release build; the server pinned to core 0, wrk (1 thread, 64 connections, ${duration} s) to core 1,
PostgreSQL $pg_version (Debian's, defaults but shared_buffers 256 MB, fsync and synchronous_commit on) unpinned.
Data as server.sh: 10,000 users following 30 each, 100,000 posts, ~1,000,000 likes, in each database.

| workload | req/s | p50 ms | p99 ms | ratio to bare | non-2xx |
|---|---|---|---|---|---|
| bare Hummingbird JSON (mean of before/after: $bare1, $bare2) | $bare_avg | $bare_p50 | $bare_p99 | 1.00 | 0 |
| SQLite: timeline page of 20 | $stl | $stl50 | $stl99 | $(ratio "$stl" "$bare_avg") | $stle |
| SQLite: like/unlike toggle | $stg | $stg50 | $stg99 | $(ratio "$stg" "$bare_avg") | $stge |
| PostgreSQL: timeline page of 20 | $ptl | $ptl50 | $ptl99 | $(ratio "$ptl" "$bare_avg") | $ptle |
| PostgreSQL: like/unlike toggle | $ptg | $ptg50 | $ptg99 | $(ratio "$ptg" "$bare_avg") | $ptge |

Activity (a like, comment or follow, or one undone, by someone else) until the recipient's socket has the unread count
it leads to, from the write's answer, 150 actions at 10 a second during the toggle runs: SQLite p50 $sac50 ms, p99
$sac99 ms, max $sacmax ms; PostgreSQL p50 $pac50 ms, p99 $pac99 ms, max $pacmax ms.

A like through instance A until a socket on instance B has it (400 likes and unlikes at 20 a second, both instances
on core 0): p50 $cross50 ms, p99 $cross99 ms, max $crossmax ms.
PostgreSQL posts whose likeCount differs from their like rows after the run: $exact. Users whose unread count, or
activity groups whose size, differ from their rows: SQLite $derived_sqlite, PostgreSQL $derived_pg.
REPORT
)
echo
echo "$report"
printf '\n%s\n' "$report" >> Benchmarks/HISTORY.md
