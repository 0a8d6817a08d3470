#!/usr/bin/env bash
# How fast the activity consumer catches up on PostgreSQL when it is far behind (after an outage, or an instance
# killed mid-storm): like/unlike toggles (wrk, 1 thread, 64 connections, core 1) against the server (core 0) fill the
# change log; the server stops, the consumer is set back to before the toggles and the activity they caused is
# removed; then the server starts again with nothing else to do, and the time until the consumer has applied the
# whole backlog again is measured. Its rate stands beside the rate the toggles wrote the log in the same run: a
# consumer slower than the writes never catches up. Given another makestagram binary (for instance one built from an
# earlier commit), the backlog is applied by each in turn, alternating, from the same starting point. The data of
# server.sh, in a throwaway PostgreSQL server (fsync on). Prints the figures and appends them to HISTORY.md.
# Usage: [OTHER_POSITION=legacy] Benchmarks/catchup.sh [other makestagram binary] [seconds of toggles, default 20]
set -euo pipefail
cd "$(dirname "$0")/.."
other="${1:-}"
duration="${2:-20}"
source Benchmarks/common.sh
start_postgres
this="$bin"
psql "$MAKESTAGRAM_TEST_POSTGRES" -qc "CREATE DATABASE bench"
pg_url="${MAKESTAGRAM_TEST_POSTGRES%/postgres}/bench?sslmode=disable"
sql() { psql "$pg_url" -tAc "$1"; }
if [ -n "$other" ]; then
  # start_server runs the makestagram of $bin.
  mkdir "$work/other"
  ln -s "$(realpath "$other")" "$work/other/makestagram"
fi
# start FOLDER: the makestagram in FOLDER over the bench database.
start() {
  bin=$1 start_server --database "$pg_url"
  bin=$this
}

echo "== seeding"
start "$this"
sign_up_bench_users
stop_server
psql "$pg_url" -q -f Benchmarks/seed-postgres.sql > /dev/null

echo "== toggles"
start "$this"
# Every change from here on is of the toggles: the consumer is set back to this transaction.
from=$(sql "SELECT pg_snapshot_xmin(pg_current_snapshot())")
out=$(TOKENS="$work/tokens" taskset -c 1 wrk -t1 -c64 -d"${duration}s" --latency -s Benchmarks/toggle.lua "$base")
toggles=$(python3 Benchmarks/wrk-summary.py <<< "$out" | cut -d' ' -f1)
stop_server
backlog=$(sql "SELECT count(*) FROM changes WHERE xid >= '$from'")
# The rate the log grew at: each toggle's change, and the unread counts the consumer logged meanwhile.
written=$(python3 -c "print(round($backlog / $duration))")
# The activity the backlog caused, written again from scratch when it is applied again: what a consumer that was
# down for the storm would write.
# The position the consumer is set back to: the snapshot that sees every transaction below the first of the toggles
# (`xid:xid:`); with OTHER_POSITION=legacy, the other build gets the earlier form (`xid|`), for a build from before
# positions were snapshots, and so do the other consumers (at the log's end), whose positions such a build cannot read
# otherwise.
reset() {
  local position="$from:$from:" others="pg_current_snapshot()::text"
  if [ "$1" != "$this" ] && [ "${OTHER_POSITION:-}" = legacy ]; then
    position="$from|" others=$position_for_every_build
  fi
  cat <<SQL
UPDATE change_consumers SET position = '$position' WHERE name = 'activity';
UPDATE change_consumers SET position = $others WHERE name <> 'activity';
DELETE FROM activity WHERE created_at >= (SELECT extract(epoch FROM min(created_at)) FROM changes WHERE xid >= '$from');
DELETE FROM unread_activity;
INSERT INTO unread_activity (user_id, count)
  SELECT recipient_id, count(*) FROM activity WHERE unread = 1 GROUP BY recipient_id;
DELETE FROM activity_groups;
INSERT INTO activity_groups (recipient_id, group_key, kind, post_id, newest_id, size, unread)
  SELECT recipient_id, group_key, min(kind), min(post_id), max(id), count(*), sum(unread) FROM activity
  GROUP BY recipient_id, group_key;
SQL
}
# Whether the consumer has applied every change: no change its position has not taken. A snapshot (`xmin:xmax:xip`,
# then `|cut` while a read is cut short) or the earlier form (`watermark|applied|floor`).
caught_up="SELECT CASE WHEN split_part(position, '|', 1) LIKE '%:%' THEN position NOT LIKE '%|%' AND NOT EXISTS (
    SELECT 1 FROM changes WHERE xid >= pg_snapshot_xmin(split_part(position, '|', 1)::pg_snapshot)
      AND NOT pg_visible_in_snapshot(xid, split_part(position, '|', 1)::pg_snapshot))
  ELSE NOT EXISTS (SELECT 1 FROM changes WHERE xid >= split_part(position, '|', 1)::xid8) END
  FROM change_consumers WHERE name = 'activity'"
