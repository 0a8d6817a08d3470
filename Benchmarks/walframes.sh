#!/usr/bin/env bash
# Which B-trees a like toggle's commits write (SQLite): server.sh's data, like/unlike toggles with wrk (1 thread,
# 64 connections, core 1) for a few seconds, then the write-ahead log as it stands is copied with the database, and
# each frame written since the log last started over is named by the B-tree its page belongs to (`dbstat`). A commit
# writes every page it changed once, so frames per commit count the distinct pages each commit dirtied; a small,
# hot table costs as many frames as a large one whose rows are spread out. Also counts `pwrite`s per toggle
# (`perf stat`, when perf is installed). Prints a table; appends it to HISTORY.md.
# Usage: Benchmarks/walframes.sh [seconds of toggles, default 3]
set -euo pipefail
cd "$(dirname "$0")/.."
duration="${1:-3}"
source Benchmarks/common.sh

echo "== seeding"
start_server
sign_up_bench_users
stop_server
sqlite3 "$work/data/makestagram.sqlite" < Benchmarks/seed.sql > /dev/null
start_server
TOKENS="$work/tokens" taskset -c 1 wrk -t1 -c64 -d3s -s Benchmarks/toggle.lua "$base" > /dev/null

pwrites="" perf_pid=""
if command -v perf > /dev/null; then
  perf stat -e syscalls:sys_enter_pwrite64 -p "$server_pid" -o "$work/perf.out" -- sleep "$duration" &
  perf_pid=$!
  echo "$perf_pid" >> "$work/pids"
fi
toggles=$(TOKENS="$work/tokens" taskset -c 1 wrk -t1 -c64 -d"${duration}s" -s Benchmarks/toggle.lua "$base" \
  | awk '/requests in/ {print $1}')
[ -n "$perf_pid" ] && { wait "$perf_pid" || true; }
[ -f "$work/perf.out" ] && pwrites=$(awk '/pwrite64/ {gsub(",", "", $1); print $1}' "$work/perf.out")
# The server is idle now; the log holds the last commits until the next checkpoint.
mkdir "$work/copy"
cp "$work/data/makestagram.sqlite" "$work/data/makestagram.sqlite-wal" "$work/copy/"
stop_server

table=$(python3 - "$work/copy/makestagram.sqlite" <<'PY'
import collections, sqlite3, struct, sys
path = sys.argv[1]
log = open(path + "-wal", "rb").read()
page_size, salt = struct.unpack(">I", log[8:12])[0], log[16:24]
frames, commits, offset = [], 0, 32
while offset + 24 + page_size <= len(log):
    page, size = struct.unpack(">II", log[offset:offset + 8])
    if log[offset + 8:offset + 16] != salt:
        break  # a frame of the log before it started over
    frames.append(page)
    commits += size != 0
    offset += 24 + page_size
owner = {page: name for name, page in sqlite3.connect(path).execute("SELECT name, pageno FROM dbstat")}
per = collections.Counter(owner.get(page, "(free or new)") for page in frames)
distinct = collections.Counter(owner.get(page, "(free or new)") for page in set(frames))
commits = max(commits, 1)
print(f"{len(frames)} frames in {commits} commits, {len(frames) / commits:.0f} per commit\n")
print("| B-tree | frames per commit | share | distinct pages |\n|---|---|---|---|")
for name, count in per.most_common():
    print(f"| {name} | {count / commits:.1f} | {100 * count / len(frames):.0f} % | {distinct[name]} |")
PY
)
report=$(cat <<REPORT
### $(date -u +%Y-%m-%d) — which B-trees a like toggle's commits write, SQLite ($(git rev-parse --short HEAD))

Machine: $machine. Release build on server.sh's data; server on core 0, wrk (1 thread, 64 connections, $duration s of
like/unlike toggles) on core 1: $toggles toggles$([ -n "$pwrites" ] && python3 -c "print(f', {$pwrites / $toggles:.1f} pwrite calls per toggle')").
The log's frames since it last started over:

$table
REPORT
)
echo
echo "$report"
printf '\n%s\n' "$report" >> Benchmarks/HISTORY.md
