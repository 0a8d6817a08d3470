#!/usr/bin/env bash
# Blocks and mutes: a home-timeline page of 20 and like/unlike toggles by the 64 benchmark users, first with none,
# then with 1,000 blocks and 1,000 mutes each (seed-safety.sql), on server.sh's data in the same run, each beside the
# bare endpoint. A mute and a block are paid when made (feed rows, follows, likes and comments go), so a timeline
# read filters only what its posts show of others: likers and comments by the viewer's block partners (a post whose
# shared JSON shows one is read for the viewer). A like looks up the block both ways and its activity the pair.
# Prints a table; appends it to HISTORY.md.
# Usage: Benchmarks/safety.sh [seconds per wrk run, default 20]
set -euo pipefail
cd "$(dirname "$0")/.."
duration="${1:-20}"
source Benchmarks/common.sh

echo "== seeding"
start_server
sign_up_bench_users
stop_server
sqlite3 "$work/data/makestagram.sqlite" < Benchmarks/seed.sql
start_bare

run() {
  start_server
  TOKENS="$work/tokens" taskset -c 1 wrk -t1 -c64 -d3s -s Benchmarks/timeline.lua "$base" > /dev/null
  read -r tl_rps tl_p50 tl_p99 tl_err <<< "$(measure -s Benchmarks/timeline.lua "$base")"
  read -r tg_rps tg_p50 tg_p99 tg_err <<< "$(measure -s Benchmarks/toggle.lua "$base")"
  stop_server
  echo "$tl_rps $tl_p50 $tl_p99 $tl_err $tg_rps $tg_p50 $tg_p99 $tg_err"
}

taskset -c 1 wrk -t1 -c64 -d3s "http://127.0.0.1:$bare_port/json" > /dev/null
read -r bare_rps _ _ _ <<< "$(measure "http://127.0.0.1:$bare_port/json")"
echo "== no blocks or mutes"
read -r n_tl n_tl50 n_tl99 n_tle n_tg n_tg50 n_tg99 n_tge <<< "$(run)"
echo "== 1,000 blocks and 1,000 mutes each"
seeded=$(sqlite3 "$work/data/makestagram.sqlite" < Benchmarks/seed-safety.sql)
read -r m_tl m_tl50 m_tl99 m_tle m_tg m_tg50 m_tg99 m_tge <<< "$(run)"
read -r bare2_rps _ _ _ <<< "$(measure "http://127.0.0.1:$bare_port/json")"
exact=$(sqlite3 "$work/data/makestagram.sqlite" \
  "SELECT count(*) FROM posts p WHERE like_count <> (SELECT count(*) FROM likes l WHERE l.post_id = p.id);")

bare_avg=$(( (bare_rps + bare2_rps) / 2 ))
# A toggle of a post whose author the liker blocks (a tenth of the posts) is refused, 404: only the toggles served
# count, so the ratio is the conservative one.
m_tg_served=$(( m_tg - m_tge / duration ))
ratio() { python3 -c "print(f'{$1 / $2:.2f}')"; }
report=$(cat <<REPORT
### $(date -u +%Y-%m-%d) — blocks and mutes: timeline pages and like toggles by viewers with 1,000 of each

Machine: $machine. Release build, SQLite; server pinned to core 0, wrk (1 thread, 64 connections, ${duration} s) to
core 1. Data: server.sh's seed (10,000 users, 100,000 posts, ~1,000,000 likes); then each of the 64 benchmark users
blocking 1,000 members and muting 1,000 others ($seeded), the server restarted.

| workload | req/s | p50 ms | p99 ms | ratio to none | ratio to bare | non-2xx |
|---|---|---|---|---|---|---|
| bare Hummingbird JSON (mean of before/after: $bare_rps, $bare2_rps) | $bare_avg | | | | 1.00 | 0 |
| timeline page of 20, no blocks or mutes | $n_tl | $n_tl50 | $n_tl99 | 1.00 | $(ratio "$n_tl" "$bare_avg") | $n_tle |
| timeline page of 20, 1,000 blocks and 1,000 mutes each | $m_tl | $m_tl50 | $m_tl99 | $(ratio "$m_tl" "$n_tl") | $(ratio "$m_tl" "$bare_avg") | $m_tle |
| like/unlike toggle, no blocks or mutes | $n_tg | $n_tg50 | $n_tg99 | 1.00 | $(ratio "$n_tg" "$bare_avg") | $n_tge |
| like/unlike toggle, 1,000 blocks and 1,000 mutes each (served: 2xx only) | $m_tg_served | $m_tg50 | $m_tg99 | $(ratio "$m_tg_served" "$n_tg") | $(ratio "$m_tg_served" "$bare_avg") | $m_tge (404: blocked authors' posts) |

Posts whose likeCount differs from their like rows after the runs: $exact.
REPORT
)
echo
echo "$report"
printf '\n%s\n' "$report" >> Benchmarks/HISTORY.md
