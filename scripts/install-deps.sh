#!/usr/bin/env bash
# Installs what Makestagram needs beyond the Swift toolchain, skipping whatever is already there.
# Usage: scripts/install-deps.sh [--test]   (--test adds what the test suite needs)
set -euo pipefail

packages=(libvips-dev libssl-dev pkg-config libsqlite3-dev)
[ "${1:-}" = "--test" ] && packages+=(python3 python3-pip chromium chromium-driver curl strace postgresql nginx)

missing=()
for package in "${packages[@]}"; do
  dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  echo "Installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

if [ "${1:-}" = "--test" ]; then
  here="$(cd "$(dirname "$0")/.." && pwd)"
  if ! python3 -c "import pytest, requests, yaml, jsonschema, openapi_spec_validator, websocket, selenium, schemathesis, mastodon, toot, bovine" \
    2>/dev/null
  then
    python3 -m pip install --quiet -r "$here/Tests/requirements.txt" \
      || python3 -m pip install --quiet --break-system-packages -r "$here/Tests/requirements.txt"
  fi
  # axe-core for the accessibility test, from the package that ships a current one (4.12); only its script is used,
  # so its Playwright dependency (which would want browsers of its own) is left out.
  if ! python3 -c "import axe_playwright_python.base" 2>/dev/null; then
    python3 -m pip install --quiet --no-deps "axe-playwright-python>=0.1.8" \
      || python3 -m pip install --quiet --no-deps --break-system-packages "axe-playwright-python>=0.1.8"
  fi
fi
