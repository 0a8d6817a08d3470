#!/usr/bin/env bash
# Where a like toggle's CPU goes, by server thread: this build beside another one (a binary built from an earlier
# commit), alternating, each run on a fresh copy of one seeded database (server.sh's data). wrk (1 thread, 64
# connections, on core 1) sends toggle.lua to the server on core 0; the server's threads are read from /proc before
# and after, and each kind of thread gets its CPU (user and system) and voluntary context switches per toggle.
# Request rates on this shared machine move by several percent from run to run; CPU per toggle by thread moves less,
# and tells apart changes that move work from one thread to another. Prints a table; appends it to HISTORY.md.
# Usage: Benchmarks/threadcpu.sh <other makestagram binary> [seconds per run, default 10] [rounds, default 3]
set -euo pipefail
export LC_ALL=C
cd "$(dirname "$0")/.."
other="$(realpath "${1:?usage: Benchmarks/threadcpu.sh <other makestagram binary> [seconds] [rounds]}")"
duration="${2:-10}"
rounds="${3:-3}"
source Benchmarks/common.sh
# start_server runs the makestagram in $bin.
this="$bin"
mkdir "$work/other"
ln -s "$other" "$work/other/makestagram"

# Per kind of thread (its name; dispatch and NIO threads are named by their queue or group): voluntary context
# switches and CPU clock ticks, summed.
threads() {
  for task in /proc/"$server_pid"/task/*; do
    printf '%s\t%s\t%s\n' "$(cat "$task/comm")" \
      "$(awk '/^voluntary_ctxt_switches/ {print $2}' "$task/status")" \
      "$(awk '{sub(/^.*\) /, ""); print $12 + $13}' "$task/stat")"
  done | awk -F'\t' '{v[$1] += $2; c[$1] += $3} END {for (k in v) printf "%s\t%d\t%d\n", k, v[k], c[k]}' | sort
}

echo "== seeding"
start_server
sign_up_bench_users
stop_server
sqlite3 "$work/data/makestagram.sqlite" < Benchmarks/seed.sql > /dev/null
mv "$work/data" "$work/seeded"

ticks=$(getconf CLK_TCK)
rows=""
for round in $(seq 1 "$rounds"); do
  for name in this other; do
    folder=$this; [ "$name" = other ] && folder="$work/other"
    rm -rf "$work/data"; cp -r "$work/seeded" "$work/data"
    bin=$folder start_server
    TOKENS="$work/tokens" taskset -c 1 wrk -t1 -c64 -d3s -s Benchmarks/toggle.lua "$base" > /dev/null
    threads > "$work/before"
    TOKENS="$work/tokens" taskset -c 1 wrk -t1 -c64 -d"${duration}s" --latency -s Benchmarks/toggle.lua "$base" \
      > "$work/wrk.out"
    threads > "$work/after"
    stop_server
    requests=$(awk '/requests in/ {print $1}' "$work/wrk.out")
    rate=$(awk '/Requests\/sec/ {print int($2)}' "$work/wrk.out")
    p99=$(awk '$1 == "99%" {print $2}' "$work/wrk.out")
    # CPU µs and voluntary switches per toggle for each kind of thread that used any CPU, busiest first.
    split=$(join -t $'\t' "$work/before" "$work/after" | awk -F'\t' -v r="$requests" -v hz="$ticks" '
      { cpu = ($5 - $3) * 1e6 / hz / r; all += cpu
        if (cpu > 0) printf "%s\t%.1f\t%.3f\n", $1, cpu, ($4 - $2) / r }
      END { printf "all threads\t%.1f\t\n", all }' | sort -t $'\t' -k2,2nr)
    echo "round $round, $name: $rate toggles/s, p99 $p99"
    echo "$split" | awk -F'\t' '{printf "  %-24s %6s µs  %s switches per toggle\n", $1, $2, $3}'
    cells=$(echo "$split" | awk -F'\t' '{printf "%s%s %s µs", (NR > 1 ? "; " : ""), $1, $2}')
    rows+="| $round | $name | $rate | $p99 | $cells |
"
  done
done

table="| round | build | toggles/s | p99 | CPU per toggle by thread |
|---|---|---|---|---|
$rows"
{
  echo
  echo "### $(date -u +%F) — CPU per like toggle by thread: this build ($(git rev-parse --short HEAD)) beside $other"
  echo
  echo "Machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'). Release builds on"
  echo "server.sh's data (a fresh copy each run); server on core 0, wrk (1 thread, 64 connections, ${duration} s,"
  echo "toggle.lua) on core 1; builds alternate. Thread names as the kernel has them: the cooperative pool"
  echo "\`oot.default-qos\`, dispatch queues such as the database writer \`-qos.overcommit\`, NIO's event loops \`NIO-…\`."
  echo
  printf '%s' "$table"
} | tee -a Benchmarks/HISTORY.md
