#!/usr/bin/env bash
# Federation, on server.sh's data (SQLite), each figure beside its baseline in the same run:
# - inbox: signed remote Likes (and their Undos) applied per second, replayed by wrk from requests signed ahead by
#   federation_peers.py, beside local like toggles (toggle.lua) on the same server; the RSA-2048 verify and sign rates
#   of this machine (openssl speed) beside them;
# - fan-out: one post by a person with 10,000 remote followers on 100 loopback servers: time from the post's answer
#   until every server has it, copies per server, and the server's CPU per delivery beside one RSA-2048 signature;
# - cost: timeline pages and local like toggles with federation on (and 100 remote followers for each of 100
#   authors) beside federation off.
# Prints a table; appends it to HISTORY.md.
# Usage: Benchmarks/federation.sh [seconds per wrk run, default 15]
# With PROFILE=file, the inbox run is also recorded with perf and its report written to that file; with
# PROFILE_FANOUT=file, the fan-out.
set -euo pipefail
cd "$(dirname "$0")/.."
duration="${1:-15}"
source Benchmarks/common.sh

# The peers' 101 ports lie below the kernel's ephemeral range (32768 and up), where a connection's own port could take
# one of them.
peer_port=$(( 20000 + RANDOM % 12000 ))
public_port=$(free_port)
public="http://127.0.0.1:$public_port"

# Starts the server on $work/data at $public_port, with federation on when $1 is "on".
start_federated() {
  if [ "$1" = on ]; then
    SERVER_PORT=$public_port start_server --public-url "$public" --allow-private-peers
  else
    SERVER_PORT=$public_port start_server
  fi
}

echo "== seeding"
start_server
sign_up_bench_users
stop_server
sqlite3 "$work/data/makestagram.sqlite" < Benchmarks/seed.sql
start_federated on
stop_server
echo "== peers"
python3 Benchmarks/federation_peers.py keys --folder "$work"
taskset -c 1 python3 Benchmarks/federation_peers.py serve --folder "$work" --port "$peer_port" --servers 100 \
  > "$work/peers.log" 2>&1 &
peers_pid=$!
trap 'kill $peers_pid 2>/dev/null || true; cleanup' EXIT
for _ in $(seq 1 100); do grep -q ready "$work/peers.log" && break; sleep 0.1; done
grep -q ready "$work/peers.log" || { echo "the peers did not start:"; cat "$work/peers.log"; exit 1; }
echo "== signing inbox requests"
python3 Benchmarks/federation_peers.py sign --folder "$work" --peer-port "$peer_port" --public "$public" \
  --count 4000 --out "$work/warm.tsv"
python3 Benchmarks/federation_peers.py sign --folder "$work" --peer-port "$peer_port" --public "$public" \
  --count 120000 --out "$work/signed.tsv"

# 10,000 remote followers of bench1 on the 100 servers, and 100 remote followers for each of 100 members.
seed_remote_followers "$work/data/makestagram.sqlite" "$peer_port" "
INSERT OR IGNORE INTO follows (follower_id, followee_id, created_at)
SELECT f.id, m.id, 1700000000 FROM (SELECT id FROM users WHERE username LIKE 'f%@127.0.0.1:%' ORDER BY id LIMIT 100) f,
  (SELECT id FROM users WHERE username LIKE 'member%' ORDER BY id LIMIT 100) m;"

run_local() {
  TOKENS="$work/tokens" taskset -c 1 wrk -t1 -c64 -d3s -s Benchmarks/timeline.lua "$base" > /dev/null
  read -r tl_rps tl_p50 tl_p99 tl_err <<< "$(measure -s Benchmarks/timeline.lua "$base")"
  read -r tg_rps tg_p50 tg_p99 tg_err <<< "$(measure -s Benchmarks/toggle.lua "$base")"
  echo "$tl_rps $tl_p50 $tl_p99 $tl_err $tg_rps $tg_p50 $tg_p99 $tg_err"
}

start_bare
taskset -c 1 wrk -t1 -c64 -d3s "http://127.0.0.1:$bare_port/json" > /dev/null
read -r bare_rps _ _ _ <<< "$(measure "http://127.0.0.1:$bare_port/json")"

