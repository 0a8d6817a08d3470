#!/usr/bin/env bash
# What "acknowledged means durable" costs: like/unlike toggles (wrk, 64 connections) and photo uploads (sequential
# and 4 at once) against this build and, in the same run and on the same machine, against another build given as
# the first argument (for instance one built from a commit before synchronous=FULL and the media folder fsync).
# Servers alternate so that the machine's drift hits both alike. Prints a table; appends it to HISTORY.md.
# Usage: Benchmarks/durability.sh [other makestagram binary] [seconds per toggle run, default 15]
set -euo pipefail
cd "$(dirname "$0")/.."
other="${1:-}"
duration="${2:-15}"
command -v wrk >/dev/null || { apt-get update -qq && apt-get install -y -qq wrk; }
bash scripts/install-deps.sh
swift build -c release --product makestagram
this="$(swift build -c release --show-bin-path)/makestagram"

work="$(mktemp -d)"
server_pid=""
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# Starts a binary on a fresh data folder (rate limits off where the binary has them) and seeds 64 users and a post.
start() {
  local bin=$1 flags=()
  # The help is read whole first: `grep -q` stops reading at its match, and under pipefail the help's broken pipe
  # would then count as no match.
  local help
  help=$("$bin" serve --help)
  grep -q -- "--rate-limit" <<< "$help" && flags=(--rate-limit all=off)
  grep -q -- "--max-connections-per-address" <<< "$help" && flags+=(--max-connections-per-address 1048576)
  rm -rf "$work/data"
  port=$(free_port)
  taskset -c 0 "$bin" serve --port "$port" --data "$work/data" --log-level notice "${flags[@]}" > "$work/server.log" 2>&1 &
  server_pid=$!
  base="http://127.0.0.1:$port"
  for _ in $(seq 1 300); do curl -sf "$base/healthz" > /dev/null && break; sleep 0.1; done
  python3 - "$base" "$work" <<'PY'
import json, pathlib, sys, urllib.request
base, work = sys.argv[1], pathlib.Path(sys.argv[2])
def call(path, body=None, token=None, data=None, headers=None):
    headers = dict(headers or {})
    if token: headers["Authorization"] = f"Bearer {token}"
    if body is not None:
        data = json.dumps(body).encode(); headers["Content-Type"] = "application/json"
    return json.load(urllib.request.urlopen(urllib.request.Request(base + path, data=data, headers=headers)))
tokens = [call("/api/v1/accounts", {"username": f"durable{i}", "password": "benchmark password",
                                    "displayName": f"D {i}"})["token"] for i in range(64)]
(work / "tokens").write_text("\n".join(tokens) + "\n")
photo = pathlib.Path("Tests/TestFixtures/photos/chelsea.jpg").read_bytes()
boundary = "durability"
body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"image\"; filename=\"c.jpg\"\r\n\r\n").encode() \
    + photo + f"\r\n--{boundary}--\r\n".encode()
(work / "upload.body").write_bytes(body)
post = call("/api/v1/posts", token=tokens[0], data=body,
            headers={"Content-Type": f"multipart/form-data; boundary={boundary}"})
(work / "post").write_text(str(post["id"]))
PY
}

stop() { kill "$server_pid"; wait "$server_pid" 2>/dev/null || true; server_pid=""; }

toggles() {
  local out
  # One post (the only one, ID 1): every toggle contends for the same row, as on a popular post.
  out=$(TOKENS="$work/tokens" POSTS="$(cat "$work/post")" taskset -c 1 wrk -t1 -c64 -d"${duration}s" \
    -s Benchmarks/toggle.lua "$base")
  python3 -c 'import re, sys; print(re.search(r"Requests/sec:\s+([\d.]+)", sys.argv[1]).group(1))' "$out"
}

# Uploads per second: 40 one after another, then 40 with 4 at once.
uploads() {
  python3 - "$base" "$work" <<'PY'
import concurrent.futures, pathlib, sys, time, urllib.request
base, work = sys.argv[1], pathlib.Path(sys.argv[2])
token = (work / "tokens").read_text().split()[1]
body = (work / "upload.body").read_bytes()
def upload(_):
    request = urllib.request.Request(base + "/api/v1/posts", data=body, headers={
        "Authorization": f"Bearer {token}", "Content-Type": "multipart/form-data; boundary=durability"})
    assert urllib.request.urlopen(request).status == 201
rates = []
for workers in (1, 4):
    start = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        list(pool.map(upload, range(40)))
    rates.append(40 / (time.perf_counter() - start))
print(" ".join(f"{rate:.1f}" for rate in rates))
PY
}

declare -A results
names=(this)
[ -n "$other" ] && names+=(other)
for round in 1 2; do
  for name in "${names[@]}"; do
    bin=$this; [ "$name" = other ] && bin=$other
    start "$bin"
    results[$name,toggles,$round]=$(toggles)
    results[$name,uploads,$round]=$(uploads)
    stop
  done
done

machine="$(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(free -g | awk '/Mem:/ {print $2}') GiB"
table="| build | toggles/s (runs 1, 2) | uploads/s one at a time (runs 1, 2) | uploads/s 4 at once (runs 1, 2) |
|---|---|---|---|"
for name in "${names[@]}"; do
  label="this build ($(git rev-parse --short HEAD))"
  [ "$name" = other ] && label="other build ($other)"
  read -r u1a u4a <<< "${results[$name,uploads,1]}"
  read -r u1b u4b <<< "${results[$name,uploads,2]}"
  table+="
| $label | ${results[$name,toggles,1]}, ${results[$name,toggles,2]} | $u1a, $u1b | $u4a, $u4b |"
done
report=$(printf '### %s — durability: toggles and uploads\n\nMachine: %s. Release builds; server pinned to core 0, wrk (1 thread, 64 connections, %s s) on core 1; uploads of chelsea.jpg (43 KB) from Python on the same machine. Builds alternate, two rounds.\n\n%s\n' \
  "$(date -u +%Y-%m-%d)" "$machine" "$duration" "$table")
echo "$report"
printf '\n%s\n' "$report" >> Benchmarks/HISTORY.md
