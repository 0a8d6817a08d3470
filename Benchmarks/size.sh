#!/usr/bin/env bash
# Performance at size: one database grown in SQL to 100,000 users and 10,000, then 100,000, then 1,000,000 posts
# (ten likes a post: 10,000,000 at the end), with the timeline page of 20 measured at each size in the same run
# (wrk, 64 connections, on the other core; the server on core 0); then the start-up time of the server on the
# 1,000,000-post database (the media orphan sweep included) and its resident memory after 60 s of mixed load
# (timeline pages and like toggles at once). Prints a table; appends it to HISTORY.md.
# Usage: Benchmarks/size.sh [seconds per run, default 15]
set -euo pipefail
cd "$(dirname "$0")/.."
duration="${1:-15}"
source Benchmarks/common.sh

db="$work/data/makestagram.sqlite"
echo "== schema and benchmark users"
start_server
sign_up_bench_users
stop_server

# Grows the database in SQL (the schema's triggers keep counts, likers and feeds, as the server would): posts up to
# $1 in total, ten likes a new post.
grow() {
  local posts_to=$1
  sqlite3 "$db" <<SQL
PRAGMA journal_mode = OFF;
PRAGMA synchronous = OFF;
PRAGMA cache_size = -1000000;
PRAGMA temp_store = MEMORY;
BEGIN;
WITH RECURSIVE p(i) AS (SELECT (SELECT count(*) FROM posts) + 1 UNION ALL SELECT i + 1 FROM p WHERE i < $posts_to)
INSERT INTO posts (author_id, caption, width, height, full_file, full_width, full_height, thumb_file, thumb_width,
  thumb_height, variants, created_at)
SELECT 65 + (abs(random()) % 99936), 'Benchmark post number ' || i || ' with a caption of ordinary length #bench',
  1080, 720, printf('%032x.jpg', i), 1080, 720, printf('%032x.jpg', 100000000 + i), 320, 320,
  printf('320x213:%032x.webp 640x427:%032x.webp 1080x720:%032x.webp', 200000000 + i, 300000000 + i, 400000000 + i),
  1700000000 + i FROM p;
INSERT OR IGNORE INTO likes (post_id, user_id, created_at)
SELECT p.id, 1 + (abs(random()) % 100000), 1700000000 + p.id FROM posts p,
  (WITH RECURSIVE k(j) AS (SELECT 1 UNION ALL SELECT j + 1 FROM k WHERE j < 10) SELECT j FROM k)
WHERE p.id > (SELECT coalesce(max(post_id), 0) FROM likes);
COMMIT;
SQL
}

seed_start=$(date +%s)
sqlite3 "$db" <<'SQL'
PRAGMA journal_mode = OFF;
PRAGMA synchronous = OFF;
PRAGMA cache_size = -1000000;
BEGIN;
WITH RECURSIVE n(i) AS (SELECT (SELECT count(*) FROM users) + 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100000)
INSERT INTO users (username, display_name, password_hash, created_at, search_key)
SELECT 'member' || i, 'Member ' || i, '$2b$10$invalidinvalidinvalidinvalidinvalidinvalidinvalidinv', 1700000000 + i,
  'member' || i || char(10) || 'member ' || i FROM n;
-- Everyone follows 30 others; the 64 benchmark readers follow 1,000, so that their timelines hold a full page of
-- 20 even at 10,000 posts.
WITH RECURSIVE u(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM u WHERE i < 100000),
  k(j) AS (SELECT 1 UNION ALL SELECT j + 1 FROM k WHERE j < 30)
INSERT OR IGNORE INTO follows (follower_id, followee_id, created_at)
SELECT i, ((i * 7919 + j * 104729) % 100000) + 1, 1700000000 FROM u, k
WHERE ((i * 7919 + j * 104729) % 100000) + 1 <> i;
WITH RECURSIVE u(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM u WHERE i < 64),
  k(j) AS (SELECT 1 UNION ALL SELECT j + 1 FROM k WHERE j < 1000)
INSERT OR IGNORE INTO follows (follower_id, followee_id, created_at)
SELECT i, 65 + ((i * 7919 + j * 99991) % 99936), 1700000000 FROM u, k;
COMMIT;
SQL
echo "users and follows in $(( $(date +%s) - seed_start )) s"