# Off, on, off, on: each figure is the mean of its two runs, so that neither side always runs second.
mean() { python3 -c "print(round(($1 + $2) / 2, 2) if '.' in '$1$2' else ($1 + $2) // 2)"; }
echo "== federation off, on, off, on"
start_federated off
read -r a_tl a_tl50 a_tl99 a_tle a_tg a_tg50 a_tg99 a_tge <<< "$(run_local)"
stop_server
start_federated on
read -r b_tl b_tl50 b_tl99 b_tle b_tg b_tg50 b_tg99 b_tge <<< "$(run_local)"
stop_server
start_federated off
read -r c_tl c_tl50 c_tl99 c_tle c_tg c_tg50 c_tg99 c_tge <<< "$(run_local)"
stop_server
start_federated on
read -r d_tl d_tl50 d_tl99 d_tle d_tg d_tg50 d_tg99 d_tge <<< "$(run_local)"
off_tl=$(mean "$a_tl" "$c_tl"); off_tl50=$(mean "$a_tl50" "$c_tl50"); off_tl99=$(mean "$a_tl99" "$c_tl99")
off_tle=$(( a_tle + c_tle )); off_tg=$(mean "$a_tg" "$c_tg"); off_tg50=$(mean "$a_tg50" "$c_tg50")
off_tg99=$(mean "$a_tg99" "$c_tg99"); off_tge=$(( a_tge + c_tge ))
on_tl=$(mean "$b_tl" "$d_tl"); on_tl50=$(mean "$b_tl50" "$d_tl50"); on_tl99=$(mean "$b_tl99" "$d_tl99")
on_tle=$(( b_tle + d_tle )); on_tg=$(mean "$b_tg" "$d_tg"); on_tg50=$(mean "$b_tg50" "$d_tg50")
on_tg99=$(mean "$b_tg99" "$d_tg99"); on_tge=$(( b_tge + d_tge ))
runs="timeline off $a_tl, $c_tl; on $b_tl, $d_tl; toggles off $a_tg, $c_tg; on $b_tg, $d_tg"

echo "== inbox"
SIGNED="$work/warm.tsv" taskset -c 1 wrk -t1 -c64 -d3s -s Benchmarks/inbox.lua "$base" > /dev/null 2>&1
if [ -n "${PROFILE:-}" ]; then
  perf record -F 999 -g -p "$server_pid" -o "$work/perf.data" -- sleep "$duration" > /dev/null 2>&1 &
  perf_pid=$!
fi
read -r in_rps in_p50 in_p99 in_err <<< "$(SIGNED="$work/signed.tsv" measure -s Benchmarks/inbox.lua "$base")"
if [ -n "${PROFILE:-}" ]; then
  wait "$perf_pid" || true
  perf report -i "$work/perf.data" --no-children --sort symbol --stdio 2>/dev/null | swift demangle --simplified \
    > "$PROFILE" || true
fi
read -r tg2_rps tg2_p50 tg2_p99 tg2_err <<< "$(measure -s Benchmarks/toggle.lua "$base")"

echo "== fan-out"
token=$(head -1 "$work/tokens")
if [ -n "${PROFILE_FANOUT:-}" ]; then
  perf record -F 999 -g -p "$server_pid" -o "$work/fanout.data" > /dev/null 2>&1 &
  fan_perf_pid=$!
fi
fanout=$(python3 Benchmarks/fanout.py deliver "$base" "$token" "$peer_port" "$server_pid")
read -r fan_p50 fan_max fan_servers fan_min_copies fan_max_copies fan_windows fan_cpus <<< "$fanout"
if [ -n "${PROFILE_FANOUT:-}" ]; then
  kill -INT "$fan_perf_pid"; wait "$fan_perf_pid" || true
  perf report -i "$work/fanout.data" --children --sort symbol --stdio -g none 2>/dev/null | swift demangle --simplified \
    > "$PROFILE_FANOUT" || true
fi
stop_server
# The same posts with federation off, each measured over the same window: what the post costs without deliveries
# (its caches, live updates and activity), to tell federation's own CPU per delivery from it.
start_federated off
quiet_cpus=$(python3 Benchmarks/fanout.py quiet "$base" "$token" "$server_pid" "$fan_windows")
stop_server
read -r fan_cpu_us quiet_cpu_us net_cpu_us <<< "$(python3 - "$fan_cpus" "$quiet_cpus" <<'PY'
import statistics, sys
on = [float(c) for c in sys.argv[1].split(",")]
off = [float(c) for c in sys.argv[2].split(",")]
print(f"{statistics.median(on) / 100:.0f} {statistics.median(off) / 100:.0f} "
      f"{(statistics.median(on) - statistics.median(off)) / 100:.0f}")
