#!/usr/bin/env bash
# Albums: (a) a home-timeline page of 20 where a third of the posts are albums of 5, beside the same page of
# single photos measured in the same run on the same data (server.sh's seed, then seed-albums.sql), each beside the
# bare Hummingbird endpoint; (b) an album of 10 twelve-megapixel JPEGs (ten uploads and the post, one after another
# as the clients send them) beside ten single-photo posts of the same files: wall time and the server's peak
# resident memory (sampled every 5 ms) for each.
# Prints a table; appends it to HISTORY.md.
# Usage: Benchmarks/albums.sh [seconds per wrk run, default 20]
set -euo pipefail
cd "$(dirname "$0")/.."
duration="${1:-20}"
source Benchmarks/common.sh
dpkg -s libvips-tools >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq --no-install-recommends libvips-tools; }

echo "== seeding"
start_server
sign_up_bench_users
stop_server
sqlite3 "$work/data/makestagram.sqlite" < Benchmarks/seed.sql
start_bare

timeline() {
  TOKENS="$work/tokens" taskset -c 1 wrk -t1 -c64 -d3s -s Benchmarks/timeline.lua "$base" > /dev/null
  curl -sf -o "$work/page-$1.json" -H "authorization: Bearer $(head -1 "$work/tokens")" "$base/api/v1/timeline?limit=20"
  measure -s Benchmarks/timeline.lua "$base"
}

echo "== single photos"
start_server
taskset -c 1 wrk -t1 -c64 -d3s "http://127.0.0.1:$bare_port/json" > /dev/null
read -r bare_rps _ _ _ <<< "$(measure "http://127.0.0.1:$bare_port/json")"
read -r single_rps single_p50 single_p99 single_err <<< "$(timeline single)"
stop_server
echo "== albums"
sqlite3 "$work/data/makestagram.sqlite" < Benchmarks/seed-albums.sql
start_server
read -r album_rps album_p50 album_p99 album_err <<< "$(timeline albums)"
read -r bare2_rps _ _ _ <<< "$(measure "http://127.0.0.1:$bare_port/json")"
albums_on_page=$(python3 -c "import json; print(sum(len(p.get('photos', [1])) > 1 for p in json.load(open('$work/page-albums.json'))['items']))")
stop_server

echo "== uploads"
# The phone photo stretched to 12 MP (4032 × 3024), JPEG Q90, with its EXIF (orientation 6, GPS).
vips resize Tests/TestFixtures/photos/phone-gps-rotated.jpg "$work/photo.v" 1 --vscale 1.125
vips copy "$work/photo.v" "$work/photo.jpg[Q=90]"
rm -rf "$work/data"
start_server
read -r singles_s singles_rss album_s album_rss photos <<< "$(python3 - "$base" "$server_pid" "$work/photo.jpg" <<'PY'
import json, sys, threading, time, urllib.request, uuid

base, pid, photo = sys.argv[1], int(sys.argv[2]), open(sys.argv[3], "rb").read()

def call(path, body=None, token=None, content_type="application/json"):
    headers = {"Content-Type": content_type}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    data = body if isinstance(body, bytes) or body is None else json.dumps(body).encode()
    return json.load(urllib.request.urlopen(urllib.request.Request(base + path, data=data, headers=headers)))

def multipart(fields):
    boundary = uuid.uuid4().hex
    parts = b""
    for name, value, filename in fields:
        disposition = f'form-data; name="{name}"' + (f'; filename="{filename}"' if filename else "")
        parts += f"--{boundary}\r\nContent-Disposition: {disposition}\r\n\r\n".encode() + value + b"\r\n"
    return parts + f"--{boundary}--\r\n".encode(), f"multipart/form-data; boundary={boundary}"

def rss_kib():
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0

def measured(work):
    peak = [rss_kib()]
    done = threading.Event()
    def sample():
        while not done.is_set():
            peak[0] = max(peak[0], rss_kib())
            time.sleep(0.005)
    sampler = threading.Thread(target=sample)
    sampler.start()
    start = time.monotonic()
    result = work()
    elapsed = time.monotonic() - start
    done.set()
    sampler.join()
    return elapsed, peak[0] // 1024, result

token = call("/api/v1/accounts", {"username": "albums", "password": "benchmark password", "displayName": "A"})["token"]

def singles():
    for index in range(10):
        body, kind = multipart([("caption", f"single {index}".encode(), None), ("image", photo, "photo.jpg")])
        call("/api/v1/posts", body, token, kind)

def album():
    uploads = []
    for index in range(10):
        body, kind = multipart([("altText", f"Photo {index + 1}".encode(), None), ("image", photo, "photo.jpg")])
        uploads.append(call("/api/v1/uploads", body, token, kind)["id"])
    return call("/api/v1/posts", {"caption": "ten", "uploads": uploads}, token)

singles_s, singles_rss, _ = measured(singles)
album_s, album_rss, post = measured(album)
print(f"{singles_s:.2f} {singles_rss} {album_s:.2f} {album_rss} {len(post['photos'])}")
PY
)"
stop_server

bare_avg=$(( (bare_rps + bare2_rps) / 2 ))
ratio() { python3 -c "print(f'{$1 / $2:.2f}')"; }
report=$(cat <<REPORT
### $(date -u +%Y-%m-%d) — albums: timeline pages and an album's upload

Machine: $machine. Release build; server pinned to core 0, wrk (1 thread, 64 connections, ${duration} s) to core 1.
Data: server.sh's seed (10,000 users, 100,000 posts, ~1,000,000 likes); then every third post made an album of 5
(seed-albums.sql) and the server restarted. The albums page held $albums_on_page albums of 20 posts,
$(wc -c < "$work/page-albums.json") bytes against $(wc -c < "$work/page-single.json") for single photos.

| workload | req/s | p50 ms | p99 ms | ratio to single photos | ratio to bare | non-2xx |
|---|---|---|---|---|---|---|
| bare Hummingbird JSON (mean of before/after: $bare_rps, $bare2_rps) | $bare_avg | | | | 1.00 | 0 |
| timeline page of 20, single photos | $single_rps | $single_p50 | $single_p99 | 1.00 | $(ratio "$single_rps" "$bare_avg") | $single_err |
| timeline page of 20, a third albums of 5 | $album_rps | $album_p50 | $album_p99 | $(ratio "$album_rps" "$single_rps") | $(ratio "$album_rps" "$bare_avg") | $album_err |

Uploads of a 12-megapixel JPEG (4032 × 3024, Q90, $(( $(wc -c < "$work/photo.jpg") / 1024 )) KiB), one request after another, server pinned to core 0
with its default settings (rate limits off):

| workload | wall s | server peak RSS MB |
|---|---|---|
| ten single-photo posts | $singles_s | $singles_rss |
| one album of $photos (ten uploads, then the post) | $album_s | $album_rss |
REPORT
)
echo
echo "$report"
printf '\n%s\n' "$report" >> Benchmarks/HISTORY.md
