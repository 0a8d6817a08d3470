#!/usr/bin/env bash
# Installs what is missing and runs every test: the Swift suites (server, store on SQLite and PostgreSQL, photos, SDK,
# Incremental), the HTTP API conformance tests, the command line against a live server, the web client in headless
# Chromium, two instances on PostgreSQL behind nginx, federation with a peer built on another ActivityPub library
# (bovine), and the Incremental tests again under ThreadSanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh --test
# A throwaway PostgreSQL server for the store's contract tests and the deployment test; removed however this ends.
eval "$(bash scripts/postgres.sh start --no-fsync)"
trap 'bash scripts/postgres.sh stop "$MAKESTAGRAM_TEST_PGDATA"' EXIT
swift build --build-tests
# A test that hangs fails the run after 25 minutes (the suite takes about 5) instead of holding CI to its limit.
# `swift test` runs the test binary in a process group of its own, which timeout's signals do not reach: that
# binary, left running, would keep this script's output open, so it is ended too.
runner="$(swift build --show-bin-path)/makestagramPackageTests.xctest"
if ! timeout --kill-after=30s 25m swift test --skip-build; then
  pkill -KILL -f "^$runner" || true
  exit 1
fi
MAKESTAGRAM_BIN="$(swift build --show-bin-path)/makestagram" python3 -m pytest -q Tests/api Tests/cli Tests/browser \
  Tests/deployment Tests/federation
bash scripts/tsan-incremental.sh
