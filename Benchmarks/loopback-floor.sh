#!/usr/bin/env bash
# What the kernel alone costs for one event fanned out to N sockets on this machine: a C program writes one
# 300-byte message to each of N loopback TCP sockets (writer on core 0, an epoll reader on core 1), five rounds.
# Usage: Benchmarks/loopback-floor.sh [N]   (default 10000)
set -euo pipefail
cd "$(dirname "$0")"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
gcc -O2 -o "$work/floor" loopback-floor.c
"$work/floor" "${1:-10000}"
