"""Time from a like sent to instance A until a socket on instance B receives it, at a low, paced rate.

Usage: crossinstance.py BASE_A BASE_B TOKEN_FILE COUNT RATE_PER_SECOND
Prints "p50_ms p99_ms max_ms" (the time includes A's whole answer to the PUT; the socket is told as soon as B reads
the change from the change table)."""
import json
import statistics
import sys
import threading
import time

import requests
import websocket

base_a, base_b, token_file, count, rate = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), float(sys.argv[5])
tokens = [line.strip() for line in open(token_file) if line.strip()]
watcher = {"Authorization": "Bearer " + tokens[0]}
liker = {"Authorization": "Bearer " + tokens[1]}
post = 1

ticket = requests.post(base_b + "/api/v1/events/tickets", headers=watcher, timeout=30).json()["ticket"]
socket = websocket.create_connection(base_b.replace("http://", "ws://") + f"/api/v1/events?ticket={ticket}", timeout=30)
socket.recv()  # hello
socket.send(json.dumps({"type": "subscribe", "posts": [post]}))
received: dict[int, float] = {}
ready = threading.Event()


def read():
    while True:
        message = json.loads(socket.recv())
        if message["type"] == "post.snapshot":
            ready.set()
        elif message["type"] in ("post.liked", "post.unliked"):
            received[message["version"]] = time.perf_counter()
            if len(received) >= count:
                return


reader = threading.Thread(target=read, daemon=True)
reader.start()
ready.wait(10)
session = requests.Session()
sent: dict[int, float] = {}
for index in range(count):
    start = time.perf_counter()
    method = session.put if index % 2 == 0 else session.delete
    answer = method(f"{base_a}/api/v1/posts/{post}/like", headers=liker, timeout=30)
    answer.raise_for_status()
    sent[answer.json()["version"]] = start
    time.sleep(max(0.0, 1 / rate - (time.perf_counter() - start)))
reader.join(10)
delays = sorted((received[version] - start) * 1000 for version, start in sent.items() if version in received)
if len(delays) < count:
    print(f"missing {count - len(delays)} deliveries", file=sys.stderr)
    sys.exit(1)
p99 = delays[min(len(delays) - 1, int(len(delays) * 0.99))]
print(f"{statistics.median(delays):.1f} {p99:.1f} {delays[-1]:.1f}")