rows=()
for size in 10000 100000 1000000; do
  step_start=$(date +%s)
  grow "$size"
  sqlite3 "$db" "PRAGMA journal_mode = WAL; ANALYZE;" > /dev/null
  seconds=$(( $(date +%s) - step_start ))
  counts=$(sqlite3 "$db" "SELECT (SELECT count(*) FROM posts) || ' posts, ' || (SELECT count(*) FROM likes) || ' likes, ' || (SELECT count(*) FROM feed) || ' feed rows';")
  echo "== $counts (grown in $seconds s)"
  start_server
  TOKENS="$work/tokens" taskset -c 1 wrk -t1 -c64 -d3s -s Benchmarks/timeline.lua "$base" > /dev/null
  read -r rps p50 p99 err <<< "$(measure -s Benchmarks/timeline.lua "$base")"
  rows+=("| $size | $counts | $seconds s | $rps | $p50 | $p99 | $err |")
  stop_server
done
seeded=$(( $(date +%s) - seed_start ))

# Start-up on the 1,000,000-post database: from launch to the first answer of /healthz (migrations checked, search
# keys filled, the media sweep listing every referenced file).
launch=$(date +%s.%N)
start_server
startup=$(python3 -c "import time; print(f'{time.time() - $launch:.2f}')")

# 60 s of mixed load: timeline pages and like toggles at once (32 connections each), then the resident memory.
POSTS=1000000 TOKENS="$work/tokens" taskset -c 1 wrk -t1 -c32 -d60s --latency -s Benchmarks/timeline.lua "$base" > "$work/mixed-timeline.txt" &
mixed_timeline=$!
POSTS=1000000 TOKENS="$work/tokens" taskset -c 1 wrk -t1 -c32 -d60s --latency -s Benchmarks/toggle.lua "$base" > "$work/mixed-toggles.txt" &
mixed_toggles=$!
wait "$mixed_timeline" "$mixed_toggles"
# Resident memory, and its two parts: the server's own (anonymous) memory, and the database file's pages that SQLite's
# memory map (mmap_size = 256 MiB) has mapped, which the kernel shares with its page cache and reclaims under pressure.
rss=$(awk '/VmRSS/ {print int($2 / 1024)}' "/proc/$server_pid/status")
anon=$(awk '/RssAnon/ {print int($2 / 1024)}' "/proc/$server_pid/status")
file=$(awk '/RssFile/ {print int($2 / 1024)}' "/proc/$server_pid/status")
read -r mt_rps _ _ mt_err <<< "$(python3 Benchmarks/wrk-summary.py < "$work/mixed-timeline.txt")"
read -r mg_rps _ _ mg_err <<< "$(python3 Benchmarks/wrk-summary.py < "$work/mixed-toggles.txt")"
stop_server
exact=$(sqlite3 "$db" "SELECT count(*) FROM posts p WHERE like_count <> (SELECT count(*) FROM likes l WHERE l.post_id = p.id);")

report=$(cat <<REPORT
### $(date -u +%Y-%m-%d) — performance at size

Machine: $machine. Release build; server pinned to core 0, wrk (1 thread, 64 connections, ${duration} s) on core 1.
One SQLite database grown in SQL (the schema's triggers keep counts, likers and feeds): 100,000 users following 30
each (the 64 readers follow 1,000), then posts and ten likes a post; seeding took $seeded s in all.

| posts | data | grown in | timeline req/s | p50 ms | p99 ms | non-2xx |
|---|---|---|---|---|---|---|
$(printf '%s\n' "${rows[@]}")

Start-up on the 1,000,000-post database (launch to the first /healthz answer): $startup s.
After 60 s of mixed load (timeline pages at $mt_rps req/s and like toggles at $mg_rps req/s at once; non-2xx
$mt_err and $mg_err): resident memory $rss MiB, of which $anon MiB the server's own (anonymous) memory and $file MiB
pages of the database file mapped by SQLite. Posts whose likeCount differs from their like rows: $exact.
REPORT
)
echo
echo "$report"
printf '\n%s\n' "$report" >> Benchmarks/HISTORY.md
