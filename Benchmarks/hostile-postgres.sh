#!/usr/bin/env bash
# Federation in public on PostgreSQL: two instances on one database, and kill -9 of one of them once 30 of 100
# loopback servers have a post (a person with 10,000 remote followers, 100 on each): the other instance sends the
# rest (what the killed one had taken waits for its lease, 45 s). Then the killed one is started again. For each
# round: servers reached, copies per server (a second copy carries the same activity id), and the seconds until every
# server had it. Prints a table; appends it to HISTORY.md.
# Usage: Benchmarks/hostile-postgres.sh [rounds, default 2]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds="${1:-2}"
for tool in curl; do
  command -v "$tool" >/dev/null || { apt-get update -qq && apt-get install -y -qq "$tool"; }
done
bash scripts/install-deps.sh --test
swift build -c release --product makestagram
bin="$(swift build -c release --show-bin-path)"
machine="$(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(free -g | awk '/Mem:/ {print $2}') GiB"

work="$(mktemp -d)"
declare -A pids=()
peers_pid=""
eval "$(bash scripts/postgres.sh start)"
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  [ -n "$peers_pid" ] && kill "$peers_pid" 2>/dev/null || true
  bash scripts/postgres.sh stop "$MAKESTAGRAM_TEST_PGDATA"
  rm -rf "$work"
}
trap cleanup EXIT
psql "$MAKESTAGRAM_TEST_POSTGRES" -qc "CREATE DATABASE bench"
pg_url="${MAKESTAGRAM_TEST_POSTGRES%/postgres}/bench?sslmode=disable"
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
# The peers' 101 ports lie below the kernel's ephemeral range (32768 and up), where a connection's own port could take
# one of them.
peer_port=$(( 20000 + RANDOM % 12000 ))
port_a=$(free_port); port_b=$(free_port)
public="http://127.0.0.1:$port_a"

# start NAME PORT CORE: an instance on the shared database, federation on (both answer for the same public URL).
start() {
  taskset -c "$3" "$bin/makestagram" serve --port "$2" --data "$work/data-$1" --database "$pg_url" --log-level notice \
    --rate-limit all=off --public-url "$public" --allow-private-peers > "$work/$1.log" 2>&1 &
  pids[$1]=$!
  for _ in $(seq 1 300); do
    curl -sf "http://127.0.0.1:$2/healthz" > /dev/null && return 0
    sleep 0.1
  done
  cat "$work/$1.log"
  exit 1
}

echo "== seeding"
start a "$port_a" 0
token=$(curl -sf "$public/api/v1/accounts" -H 'content-type: application/json' \
  -d '{"username":"bench1","password":"benchmark password","displayName":"Bench 1"}' \
  | python3 -c 'import sys, json; print(json.load(sys.stdin)["token"])')
psql "$pg_url" -q <<SQL
BEGIN;
INSERT INTO users (username, display_name, password_hash, created_at)
SELECT 'f' || i || '@127.0.0.1:' || ($peer_port + 1 + i % 100), 'Follower ' || i, '!', 1700000000
FROM generate_series(1, 10000) AS i;
INSERT INTO remote_actors (user_id, uri, inbox, shared_inbox, key_id, public_key_pem, fetched_at)
SELECT id, 'http://' || split_part(username, '@', 2) || '/users/' || split_part(username, '@', 1),
  'http://' || split_part(username, '@', 2) || '/inbox', 'http://' || split_part(username, '@', 2) || '/inbox',
  'k' || id, 'none', 1700000000
FROM users WHERE username LIKE 'f%@127.0.0.1:%';
INSERT INTO follows (follower_id, followee_id, created_at)
SELECT id, (SELECT id FROM users WHERE username = 'bench1'), 1700000000 FROM users WHERE username LIKE 'f%@127.0.0.1:%';
COMMIT;
SQL
start b "$port_b" 1
python3 Benchmarks/federation_peers.py keys --folder "$work"
taskset -c 1 python3 Benchmarks/federation_peers.py serve --folder "$work" --port "$peer_port" --servers 100 \
  > "$work/peers.log" 2>&1 &
peers_pid=$!
for _ in $(seq 1 100); do grep -q ready "$work/peers.log" && break; sleep 0.1; done
grep -q ready "$work/peers.log" || { echo "the peers did not start:"; cat "$work/peers.log"; exit 1; }

echo "== kill -9 of one of two instances in the middle of a fan-out"
rows=""
for round in $(seq 1 "$rounds"); do
  activity=$(python3 Benchmarks/fanout.py crash-post "$public" "$token" "$peer_port" 30)
  kill -9 "${pids[a]}"; wait "${pids[a]}" 2>/dev/null || true; unset 'pids[a]'
  started=$(date +%s)
  read -r reached fewest most twice _ <<< "$(python3 Benchmarks/fanout.py crash-count "$peer_port" "$activity" 300)"
  seconds=$(( $(date +%s) - started ))
  rows+="| $round | $reached of 100 | $fewest | $most | $twice | $seconds |"$'\n'
  start a "$port_a" 0
done

report=$(cat <<REPORT
### $(date -u +%Y-%m-%d) — federation in public on PostgreSQL: kill -9 of one of two instances in the middle of a fan-out

Machine: $machine. Release build; two instances on one PostgreSQL database (instance A on core 0, B and the 100
loopback peers on core 1). A post by a person with 10,000 remote followers on 100 servers, through A; A killed with
SIGKILL once 30 of the 100 servers had it, B left to send the rest, then A started again.

| round | servers reached | fewest copies | most copies | servers with two copies (same activity id) | seconds from the kill until every server had it |
|---|---|---|---|---|---|
$rows
REPORT
)
echo
echo "$report"
printf '\n%s\n' "$report" >> Benchmarks/HISTORY.md