PY
)"
read -r bare2_rps _ _ _ <<< "$(measure "http://127.0.0.1:$bare_port/json")"
speed=$(openssl speed -seconds 3 rsa2048 2>/dev/null | awk '/^rsa 2048 bits/ {print $6, $7}')
read -r sign_rate verify_rate <<< "$speed"
# The same without AVX-512 IFMA (CPUID 7 EBX bit 21), which OpenSSL uses for RSA where the CPU has it and BoringSSL
# (swift-crypto) does not: the server signs with the system's OpenSSL, so the first rate is what its signature costs;
# this one says what it would cost on a CPU without IFMA, or signing with BoringSSL.
plain_sign_rate=$(OPENSSL_ia32cap=":~0x200000" openssl speed -seconds 3 rsa2048 2>/dev/null \
  | awk '/^rsa 2048 bits/ {print $6}')
exact=$(sqlite3 "$work/data/makestagram.sqlite" \
  "SELECT count(*) FROM posts p WHERE like_count <> (SELECT count(*) FROM likes l WHERE l.post_id = p.id);")

bare_avg=$(( (bare_rps + bare2_rps) / 2 ))
ratio() { python3 -c "print(f'{$1 / $2:.2f}')"; }
sign_us=$(python3 -c "print(f'{1e6 / $sign_rate:.0f}')")
plain_sign_us=$(python3 -c "print(f'{1e6 / $plain_sign_rate:.0f}')")
report=$(cat <<REPORT
### $(date -u +%Y-%m-%d) — federation: inbox likes, fan-out to 100 servers, and its cost to local work

Machine: $machine. Release build, SQLite; server pinned to core 0, wrk (1 thread, 64 connections, ${duration} s) and
the loopback peers (one Python process) on core 1. Data: server.sh's seed (10,000 users, 100,000 posts, ~1,000,000
likes), plus 10,000 remote followers of bench1 on 100 loopback servers (100 each) and 100 remote followers for each
of 100 members. RSA-2048 on this machine (openssl speed, one core): $sign_rate signs/s, $verify_rate verifies/s.

| workload | req/s | p50 ms | p99 ms | ratio | non-2xx |
|---|---|---|---|---|---|
| bare Hummingbird JSON (mean of before/after: $bare_rps, $bare2_rps) | $bare_avg | | | 1.00 | 0 |
| timeline page of 20, federation off (mean of 2 runs) | $off_tl | $off_tl50 | $off_tl99 | 1.00 | $off_tle |
| timeline page of 20, federation on (mean of 2 runs) | $on_tl | $on_tl50 | $on_tl99 | $(ratio "$on_tl" "$off_tl") of off | $on_tle |
| local like toggles, federation off (mean of 2 runs) | $off_tg | $off_tg50 | $off_tg99 | 1.00 | $off_tge |
| local like toggles, federation on (mean of 2 runs) | $on_tg | $on_tg50 | $on_tg99 | $(ratio "$on_tg" "$off_tg") of off | $on_tge |
| signed remote Likes and Undos at the shared inbox, verified and applied | $in_rps | $in_p50 | $in_p99 | $(ratio "$in_rps" "$tg2_rps") of local toggles | $in_err |
| local like toggles, right after (same server) | $tg2_rps | $tg2_p50 | $tg2_p99 | 1.00 | $tg2_err |

Fan-out of one post (10 posts, one at a time) to 10,000 remote followers on 100 servers: every one of the 100 servers
had it $fan_p50 ms after the post's answer (median; slowest of 10: $fan_max ms); servers reached per post: at least
$fan_servers; copies per server: $fan_min_copies to $fan_max_copies. Server CPU per delivery (median of 10 windows,
from the answer until every server has the post, divided by 100): $fan_cpu_us µs, beside one RSA-2048 signature:
$sign_us µs ($(ratio "$fan_cpu_us" "$sign_us") of it). The same posts with federation off, over the same windows:
$quiet_cpu_us µs per hundredth; federation's own CPU per delivery, the difference: $net_cpu_us µs
($(ratio "$net_cpu_us" "$sign_us") of a signature). One RSA-2048 signature without AVX-512 IFMA (OpenSSL masked to the
path BoringSSL takes; the server signs with OpenSSL): $plain_sign_us µs; CPU per delivery beside it:
$(ratio "$fan_cpu_us" "$plain_sign_us").

Runs, in order (req/s): $runs.

Posts whose likeCount differs from their like rows after the runs: $exact.
REPORT
)
echo
echo "$report"
printf '\n%s\n' "$report" >> Benchmarks/HISTORY.md
