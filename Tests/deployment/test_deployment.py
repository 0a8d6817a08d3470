"""Two `makestagram serve` instances on one PostgreSQL database and one shared media folder, behind nginx
(round-robin, WebSocket proxying, no sticky sessions), as docs/deployment.md describes; the PostgreSQL server is the
one the test command started (MAKESTAGRAM_TEST_POSTGRES)."""
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse
import uuid

import pytest
import requests
import websocket

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
from makestagram_server import (ROOT, Server, assert_acknowledged_likes_stored, free_port,  # noqa: E402
                               like_storm, nginx_config, wait_for_derived_activity)

POSTGRES = os.environ.get("MAKESTAGRAM_TEST_POSTGRES")
PHOTO = ROOT / "Tests" / "TestFixtures" / "photos" / "chelsea.jpg"
pytestmark = pytest.mark.skipif(not POSTGRES or not shutil.which("nginx"), reason="needs PostgreSQL and nginx")


@pytest.fixture
def deployment():
    folder = pathlib.Path(tempfile.mkdtemp(prefix="makestagram-deployment-"))
    name = "deploy_" + uuid.uuid4().hex
    subprocess.run(["psql", POSTGRES, "-qc", f"CREATE DATABASE {name}"], check=True)
    url = urllib.parse.urlsplit(POSTGRES)._replace(path="/" + name, query="sslmode=disable").geturl()
    media = str(folder / "shared")
    flags = ["--database", url, "--trusted-proxies", "127.0.0.1", "--rate-limit", "all=off"]
    instances = [Server(*flags, data=media), Server(*flags, data=media)]
    port = free_port()
    (folder / "nginx.conf").write_text(nginx_config(folder, port, [i.port for i in instances]))
    nginx = subprocess.Popen(["nginx", "-c", str(folder / "nginx.conf"), "-g", "daemon off;"],
                             stderr=open(folder / "nginx.log", "w"))
    base = f"http://127.0.0.1:{port}"
    deadline = time.time() + 20
    while True:
        try:
            requests.get(base + "/healthz", timeout=2).raise_for_status()
            break
        except requests.RequestException:
            if time.time() > deadline or nginx.poll() is not None:
                pytest.fail("nginx did not start:\n" + (folder / "nginx.log").read_text())
            time.sleep(0.1)
    try:
        yield base, instances
    finally:
        nginx.terminate()
        nginx.wait(timeout=10)
        for instance in instances:
            instance.stop()
        subprocess.run(["psql", POSTGRES, "-qc", f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"], check=False)
        shutil.rmtree(folder, ignore_errors=True)


def sign_up(base: str, name: str) -> dict:
    answer = requests.post(base + "/api/v1/accounts", timeout=30,
                           json={"username": name, "password": "correct horse", "displayName": name.title()})
    assert answer.status_code == 201, answer.text
    return {"Authorization": "Bearer " + answer.json()["token"]}


def open_socket(base: str, headers: dict):
    ticket = requests.post(base + "/api/v1/events/tickets", headers=headers, timeout=30).json()["ticket"]
    socket = websocket.create_connection(base.replace("http://", "ws://") + f"/api/v1/events?ticket={ticket}",
                                         timeout=20)
    assert json.loads(socket.recv())["type"] == "hello"
    return socket


def next_of(socket, kind: str) -> dict:
    """The next message of a type, skipping others (timeline posts, snapshots of other posts)."""
    while True:
        message = json.loads(socket.recv())
        if message["type"] == kind:
            return message


def live_connections(instance) -> int:
    metrics = requests.get(instance.base + "/metrics", timeout=30).text
    for line in metrics.splitlines():
        if line.startswith("makestagram_live_connections"):
            return int(float(line.split()[-1]))
    return 0


def post_photo(base: str, headers: dict) -> dict:
    with open(PHOTO, "rb") as photo:
        answer = requests.post(base + "/api/v1/posts", headers=headers, files={"image": photo}, timeout=60)
    assert answer.status_code == 201, answer.text
    return answer.json()


def test_changes_through_one_instance_reach_the_other(deployment):
    _, (a, b) = deployment
    alice, bob = sign_up(a.base, "alice"), sign_up(b.base, "bob")
    assert requests.put(a.base + "/api/v1/users/alice/follow", headers=bob, timeout=30).status_code == 200
    # Bob's timeline is read (and kept in memory) on B before Alice posts through A.
    assert requests.get(b.base + "/api/v1/timeline", headers=bob, timeout=30).json()["items"] == []
    socket = open_socket(b.base, bob)

    post = post_photo(a.base, alice)
    created = next_of(socket, "post.created")
    assert created["post"]["id"] == post["id"]
    # The media folder is shared: B serves the file A stored.
    assert requests.get(b.base + post["image"]["full"]["url"], timeout=30).status_code == 200
    timeline = requests.get(b.base + "/api/v1/timeline", headers=bob, timeout=30).json()["items"]
    assert [item["id"] for item in timeline] == [post["id"]]

    socket.send(json.dumps({"type": "subscribe", "posts": [post["id"]]}))
    next_of(socket, "post.snapshot")
    assert requests.put(f"{a.base}/api/v1/posts/{post['id']}/like", headers=alice, timeout=30).status_code == 200
    liked = next_of(socket, "post.liked")
    assert liked["likeCount"] == 1 and liked["likers"] == ["alice"]
    read = requests.get(f"{b.base}/api/v1/posts/{post['id']}", headers=bob, timeout=30).json()
    assert read["likeCount"] == 1

    # A log-out through A: the token fails on B within a second and never works again; B's socket closes.
    requests.delete(a.base + "/api/v1/sessions/current", headers=bob, timeout=30).raise_for_status()
    opcode, frame = socket.recv_data(control_frame=True)
    assert opcode == websocket.ABNF.OPCODE_CLOSE and int.from_bytes(frame[:2], "big") == 4001
    deadline = time.time() + 1
    while requests.get(b.base + "/api/v1/timeline", headers=bob, timeout=30).status_code != 401:
        assert time.time() < deadline, "the token still works on the other instance after a second"
        time.sleep(0.05)
    for _ in range(5):
        for instance in (a, b):
            assert requests.get(instance.base + "/api/v1/timeline", headers=bob, timeout=30).status_code == 401


def test_kill_9_during_a_like_storm_loses_no_acknowledged_like(deployment):
    base, (a, b) = deployment
    alice = sign_up(base, "author")
    post = post_photo(base, alice)
    likers = [sign_up(base, f"liker{index}") for index in range(16)]
    # Two sockets through nginx: round-robin puts one on each instance.
    sockets_ = [open_socket(base, alice), open_socket(base, alice)]
    for socket in sockets_:
        socket.send(json.dumps({"type": "subscribe", "posts": [post["id"]]}))
        next_of(socket, "post.snapshot")

    # The instance holding a socket dies mid-storm.
    victim = max((a, b), key=live_connections)
    assert live_connections(victim) >= 1
    acknowledged, uncertain = like_storm(base, post["id"], likers, 1.5, during=victim.kill, after=1.5)

    # Every like whose last answer was an acknowledgement is stored as acknowledged; the count is exact.
    stored = assert_acknowledged_likes_stored(base, alice, post["id"], acknowledged, uncertain)
    # What is derived from the change log catches up, whichever instance was deriving it when it died.
    wait_for_derived_activity(base, alice, post["id"], len(stored))

    # The socket that was on the killed instance reconnects through nginx to the survivor and catches up.
    closed = 0
    for socket in sockets_:
        try:
            socket.settimeout(3)
            while True:
                opcode, _ = socket.recv_data(control_frame=True)
                if opcode == websocket.ABNF.OPCODE_CLOSE:
                    closed += 1
                    break
        except websocket.WebSocketTimeoutException:
            pass
        except (websocket.WebSocketConnectionClosedException, ConnectionError, OSError):
            closed += 1
    assert closed >= 1, "no socket was on the killed instance"
    socket = open_socket(base, alice)
    socket.send(json.dumps({"type": "subscribe", "posts": [post["id"]]}))
    snapshot = next_of(socket, "post.snapshot")
    assert snapshot["post"]["likeCount"] == len(stored)
    # And live updates flow again: one more like through nginx reaches it.
    requests.delete(f"{base}/api/v1/posts/{post['id']}/like", headers=likers[0], timeout=30)
    requests.put(f"{base}/api/v1/posts/{post['id']}/like", headers=likers[0], timeout=30).raise_for_status()
    final = requests.get(f"{base}/api/v1/posts/{post['id']}", headers=alice, timeout=30).json()["likeCount"]
    deadline = time.time() + 5
    while True:
        message = json.loads(socket.recv())
        if message["type"] == "post.liked" and message["likeCount"] == final:
            break
        assert time.time() < deadline
