#!/usr/bin/env bash
# Server benchmark: release build, 10,000 users / 100,000 posts / ~1,000,000 likes, then wrk (1 thread,
# 64 connections, on the other core) against (a) timeline pages of 20 and (b) like/unlike toggles, each beside a bare
# Hummingbird JSON endpoint measured in the same run, and the timeline beside the right ceiling for a page: a bare
# Hummingbird endpoint answering the same page's bytes and headers from memory; then the latency of both at a paced
# load below saturation.
# Prints req/s, p50/p99 and the ratios; appends to HISTORY.md.
# Usage: Benchmarks/server.sh [seconds per run, default 20]
set -euo pipefail
cd "$(dirname "$0")/.."
duration="${1:-20}"
source Benchmarks/common.sh

echo "== seeding"
start_server
sign_up_bench_users
stop_server
seed_start=$(date +%s)
sqlite3 "$work/data/makestagram.sqlite" < Benchmarks/seed.sql
echo "seeded in $(( $(date +%s) - seed_start )) s"
start_server
# One real timeline page, its bytes and headers, for the bare endpoint to answer from memory.
curl -sf -D "$work/page.headers" -o "$work/page.json" -H "authorization: Bearer $(head -1 "$work/tokens")" \
  "$base/api/v1/timeline?limit=20"
tail -n +2 "$work/page.headers" | grep -iv '^x-request-id' > "$work/page.headers.kept" || true
start_bare "$work/page.json" "$work/page.headers.kept"

echo "== warm-up"
TOKENS="$work/tokens" taskset -c 1 wrk -t1 -c64 -d3s -s Benchmarks/timeline.lua "$base" > /dev/null
taskset -c 1 wrk -t1 -c64 -d3s "http://127.0.0.1:$bare_port/json" > /dev/null
echo "== bare endpoint";   read -r bare_rps bare_p50 bare_p99 _ <<< "$(measure "http://127.0.0.1:$bare_port/json")"
echo "== bare page bytes";  read -r page_rps page_p50 page_p99 _ <<< "$(measure "http://127.0.0.1:$bare_port/page")"
echo "== timeline";        read -r tl_rps tl_p50 tl_p99 tl_err <<< "$(measure -s Benchmarks/timeline.lua "$base")"
echo "== like toggles";    read -r tg_rps tg_p50 tg_p99 tg_err <<< "$(measure -s Benchmarks/toggle.lua "$base")"
echo "== bare endpoint again"; read -r bare2_rps _ _ _ <<< "$(measure "http://127.0.0.1:$bare_port/json")"
echo "== bare page bytes again"; read -r page2_rps _ _ _ <<< "$(measure "http://127.0.0.1:$bare_port/page")"
# Latency at a load below saturation: 64 connections, each pausing 16 ms on average between requests.
pace_ms=16
export PACE_MS=$pace_ms
echo "== paced: bare";     read -r pb_rps pb_p50 pb_p99 _ <<< "$(measure -s Benchmarks/paced.lua "http://127.0.0.1:$bare_port/json")"
echo "== paced: timeline"; read -r pt_rps pt_p50 pt_p99 pt_err <<< "$(measure -s Benchmarks/timeline.lua "$base")"
unset PACE_MS

stop_server
exact=$(sqlite3 "$work/data/makestagram.sqlite" \
  "SELECT count(*) FROM posts p WHERE like_count <> (SELECT count(*) FROM likes l WHERE l.post_id = p.id);")
likes=$(sqlite3 "$work/data/makestagram.sqlite" "SELECT count(*) || ' rows, sum of counts ' || (SELECT sum(like_count) FROM posts) FROM likes;")

bare_avg=$(( (bare_rps + bare2_rps) / 2 ))
page_avg=$(( (page_rps + page2_rps) / 2 ))
page_bytes=$(wc -c < "$work/page.json")
ratio() { python3 -c "print(f'{$1 / $2:.2f}')"; }
report=$(cat <<REPORT
### $(date -u +%Y-%m-%d) — server: timeline and like toggles

Machine: $machine. Release build; server pinned to core 0, wrk (1 thread, 64 connections, ${duration} s) to core 1.
Data: 10,000 users (each following 30), 100,000 posts, $likes.

| workload | req/s | p50 ms | p99 ms | ratio to bare | non-2xx |
|---|---|---|---|---|---|
| bare Hummingbird JSON (mean of before/after: $bare_rps, $bare2_rps) | $bare_avg | $bare_p50 | $bare_p99 | 1.00 | 0 |
| timeline page of 20 | $tl_rps | $tl_p50 | $tl_p99 | $(ratio "$tl_rps" "$bare_avg") | $tl_err |
| like/unlike toggle | $tg_rps | $tg_p50 | $tg_p99 | $(ratio "$tg_rps" "$bare_avg") | $tg_err |

The right ceiling for a page: a bare Hummingbird endpoint answering the same timeline page ($page_bytes bytes, with
its headers) from memory, measured before and after the timeline in the same run (target: timeline ≥ 0.85 of it).

| workload | req/s | p50 ms | p99 ms | ratio to bare page |
|---|---|---|---|---|
| bare page bytes (mean of before/after: $page_rps, $page2_rps) | $page_avg | $page_p50 | $page_p99 | 1.00 |
| timeline page of 20 | $tl_rps | $tl_p50 | $tl_p99 | $(ratio "$tl_rps" "$page_avg") |

Paced (the same 64 connections, each pausing a random 0–$((2 * pace_ms)) ms between requests):

| workload | req/s | p50 ms | p99 ms | non-2xx |
|---|---|---|---|---|
| bare Hummingbird JSON | $pb_rps | $pb_p50 | $pb_p99 | 0 |
| timeline page of 20 | $pt_rps | $pt_p50 | $pt_p99 | $pt_err |

Posts whose likeCount differs from their like rows after the run: $exact.
REPORT
)
echo
echo "$report"
printf '\n%s\n' "$report" >> Benchmarks/HISTORY.md
