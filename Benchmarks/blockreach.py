"""How soon a block reaches what the blocked person has open on another instance: their live socket (closed with
"load again", 4000) and what that instance serves them from its caches (the blocker's post page, the blocker's
profile, their own home timeline, which held the blocker's post). Baseline, in the same run: a like through
instance A until a socket on instance B has it (the change log's propagation between instances).

Usage: blockreach.py BASE_A BASE_B TRIALS
Prints "socket_p50 socket_p99 socket_max pages_p50 pages_p99 pages_max like_p50 like_p99 like_max" in milliseconds,
each from the answer of the write on A."""
import json
import statistics
import sys
import threading
import time

import requests
import websocket

base_a, base_b, trials = sys.argv[1], sys.argv[2], int(sys.argv[3])
PHOTO = sys.argv[4] if len(sys.argv) > 4 else None


def sign_up(base: str, name: str) -> dict:
    answer = requests.post(base + "/api/v1/accounts", timeout=30,
                           json={"username": name, "password": "benchmark password", "displayName": name})
    answer.raise_for_status()
    return {"Authorization": "Bearer " + answer.json()["token"]}


def socket_on(base: str, who: dict):
    ticket = requests.post(base + "/api/v1/events/tickets", headers=who, timeout=30).json()["ticket"]
    sock = websocket.create_connection(base.replace("http://", "ws://") + f"/api/v1/events?ticket={ticket}",
                                       timeout=30)
    assert json.loads(sock.recv())["type"] == "hello"
    return sock


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


socket_ms, pages_ms, like_ms = [], [], []
with open(PHOTO, "rb") as f:
    photo = f.read()
for trial in range(trials):
    blocker = sign_up(base_a, f"reachbea{trial}")
    blocked = sign_up(base_b, f"reachbo{trial}")
    requests.put(f"{base_b}/api/v1/users/reachbea{trial}/follow", headers=blocked, timeout=30).raise_for_status()
    post = requests.post(f"{base_a}/api/v1/posts", headers=blocker, files={"image": ("p.jpg", photo, "image/jpeg")},
                         data={"caption": "reach"}, timeout=60).json()
    # What B serves the blocked person, read once so that B's caches hold it.
    pages = [f"{base_b}/api/v1/posts/{post['id']}", f"{base_b}/api/v1/users/reachbea{trial}"]
    for _ in range(50):
        timeline = requests.get(f"{base_b}/api/v1/timeline", headers=blocked, timeout=30).json()["items"]
        if any(p["id"] == post["id"] for p in timeline):
            break
        time.sleep(0.02)
    for page in pages:
        requests.get(page, headers=blocked, timeout=30).raise_for_status()
    sock = socket_on(base_b, blocked)
    sock.send(json.dumps({"type": "subscribe", "posts": [post["id"]]}))
    sock.recv()  # subscribed
    sock.recv()  # snapshot

    # Baseline: a like through A reaching B's socket.
    liker = sign_up(base_a, f"reachcy{trial}")
    sent = time.monotonic()
    requests.put(f"{base_a}/api/v1/posts/{post['id']}/like", headers=liker, timeout=30).raise_for_status()
    answered = time.monotonic()
    while json.loads(sock.recv())["type"] != "post.liked":
        pass
    like_ms.append((time.monotonic() - answered) * 1000)

    closed = {}

    def watch():
        while True:
            opcode, frame = sock.recv_data(control_frame=True)
            if opcode == websocket.ABNF.OPCODE_CLOSE:
                closed["at"] = time.monotonic()
                closed["code"] = int.from_bytes(frame[:2], "big")
                return

    watcher = threading.Thread(target=watch)
    watcher.start()
    requests.put(f"{base_a}/api/v1/users/reachbo{trial}/block", headers=blocker, timeout=30).raise_for_status()
    answered = time.monotonic()
    # B's pages: each answers 404, and the timeline no longer holds the post.
    while True:
        gone = all(requests.get(page, headers=blocked, timeout=30).status_code == 404 for page in pages)
        timeline = requests.get(f"{base_b}/api/v1/timeline", headers=blocked, timeout=30).json()["items"]
        if gone and not any(p["id"] == post["id"] for p in timeline):
            pages_ms.append((time.monotonic() - answered) * 1000)
            break
        if time.monotonic() - answered > 10:
            raise SystemExit(f"trial {trial}: B still served the blocker after 10 s")
    watcher.join(10)
    assert closed.get("code") == 4000, closed
    socket_ms.append(max(0.0, (closed["at"] - answered) * 1000))
    sock.close()

print(" ".join(f"{value:.1f}" for value in (
    statistics.median(socket_ms), pct(socket_ms, 0.99), max(socket_ms),
    statistics.median(pages_ms), pct(pages_ms, 0.99), max(pages_ms),
    statistics.median(like_ms), pct(like_ms, 0.99), max(like_ms))))