# catch_up FOLDER: sets $took, the seconds until the consumer has applied the backlog, from the server answering.
catch_up() {
  psql "$pg_url" -q -c "$(reset "$1")" -c "VACUUM ANALYZE changes" -c "VACUUM ANALYZE activity" \
    -c "VACUUM ANALYZE activity_groups" > /dev/null
  start "$1"
  local begin
  begin=$(date +%s.%N)
  until [ "$(sql "$caught_up")" = t ]; do
    sleep 0.2
  done
  took=$(python3 -c "print(f'{$(date +%s.%N) - $begin:.1f}')")
  stop_server
}
rate() { python3 -c "print(round($1 / $2))"; }
ratio() { python3 -c "print(f'{$1 / $2:.2f}')"; }

rows=""
if [ -n "$other" ]; then
  declare -a mine theirs
  for round in 1 2; do
    echo "== round $round: this build"; catch_up "$this"; mine+=("$took")
    echo "== round $round: $other"; catch_up "$work/other"; theirs+=("$took")
  done
  for i in 0 1; do
    rows+="| other build ($other), run $((i + 1)) | ${theirs[$i]} s | $(rate "$backlog" "${theirs[$i]}") | $(ratio "$(rate "$backlog" "${theirs[$i]}")" "$written") |"$'\n'
  done
  runs=("${mine[@]}")
else
  echo "== this build"; catch_up "$this"; runs=("$took")
fi
for i in "${!runs[@]}"; do
  rows+="| this build, run $((i + 1)) | ${runs[$i]} s | $(rate "$backlog" "${runs[$i]}") | $(ratio "$(rate "$backlog" "${runs[$i]}")" "$written") |"$'\n'
done
exact=$(sql "SELECT (SELECT count(*) FROM users u
    WHERE coalesce((SELECT count FROM unread_activity r WHERE r.user_id = u.id), 0) <> (SELECT count(*) FROM activity a
    WHERE a.recipient_id = u.id AND a.unread = 1))
  + (SELECT count(*) FROM activity_groups g WHERE size <> (SELECT count(*) FROM activity a
    WHERE a.recipient_id = g.recipient_id AND a.group_key = g.group_key))")

machine="$(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(free -g | awk '/Mem:/ {print $2}') GiB"
report=$(cat <<REPORT
### $(date -u +%Y-%m-%d) — PostgreSQL: the activity consumer catching up on a backlog

Machine: $machine. Release build; the server pinned to core 0, wrk (1 thread, 64 connections, ${duration} s) to core 1,
PostgreSQL $(sql "SHOW server_version") (fsync on) unpinned. Data as server.sh.
$toggles toggles a second grew the log by $written changes a second (the baseline: each toggle's change, and the unread
counts the consumer logged meanwhile); the $backlog changes were then applied again from the start, by a server with
nothing else to do.

| consumer | backlog applied in | changes/s | ratio to the log's growth |
|---|---|---|---|
${rows}
Users whose unread count, or activity groups whose size, differ from their rows after the last run: $exact.
REPORT
)
echo
echo "$report"
printf '\n%s\n' "$report" >> Benchmarks/HISTORY.md
