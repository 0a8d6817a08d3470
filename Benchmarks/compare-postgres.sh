#!/usr/bin/env bash
# This build beside another one (a binary built from an earlier commit) on PostgreSQL: one instance on server.sh's
# data, a fresh copy of it each run, builds alternating three times: timeline pages of 20 and like/unlike toggles
# with wrk (1 thread, 64 connections, core 1; the server on core 0, PostgreSQL unpinned, fsync on). compare.sh does
# the same on SQLite. Each run starts the durable consumers at the log's end in the earlier form of a position
# (`xid|`), which every build reads (a build from before the log has none). Prints a table; appends it to HISTORY.md.
# Usage: Benchmarks/compare-postgres.sh <other makestagram binary> [seconds per run, default 10]
# With OWN_DATA=1 each build seeds a database of its own (as compare.sh): a change of schema shows only this way.
set -euo pipefail
cd "$(dirname "$0")/.."
other="$(realpath "$1")"
duration="${2:-10}"
source Benchmarks/common.sh
start_postgres
seed_postgres
# start_server runs the makestagram in $bin.
this="$bin"
mkdir "$work/other"
ln -s "$other" "$work/other/makestagram"
if [ "${OWN_DATA:-0}" = 1 ]; then
  bin="$work/other" seed_postgres seeded_other
  bin=$this
fi

# run FOLDER TEMPLATE: prints "timeline_rate toggle_rate" for the makestagram in FOLDER on a fresh copy of TEMPLATE.
run() {
  psql "$MAKESTAGRAM_TEST_POSTGRES" -qc "DROP DATABASE IF EXISTS run" -qc "CREATE DATABASE run TEMPLATE $2"
  cp "$work/tokens-$2" "$work/tokens"
  # A build from before the change log has no consumers to place.
  if [ "$(psql "$(url_of run)" -tAc "SELECT to_regclass('change_consumers') IS NOT NULL")" = t ]; then
    psql "$(url_of run)" -qc "UPDATE change_consumers SET position = $position_for_every_build"
  fi
  bin=$1 start_server --database "$(url_of run)" > /dev/null
  local timeline toggles
  TOKENS="$work/tokens" taskset -c 1 wrk -t1 -c64 -d3s -s Benchmarks/toggle.lua "$base" > /dev/null
  timeline=$(measure -s Benchmarks/timeline.lua "$base" | cut -d' ' -f1)
  toggles=$(measure -s Benchmarks/toggle.lua "$base" | cut -d' ' -f1)
  stop_server
  echo "$timeline $toggles"
}

rows=""
for round in 1 2 3; do
  for name in this other; do
    folder=$this template=seeded
    [ "$name" = other ] && folder="$work/other"
    [ "$name" = other ] && [ "${OWN_DATA:-0}" = 1 ] && template=seeded_other
    read -r timeline toggles <<< "$(run "$folder" "$template")"
    echo "round $round, $name: timeline $timeline req/s, toggles $toggles req/s"
    rows+="| $round | $name | $timeline | $toggles |"$'\n'
  done
done

report=$(cat <<REPORT
### $(date -u +%Y-%m-%d) — PostgreSQL: this build ($(git rev-parse --short HEAD)) beside $other

Machine: $machine. Release builds on server.sh's data$([ "${OWN_DATA:-0}" = 1 ] && echo ', each build on a database it seeded,') in PostgreSQL $(psql "$(url_of seeded)" -tAc "SHOW server_version")
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
