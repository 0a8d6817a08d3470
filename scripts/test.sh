#!/usr/bin/env bash
# Installs what is missing and runs every test: the Swift suites (server, store, photos, SDK, Incremental), the HTTP
# API conformance tests, the command line against a live server, the web client in headless Chromium, and the
# Incremental tests again under ThreadSanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh --test
swift build --build-tests
swift test --skip-build
MAKESTAGRAM_BIN="$(swift build --show-bin-path)/makestagram" python3 -m pytest -q Tests/api Tests/cli Tests/browser
bash scripts/tsan-incremental.sh
