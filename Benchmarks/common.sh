# Shared by the benchmark scripts (sourced, from the repository root): tools, release builds, a work folder removed on
# exit, the server pinned to core 0 on it, benchmark users, and wrk on core 1.
# Expects: $duration (seconds per wrk run).

for tool in wrk sqlite3 curl; do
  command -v "$tool" >/dev/null || { apt-get update -qq && apt-get install -y -qq "$tool"; }
done
bash scripts/install-deps.sh
swift build -c release --product makestagram
swift build -c release --product BareServer
bin="$(swift build -c release --show-bin-path)"

work="$(mktemp -d)"
server_pid=""; bare_pid=""
# Processes a script starts beyond these two (for instance in command substitutions) go to $work/pids, one per line.
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null || true
  [ -n "$bare_pid" ] && kill "$bare_pid" 2>/dev/null || true
  [ -f "$work/pids" ] && xargs -r kill < "$work/pids" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# Starts a throwaway PostgreSQL server (fsync on, as a real one runs) for the rest of the script, stopped on exit;
# sets MAKESTAGRAM_TEST_POSTGRES.
start_postgres() {
  bash scripts/install-deps.sh --test
  eval "$(bash scripts/postgres.sh start)"
  trap 'cleanup; bash scripts/postgres.sh stop "$MAKESTAGRAM_TEST_PGDATA"' EXIT
}

# The log's end as a change-log position of the earlier form (`xid|`), which builds from before positions were
# snapshots read too (later builds turn it into a snapshot on their first read): for runs that alternate builds.
position_for_every_build="pg_snapshot_xmin(pg_current_snapshot())::text || '|'"

# The URL of database $1 on the throwaway PostgreSQL server.
url_of() { echo "${MAKESTAGRAM_TEST_POSTGRES%/postgres}/$1?sslmode=disable"; }

# Creates database `seeded` on the throwaway PostgreSQL server with server.sh's data and the benchmark users (their
# tokens in $work/tokens); runs copy it (`CREATE DATABASE run TEMPLATE seeded`).
seed_postgres() {
  local name=${1:-seeded}
  psql "$MAKESTAGRAM_TEST_POSTGRES" -qc "CREATE DATABASE $name"
  echo "== seeding $name"
  start_server --database "$(url_of "$name")"
  sign_up_bench_users
  stop_server
  psql "$(url_of "$name")" -q -f Benchmarks/seed-postgres.sql > /dev/null
  psql "$(url_of "$name")" -qc "VACUUM ANALYZE"
  cp "$work/tokens" "$work/tokens-$name"
}

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# Starts the server on $work/data, pinned to core 0, with any extra flags given, on $SERVER_PORT or a free port;
# sets $base.
start_server() {
  local port
  port=${SERVER_PORT:-$(free_port)}
  # Access logs off (notice level) so that the run measures the server, not writes to the terminal.
  # Rate limits off: 64 users as fast as wrk can send is the load being measured.
  taskset -c 0 "$bin/makestagram" serve --port "$port" --data "$work/data" --log-level notice --rate-limit all=off --max-connections-per-address 1048576 \
    "$@" > "$work/server.log" 2>&1 &
  server_pid=$!
  base="http://127.0.0.1:$port"
  for _ in $(seq 1 300); do
    curl -sf "$base/healthz" > /dev/null && return 0
    sleep 0.1
  done
  cat "$work/server.log"
  exit 1
}

stop_server() {
  kill "$server_pid"; wait "$server_pid" 2>/dev/null || true; server_pid=""
}

# Signs up bench1…bench64 on a running server; their tokens go to $work/tokens.
sign_up_bench_users() {
  : > "$work/tokens"
  for i in $(seq 1 64); do
    curl -sf "$base/api/v1/accounts" -H 'content-type: application/json' \
      -d "{\"username\":\"bench$i\",\"password\":\"benchmark password\",\"displayName\":\"Bench $i\"}" \
      | python3 -c 'import sys, json; print(json.load(sys.stdin)["token"])' >> "$work/tokens"
  done
}

# Starts the bare Hummingbird JSON endpoint on core 0 (and, given a body and a headers file, /page answering them);
# sets $bare_port. It runs under the scheduling policy `makestagram serve` takes by default on SQLite (SCHED_BATCH,
# --cpu-scheduling; on PostgreSQL the server keeps the normal one); the bare rate differs by about 1 % between them.
start_bare() {
  bare_port=$(free_port)
  chrt -b 0 taskset -c 0 "$bin/BareServer" "$bare_port" "$@" > "$work/bare.log" 2>&1 &
  bare_pid=$!
  sleep 1
}

# Runs wrk on core 1 (1 thread, 64 connections) and prints "req/s p50_ms p99_ms non_2xx".
measure() {
  local out
  out=$(TOKENS="$work/tokens" taskset -c 1 wrk -t1 -c64 -d"${duration}s" --latency "$@")
  echo "$out" >> "$work/wrk.log"
  python3 Benchmarks/wrk-summary.py <<< "$out"
}

machine="$(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(free -g | awk '/Mem:/ {print $2}') GiB"

# seed_remote_followers DB PEER_PORT [EXTRA_SQL]: 10,000 remote people on the 100 loopback servers at PEER_PORT+1…
# (100 each, as federation_peers.py serves them) following bench1 (user 1), in the SQLite database DB, with EXTRA_SQL
# in the same transaction.
seed_remote_followers() {
  sqlite3 "$1" <<SQL
PRAGMA synchronous = OFF;
BEGIN;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10000)
INSERT INTO users (username, display_name, password_hash, created_at)
SELECT 'f' || i || '@127.0.0.1:' || ($2 + 1 + i % 100), 'Follower ' || i, '!', 1700000000 FROM n;
INSERT INTO remote_actors (user_id, uri, inbox, shared_inbox, key_id, public_key_pem, fetched_at)
SELECT id, 'http://' || substr(username, instr(username, '@') + 1) || '/users/' || substr(username, 1, instr(username, '@') - 1),
  'http://' || substr(username, instr(username, '@') + 1) || '/inbox', 'http://' || substr(username, instr(username, '@') + 1) || '/inbox',
  'k' || id, 'none', 1700000000
FROM users WHERE username LIKE 'f%@127.0.0.1:%';
INSERT INTO follows (follower_id, followee_id, created_at)
SELECT id, 1, 1700000000 FROM users WHERE username LIKE 'f%@127.0.0.1:%';
${3:-}
COMMIT;
SQL
}
