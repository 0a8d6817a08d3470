#!/usr/bin/env bash
# Photo ingest against libvips' own speed, in one run on the same files and cores: uploads per second and p95 over
# HTTP with 1, 2 and 8 concurrent clients, of a 12-megapixel JPEG (4032 × 3024, EXIF orientation 6, GPS), a phone's
# own 12-megapixel HEIC (a grid of tiles, as phones write them) and the JPEG's photo as a single-picture HEIC (the
# worst case for a HEIC decoder's memory), beside two libvips baselines on the same files with as many processes at
# once:
# - the same work through libvips' own Python binding (pyvips, the system libvips): one decode upright into the
#   1440-wide box, then the four WebP widths, the 1080-wide JPEG and the 320 × 320 crop, encoded exactly as the
#   server encodes them, written to files; the ratio to it is the server's cost over libvips';
# - `vipsthumbnail` making the two JPEG sizes alone (the work the server did before its WebP widths).
# Also the server's peak resident memory, and what a photo above the pixel limit costs it. Prints a table; appends
# it to HISTORY.md. Bounded: about eight minutes after the build.
# Usage: Benchmarks/ingest.sh [uploads per run, default 24]
set -euo pipefail
cd "$(dirname "$0")/.."
uploads="${1:-24}"
bash scripts/install-deps.sh
dpkg -s libvips-tools >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq --no-install-recommends libvips-tools; }
python3 -c 'import pyvips' 2>/dev/null || python3 -m pip install --quiet pyvips \
  || python3 -m pip install --quiet --break-system-packages pyvips
swift build -c release --product makestagram
bin="$(swift build -c release --show-bin-path)/makestagram"

work="$(mktemp -d)"
server_pid=""
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# The inputs: the phone photo (4032 × 2688, orientation 6, GPS) stretched to 12 MP, as JPEG Q90 and as HEIC; libvips
# carries its EXIF (orientation and position) into both.
source="Tests/TestFixtures/photos/phone-gps-rotated.jpg"
vips resize "$source" "$work/photo.v" 1 --vscale 1.125
vips copy "$work/photo.v" "$work/photo.jpg[Q=90]"
vips copy "$work/photo.v" "$work/photo.heic[Q=80]"
# A phone's HEIC: an iPhone 13 Pro photo (4032 × 3024, GPS, camera EXIF, Display P3 profile) stored as phones store
# them, 48 tiles of 512 × 512 under one grid, which libheif decodes tile by tile. It is one of the test images in
# pillow-heif's source release on PyPI.
python3 -m pip download --quiet --no-deps --no-binary :all: pillow-heif==1.8.1 -d "$work/sdist"
tar -xzf "$work/sdist/pillow_heif-1.8.1.tar.gz" -C "$work" --strip-components=4 \
  pillow_heif-1.8.1/tests/images/heif_other/pug.heic
mv "$work/pug.heic" "$work/phone.heic"
echo "1ddce96766efbfa0f6bdf634bdab26bdeff831393df8d67f4cdc7b7a7afebc67  $work/phone.heic" | sha256sum --check --quiet
# A photo above the default pixel limit (50 MP): 10,000 × 6,000, tiny as a file.
vips black "$work/huge.v" 10000 6000
vips copy "$work/huge.v" "$work/huge.jpg[Q=50]"

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
taskset -c 0,1 "$bin" serve --port "$port" --data "$work/data" --log-level notice --rate-limit all=off --max-connections-per-address 1048576 \
  > "$work/server.log" 2>&1 &
server_pid=$!
base="http://127.0.0.1:$port"
for _ in $(seq 1 300); do curl -sf "$base/healthz" > /dev/null && break; sleep 0.1; done

python3 - "$base" "$work" "$server_pid" "$uploads" <<'PY' | tee "$work/table.md"
import concurrent.futures, json, multiprocessing, os, pathlib, shutil, statistics, subprocess, sys, tempfile, threading, time
import urllib.request

base, work, pid, uploads = sys.argv[1], pathlib.Path(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])

def rss_kib():
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0

def call(path, body=None, token=None):
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(base + path, data=json.dumps(body).encode() if body else None, headers=headers)
    return json.load(urllib.request.urlopen(request))

tokens = [call("/api/v1/accounts", {"username": f"ingest{i}", "password": "benchmark password",
                                    "displayName": f"I {i}"})["token"] for i in range(8)]

def body(path):
    data = path.read_bytes()
    boundary = "ingestbench"
    return (f"--{boundary}\r\nContent-Disposition: form-data; name=\"image\"; filename=\"{path.name}\"\r\n\r\n"
            .encode() + data + f"\r\n--{boundary}--\r\n".encode()), f"multipart/form-data; boundary={boundary}"

def upload(payload, kind, token):
    started = time.perf_counter()
    request = urllib.request.Request(base + "/api/v1/posts", data=payload,
                                     headers={"Content-Type": kind, "Authorization": f"Bearer {token}"})
    try:
        urllib.request.urlopen(request).read()
        status = 201
    except urllib.error.HTTPError as error:
        status = error.code
    return time.perf_counter() - started, status

