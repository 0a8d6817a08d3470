#!/usr/bin/env bash
# Federation in public, on SQLite, each figure beside its baseline in the same run:
# - one broken peer: a post by a person with 10,000 remote followers on 100 loopback servers, the time until 99
#   servers have it while one of the 100 answers every delivery after 30 s, beside the time until all 100 have it when
#   all answer (alternating, 10 posts each run);
# - kill -9 in the middle of a fan-out: the server is killed once 30 of the 100 servers have the post, started again,
#   and every server is waited for: how many were reached, and how many copies each got (with the same activity id).
# Prints a table; appends it to HISTORY.md.
# Usage: Benchmarks/hostile.sh [kill -9 rounds, default 3]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds="${1:-3}"
duration=1
source Benchmarks/common.sh

# The peers' 101 ports lie below the kernel's ephemeral range (32768 and up), where a connection's own port could take
# one of them.
peer_port=$(( 20000 + RANDOM % 12000 ))
public_port=$(free_port)
public="http://127.0.0.1:$public_port"

start_federated() {
  SERVER_PORT=$public_port start_server --public-url "$public" --allow-private-peers
}

echo "== seeding"
start_server
sign_up_bench_users
stop_server
start_federated
stop_server
python3 Benchmarks/federation_peers.py keys --folder "$work"
seed_remote_followers "$work/data/makestagram.sqlite" "$peer_port"

peers_pid=""
start_peers() {
  taskset -c 1 python3 Benchmarks/federation_peers.py serve --folder "$work" --port "$peer_port" --servers 100 \
    --broken "$1" > "$work/peers.log" 2>&1 &
  peers_pid=$!
  for _ in $(seq 1 100); do grep -q ready "$work/peers.log" && break; sleep 0.1; done
  grep -q ready "$work/peers.log" || { echo "the peers did not start:"; cat "$work/peers.log"; exit 1; }
}
stop_peers() { kill "$peers_pid" 2>/dev/null || true; wait "$peers_pid" 2>/dev/null || true; peers_pid=""; }
trap 'stop_peers; cleanup' EXIT
token=$(head -1 "$work/tokens")

# All answer, one broken, all answer, one broken: each figure is the median of its two runs' medians.
echo "== one broken peer of 100"
results=()
for broken in 0 1 0 1; do
  start_peers "$broken"
  start_federated
  results+=("$(python3 Benchmarks/fanout.py reach "$base" "$token" "$peer_port" "$server_pid" $(( 100 - broken )))")
  stop_server
  stop_peers
done
read -r a_p50 a_max a_reached <<< "${results[0]}"
read -r b_p50 b_max b_reached <<< "${results[1]}"
read -r c_p50 c_max c_reached <<< "${results[2]}"
read -r d_p50 d_max d_reached <<< "${results[3]}"
healthy=$(( (a_p50 + c_p50) / 2 )); broken=$(( (b_p50 + d_p50) / 2 ))

echo "== kill -9 in the middle of a fan-out"
start_peers 0
start_federated
crashes=()
for round in $(seq 1 "$rounds"); do
  activity=$(python3 Benchmarks/fanout.py crash-post "$base" "$token" "$peer_port" 30)
  kill -9 "$server_pid"; wait "$server_pid" 2>/dev/null || true; server_pid=""
  start_federated
  crashes+=("$(python3 Benchmarks/fanout.py crash-count "$peer_port" "$activity" 300)")
done
stop_server
stop_peers
crash_rows=""
for index in "${!crashes[@]}"; do
  read -r reached fewest most twice took <<< "${crashes[$index]}"
  crash_rows+="| $(( index + 1 )) | $reached of 100 | $took | $fewest | $most | $twice |"$'\n'
done

ratio() { python3 -c "print(f'{$1 / $2:.2f}')"; }
report=$(cat <<REPORT
### $(date -u +%Y-%m-%d) — federation in public: one broken peer of 100, and kill -9 in the middle of a fan-out

Machine: $machine. Release build, SQLite; server pinned to core 0, the 100 loopback peers (one Python process) on
core 1. A post by a person with 10,000 remote followers on 100 servers (100 each).

| fan-out (10 posts per run) | median ms | slowest ms | servers reached | ratio |
|---|---|---|---|---|
| all 100 answer: until all 100 have it (runs: $a_p50, $c_p50) | $healthy | $(( a_max > c_max ? a_max : c_max )) | $(( a_reached < c_reached ? a_reached : c_reached )) | 1.00 |
| one answers after 30 s: until the other 99 have it (runs: $b_p50, $d_p50) | $broken | $(( b_max > d_max ? b_max : d_max )) | $(( b_reached < d_reached ? b_reached : d_reached )) | $(ratio "$broken" "$healthy") |

kill -9 of the server once 30 of the 100 servers had the post, then started again ($rounds rounds):

| round | servers reached | seconds from the restart until all had it | fewest copies | most copies | servers with two copies (same activity id) |
|---|---|---|---|---|---|
$crash_rows
REPORT
)
echo
echo "$report"
printf '\n%s\n' "$report" >> Benchmarks/HISTORY.md
