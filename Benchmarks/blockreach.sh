#!/usr/bin/env bash
# How soon a block reaches the blocked person on another instance: two release instances on one throwaway
# PostgreSQL database; the blocker on A, the blocked person on B with a live socket and B's caches holding the
# blocker's post, profile and the blocked person's timeline. Measures, from the block's answer on A, until B closed
# the socket (4000) and until B served none of it (404, timeline without the post), beside a like's propagation from
# A to a socket on B in the same run. Prints a table; appends it to HISTORY.md.
# Usage: Benchmarks/blockreach.sh [trials, default 100]
set -euo pipefail
cd "$(dirname "$0")/.."
trials="${1:-100}"
bash scripts/install-deps.sh --test
swift build -c release --product makestagram
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
psql "$MAKESTAGRAM_TEST_POSTGRES" -qc "CREATE DATABASE reach"
pg_url="${MAKESTAGRAM_TEST_POSTGRES%/postgres}/reach?sslmode=disable"
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
start_server() {
  local name=$1 port
  port=$(free_port)
  "$bin/makestagram" serve --port "$port" --data "$work/data-$name" --database "$pg_url" --log-level notice \
    --rate-limit all=off > "$work/$name.log" 2>&1 &
  pids+=($!)
  base="http://127.0.0.1:$port"
  for _ in $(seq 1 300); do
    curl -sf "$base/healthz" > /dev/null && return 0
    sleep 0.1
  done
  cat "$work/$name.log"
  exit 1
}
start_server a
base_a=$base
start_server b
base_b=$base
read -r s50 s99 smax p50 p99 pmax l50 l99 lmax <<< \
  "$(python3 Benchmarks/blockreach.py "$base_a" "$base_b" "$trials" Tests/TestFixtures/photos/chelsea.jpg)"

machine="$(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(free -g | awk '/Mem:/ {print $2}') GiB"
report=$(cat <<REPORT
### $(date -u +%Y-%m-%d) — a block reaching the blocked person on another instance (PostgreSQL, two instances)

Machine: $machine. Release build, two instances on one PostgreSQL database, unpinned; $trials blocks, each of a
different pair, the blocked person on instance B with a live socket subscribed to the blocker's post and B's caches
holding that post, the blocker's profile and the blocked person's timeline (which held the post). Times from the
block's answer on instance A.

| what | p50 ms | p99 ms | max ms |
|---|---|---|---|
| B closes the blocked person's socket ("load again", 4000) | $s50 | $s99 | $smax |
| B serves none of it (post and profile 404, timeline without the post) | $p50 | $p99 | $pmax |
| baseline: a like through A until B's socket has it | $l50 | $l99 | $lmax |
REPORT
)
echo
echo "$report"
printf '\n%s\n' "$report" >> Benchmarks/HISTORY.md
