#!/usr/bin/env bash
# Incremental beside OpenCombine in one release run: prints the table and appends it to HISTORY.md.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product IncrementalBenchmark
table="$("$(swift build -c release --show-bin-path)/IncrementalBenchmark")"
machine="$(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(free -g | awk '/Mem:/ {print $2}') GiB"
report=$(printf '### %s — Incremental beside OpenCombine\n\nMachine: %s. Release build; best of 15 runs per row (diamond: 1 run of 100,000 writes).\n\n%s\n' \
  "$(date -u +%Y-%m-%d)" "$machine" "$table")
echo "$report"
printf '\n%s\n' "$report" >> Benchmarks/HISTORY.md
