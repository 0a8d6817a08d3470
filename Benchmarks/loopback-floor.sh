#!/usr/bin/env bash
# What the kernel alone costs for one event fanned out to N sockets on this machine: a C program writes one
# 300-byte message to each of N loopback TCP sockets, five rounds: with W = 1 one writer on core 0 and an epoll
# reader on core 1; with W = 2 writers and readers on both cores.
# Usage: Benchmarks/loopback-floor.sh [N] [W]   (defaults 10000 1)
set -euo pipefail
cd "$(dirname "$0")"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
gcc -O2 -pthread -o "$work/floor" loopback-floor.c
"$work/floor" "${1:-10000}" "${2:-1}"
