#!/usr/bin/env bash
# Runs the Incremental tests under ThreadSanitizer. Incremental has no dependencies, so it is built alone in a
# throwaway package that links to its sources and tests (a sanitized build of the whole server takes far longer).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/Sources" "$work/Tests"
ln -s "$root/Sources/Incremental" "$work/Sources/Incremental"
ln -s "$root/Tests/IncrementalTests" "$work/Tests/IncrementalTests"
cat > "$work/Package.swift" <<'MANIFEST'
// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "incremental-tsan",
    targets: [
        .target(name: "Incremental"),
        .testTarget(name: "IncrementalTests", dependencies: ["Incremental"]),
    ]
)
MANIFEST
cd "$work"
TSAN_OPTIONS="halt_on_error=1" swift test --sanitize=thread
