#!/usr/bin/env bash
# Installs what is missing, builds, and runs the server with demo data on http://127.0.0.1:8080.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
swift build -c release --product makestagram
exec .build/release/makestagram serve --demo "$@"
