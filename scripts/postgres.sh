#!/usr/bin/env bash
# A throwaway PostgreSQL cluster from Debian's packages, for tests and benchmarks: created in a temporary folder,
# listening on 127.0.0.1 at a free port, run as the unprivileged user `postgres` (PostgreSQL refuses to run as root;
# when this script is not run as root, as the current user). Trust authentication: for loopback tests only.
#
#   eval "$(bash scripts/postgres.sh start)"   # sets MAKESTAGRAM_TEST_POSTGRES (a URL) and MAKESTAGRAM_TEST_PGDATA
#   eval "$(bash scripts/postgres.sh start --no-fsync)"   # for tests: nothing waits for the disk
#   bash scripts/postgres.sh stop "$MAKESTAGRAM_TEST_PGDATA"
#
# Tests create and drop a database per test, and every DROP DATABASE forces a checkpoint: with fsync each one stalled
# the other tests' statements for seconds on a 2-core machine. Benchmarks keep fsync, as a real server runs.
set -euo pipefail

bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
[ -x "$bin/initdb" ] || { echo "PostgreSQL is not installed (Debian: apt-get install postgresql)" >&2; exit 1; }

as_owner() {
  if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

case "${1:-}" in
  start)
    folder=$(mktemp -d /tmp/makestagram-pg.XXXXXX)
    [ "$(id -u)" -eq 0 ] && chown postgres "$folder"
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    as_owner "$bin/initdb" -D "$folder/data" -U postgres -A trust --no-sync -E UTF8 --locale=C.UTF-8 > "$folder/initdb.log" 2>&1 \
      || { cat "$folder/initdb.log" >&2; exit 1; }
    cat >> "$folder/data/postgresql.conf" <<CONF
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$folder'
max_connections = 300
shared_buffers = 256MB
CONF
    if [ "${2:-}" = "--no-fsync" ]; then
      printf 'fsync = off\nsynchronous_commit = off\nfull_page_writes = off\n' >> "$folder/data/postgresql.conf"
    fi
    as_owner "$bin/pg_ctl" -D "$folder/data" -l "$folder/postgres.log" -w -t 60 start > /dev/null \
      || { cat "$folder/postgres.log" >&2; exit 1; }
    echo "export MAKESTAGRAM_TEST_POSTGRES=postgres://postgres@127.0.0.1:$port/postgres"
    echo "export MAKESTAGRAM_TEST_PGDATA=$folder"
    ;;
  stop)
    folder="${2:?usage: postgres.sh stop FOLDER}"
    [ -d "$folder/data" ] && as_owner "$bin/pg_ctl" -D "$folder/data" -m immediate -w stop > /dev/null 2>&1 || true
    rm -rf "$folder"
    ;;
  *)
    echo "usage: postgres.sh start [--no-fsync] | stop FOLDER" >&2
    exit 2
    ;;
esac
