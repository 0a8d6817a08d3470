#!/usr/bin/env bash
# Live-update benchmark: release build; one post with 1,000, 5,000 and 10,000 subscribed WebSocket connections on
# loopback (server pinned to core 0, the client to core 1). Prints server memory per idle connection, the time from
# sending a like to its delivery on every subscriber (p50/p99) and the deliveries per second under
# back-to-back likes; right before, the kernel's floor for the same N on the same cores (loopback-floor.sh: one C
# writer on the server's core writing one 300-byte message to each of N sockets, an epoll reader on the client's
# core), and the ratio of the server's p99 time to all subscribers to that floor; appends to HISTORY.md. Bounded:
# about three minutes after the build.
# Usage: Benchmarks/live.sh [connection counts…]   (default: 1000 5000 10000)
# LIVE_SERVER_CPUS and LIVE_CLIENT_CPUS (taskset lists, default 0 and 1) place the two processes.
set -euo pipefail
cd "$(dirname "$0")/.."
counts=("${@:-1000 5000 10000}")
bash scripts/install-deps.sh
swift build -c release --product makestagram
swift build -c release --product LiveBenchmark
bin="$(swift build -c release --show-bin-path)"
ulimit -n "$(ulimit -Hn)"

work="$(mktemp -d)"
server_pid=""
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
server_cpus="${LIVE_SERVER_CPUS:-0}"
client_cpus="${LIVE_CLIENT_CPUS:-1}"
taskset -c "$server_cpus" "$bin/makestagram" serve --port "$port" --data "$work/data" --log-level notice \
  --rate-limit all=off --max-connections-per-address 1048576 > "$work/server.log" 2>&1 &
server_pid=$!
base="http://127.0.0.1:$port"
for _ in $(seq 1 300); do curl -sf "$base/healthz" > /dev/null && break; sleep 0.1; done

signup() {
  curl -sf "$base/api/v1/accounts" -H 'content-type: application/json' \
    -d "{\"username\":\"$1\",\"password\":\"benchmark password\",\"displayName\":\"$1\"}" \
    | python3 -c 'import sys, json; print(json.load(sys.stdin)["token"])'
}
watcher=$(signup watcher)
liker=$(signup liker)
post=$(curl -sf "$base/api/v1/posts" -H "authorization: Bearer $liker" \
  -F "image=@Tests/TestFixtures/photos/chelsea.jpg" | python3 -c 'import sys, json; print(json.load(sys.stdin)["id"])')

# The floor, right before the server run: the median of loopback-floor.sh's five rounds for each N (its writer on
# the server's core, its reader on the client's, as the server and the benchmark client are placed).
floors="$work/floors.txt"
gcc -O2 -pthread -o "$work/floor" Benchmarks/loopback-floor.c
for count in ${counts[@]}; do
  taskset -c "$server_cpus,$client_cpus" "$work/floor" "$count" 1 \
    | python3 -c 'import sys, statistics; rounds = [float(l.split(" ms")[0].split()[-1]) for l in sys.stdin if "ms for the round" in l]; print(sys.argv[1], statistics.median(rounds), min(rounds), max(rounds))' "$count" \
    >> "$floors"
done

output="$work/out.txt"
# shellcheck disable=SC2068
timeout 600 taskset -c "$client_cpus" "$bin/LiveBenchmark" "$base" "$server_pid" "$watcher" "$liker" "$post" ${counts[@]} | tee "$output"

{
  echo
  echo "## Live updates — $(date -u +%Y-%m-%d), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
  echo
  echo "Benchmarks/live.sh: one post, N WebSocket subscribers on loopback (server on cores $server_cpus, client on $client_cpus);"
  echo "20 single likes for latency (timed from sending each like), then 5 s of back-to-back likes for throughput."
  echo
  cat "$output"
  echo
  echo "Against the kernel's floor for the same N, measured in this run right before the server (loopback-floor.sh,"
  echo "median of five rounds; target: p99 time to all ≤ 1.3 × the floor):"
  echo
  python3 - "$floors" "$output" <<'PY'
import re, sys
floors = {int(n): (float(median), float(low), float(high))
          for n, median, low, high in (line.split() for line in open(sys.argv[1]))}
print("| connections | floor median (min–max) | server time to all p99 | ratio |")
print("|---|---|---|---|")
for line in open(sys.argv[2]):
    cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
    if len(cells) < 7 or not cells[0].isdigit():
        continue
    n = int(cells[0])
    p99 = float(re.match(r"[\d.]+", cells[5]).group())
    median, low, high = floors[n]
    print(f"| {n} | {median:.1f} ms ({low:.1f}–{high:.1f}) | {p99:.1f} ms | {p99 / median:.2f} |")
PY
} >> Benchmarks/HISTORY.md
tail -n 8 Benchmarks/HISTORY.md
