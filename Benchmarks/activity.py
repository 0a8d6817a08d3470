"""Time from the answer to a like, comment or follow until the recipient's socket is told their unread count changed.

Usage: activity.py BASE PHOTO COUNT RATE_PER_SECOND
Signs up a recipient and an actor, the recipient posts PHOTO, and the actor then likes, unlikes, comments, deletes the
comment, follows and unfollows, in turn, COUNT actions at RATE a second; each changes the recipient's unread count by
one (an action undone withdraws its unread activity). Activity is derived after commit from the change log, so the
delay measured is the consumer's: from the moment the write's answer arrives until the socket receives
`activity.changed` with the count that action leads to. Run it while the server is under load (postgres.sh runs it
during the toggle benchmark). Prints "p50_ms p99_ms max_ms"."""
import json
import statistics
import sys
import threading
import time
import uuid

import requests
import websocket

base, photo, count, rate = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
suffix = uuid.uuid4().hex[:8]


def sign_up(name):
    answer = requests.post(base + "/api/v1/accounts", timeout=30, json={
        "username": f"{name}{suffix}", "password": "benchmark password", "displayName": name})
    answer.raise_for_status()
    return f"{name}{suffix}", {"Authorization": "Bearer " + answer.json()["token"]}


recipient_name, recipient = sign_up("recipient")
_, actor = sign_up("actor")
with open(photo, "rb") as file:
    post = requests.post(base + "/api/v1/posts", headers=recipient, timeout=60,
                         files={"image": ("photo.jpg", file.read(), "image/jpeg")}).json()["id"]

socket = websocket.create_connection(base.replace("http://", "ws://") + "/api/v1/events", header=[
    "Authorization: " + recipient["Authorization"]], timeout=30)
assert json.loads(socket.recv())["type"] == "hello"
arrivals = []  # (unread count, time)
lock = threading.Condition()


def read():
    while True:
        try:
            message = json.loads(socket.recv())
        except Exception:
            return
        if message["type"] == "activity.changed":
            with lock:
                arrivals.append((message["unreadCount"], time.perf_counter()))
                lock.notify_all()


threading.Thread(target=read, daemon=True).start()
session = requests.Session()
comment = None


def act(index):
    """Performs action `index` and answers the unread count it leads to."""
    global comment
    step = index % 6
    if step == 0:
        session.put(f"{base}/api/v1/posts/{post}/like", headers=actor, timeout=30).raise_for_status()
    elif step == 1:
        session.delete(f"{base}/api/v1/posts/{post}/like", headers=actor, timeout=30).raise_for_status()
    elif step == 2:
        answer = session.post(f"{base}/api/v1/posts/{post}/comments", headers=actor, timeout=30,
                              json={"text": f"comment {index}"})
        answer.raise_for_status()
        comment = answer.json()["id"]
    elif step == 3:
        session.delete(f"{base}/api/v1/comments/{comment}", headers=actor, timeout=30).raise_for_status()
    elif step == 4:
        session.put(f"{base}/api/v1/users/{recipient_name}/follow", headers=actor, timeout=30).raise_for_status()
    else:
        session.delete(f"{base}/api/v1/users/{recipient_name}/follow", headers=actor, timeout=30).raise_for_status()
    return 1 if step % 2 == 0 else 0


delays = []
for index in range(count):
    started = time.perf_counter()
    with lock:
        seen = len(arrivals)
    expected = act(index)
    answered = time.perf_counter()
    with lock:
        # The first message after the action was sent that carries the count it leads to.
        if not lock.wait_for(lambda: any(c == expected for c, _ in arrivals[seen:]), timeout=10):
            print(f"action {index}: no activity.changed with {expected} within 10 s", file=sys.stderr)
            sys.exit(1)
        arrived = next(t for c, t in arrivals[seen:] if c == expected)
    delays.append(max(0.0, arrived - answered) * 1000)
    time.sleep(max(0.0, 1 / rate - (time.perf_counter() - started)))
delays.sort()
p99 = delays[min(len(delays) - 1, int(len(delays) * 0.99))]
print(f"{statistics.median(delays):.1f} {p99:.1f} {delays[-1]:.1f}")