def server_run(path, clients):
    payload, kind = body(path)
    peak = [rss_kib()]
    done = threading.Event()
    def watch():
        while not done.is_set():
            peak[0] = max(peak[0], rss_kib())
            time.sleep(0.02)
    watcher = threading.Thread(target=watch)
    watcher.start()
    started = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(clients) as pool:
        results = list(pool.map(lambda i: upload(payload, kind, tokens[i % clients]), range(uploads)))
    elapsed = time.perf_counter() - started
    done.set()
    watcher.join()
    times = sorted(t for t, status in results if status == 201)
    failed = sum(1 for _, status in results if status != 201)
    p95 = times[max(0, int(len(times) * 0.95) - 1)] if times else float("nan")
    return len(times) / elapsed, p95 * 1000, failed, peak[0]

def same_work(args):
    # PhotoProcessor's pipeline, call for call (Sources/Photos/PhotoProcessor.swift and CVips/shim.h).
    import pyvips
    path, out, index = args
    started = time.perf_counter()
    base = pyvips.Image.thumbnail_buffer(pathlib.Path(path).read_bytes(), 1440, height=10_000_000, size="down",
                                         option_string="fail_on=truncated")
    if base.hasalpha():
        base = base.flatten(background=[255, 255, 255])
    base = base.colourspace("srgb").cast("uchar").copy_memory()
    outputs = [(base.thumbnail_image(width, height=10_000_000, size="down")
                .webpsave_buffer(Q=80, strip=True, effort=4), "webp") for width in (320, 640, 1080, 1440)]
    jpeg = dict(Q=82, strip=True, optimize_coding=True, interlace=True)
    outputs.append((base.thumbnail_image(1080, height=10_000_000, size="down").jpegsave_buffer(**jpeg), "jpg"))
    outputs.append((base.thumbnail_image(320, height=320, size="both", crop="attention").jpegsave_buffer(**jpeg),
                    "jpg"))
    for number, (data, extension) in enumerate(outputs):
        pathlib.Path(out, f"{index}-{number}.{extension}").write_bytes(data)
    return time.perf_counter() - started

def same_work_run(path, processes):
    out = pathlib.Path(tempfile.mkdtemp(dir=work))
    with multiprocessing.get_context("fork").Pool(processes) as pool:
        pool.map(same_work, [(str(path), str(out), -1 - i) for i in range(processes)])  # imports and warms up
        started = time.perf_counter()
        times = sorted(pool.map(same_work, [(str(path), str(out), i) for i in range(uploads)], chunksize=1))
        elapsed = time.perf_counter() - started
    shutil.rmtree(out)
    return uploads / elapsed, times[max(0, int(len(times) * 0.95) - 1)] * 1000

def vips_run(path, processes):
    # What the server does to a photo, with libvips' own tool: decode, rotate upright, strip metadata, and two
    # sizes (two vipsthumbnail calls, each decoding once, as the server decodes once for all its sizes).
    out = pathlib.Path(tempfile.mkdtemp(dir=work))
    def one(index):
        started = time.perf_counter()
        for size, extra in (("1080x", []), ("320x320", ["--smartcrop", "centre"])):
            subprocess.run(["vipsthumbnail", str(path), "-s", size, *extra, "-o",
                            str(out / f"{index}-{size}.jpg[Q=82,strip]")], check=True)
        return time.perf_counter() - started
    started = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(processes) as pool:
        times = sorted(pool.map(one, range(uploads)))
    elapsed = time.perf_counter() - started
    shutil.rmtree(out)
    return uploads / elapsed, times[max(0, int(len(times) * 0.95) - 1)] * 1000

print("| photo | clients | server uploads/s | p95 ms | libvips, same work: photos/s | p95 ms | ratio | "
      "vipsthumbnail, 2 JPEGs: photos/s | ratio | server peak RSS |")
print("|---|---|---|---|---|---|---|---|---|---|")
labels = {"photo.jpg": "JPG 12 MP", "phone.heic": "HEIC 12 MP from a phone (grid)",
          "photo.heic": "HEIC 12 MP, one picture"}
for name, label in labels.items():
    path = work / name
    for clients in (1, 2, 8):
        rate, p95, failed, peak = server_run(path, clients)
        same_rate, same_p95 = same_work_run(path, clients)
        vips_rate, _ = vips_run(path, clients)
        note = f" ({failed} failed)" if failed else ""
        print(f"| {label} | {clients} | {rate:.2f}{note} | {p95:.0f} | {same_rate:.2f} | "
              f"{same_p95:.0f} | {rate / same_rate:.2f} | {vips_rate:.2f} | {rate / vips_rate:.2f} | "
              f"{peak / 1024:.0f} MiB |")

before = rss_kib()
payload, kind = body(work / "huge.jpg")
elapsed, status = upload(payload, kind, tokens[0])
print()
print(f"A 60-megapixel JPEG ({len(payload) // 1024} KiB) above the 50 MP limit: answered {status} in "
      f"{elapsed * 1000:.0f} ms; server RSS {before / 1024:.0f} → {rss_kib() / 1024:.0f} MiB (never decoded).")
PY

{
  echo
  echo "## Photo ingest — $(date -u +%Y-%m-%d), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
  echo
  echo "Benchmarks/ingest.sh: $uploads uploads per run over HTTP (release build, server on both cores, image concurrency"
  echo "= cores), beside libvips $(vips --version | cut -d- -f2) on the same files with as many processes at once: the"
  echo "server's own pipeline through pyvips (one decode; four WebP widths, the 1080-wide JPEG and the 320 × 320 crop"
  echo "encoded as the server encodes them), and vipsthumbnail making the two JPEG sizes alone."
  echo
  cat "$work/table.md"
} >> Benchmarks/HISTORY.md
