"""A hostile client's view of the server, each against a server of its own: too many connections under a low
open-file limit, clients that send slowly or never, malformed framing, `Expect: 100-continue` through curl, WebSocket
protocol errors, a subscribe flood, and writes that are on disk before they are acknowledged (traced with strace)."""
import json
import os
import pathlib
import re
import shutil
import socket
import struct
import subprocess
import threading
import time

import pytest
import requests
import websocket

from makestagram_server import ROOT, Server

PHOTOS = ROOT / "Tests" / "TestFixtures" / "photos"


@pytest.fixture
def start():
    servers = []

    def make(*flags, prefix="exec"):
        server = Server(*flags, prefix=prefix)
        servers.append(server)
        return server

    yield make
    for server in servers:
        server.stop()


def connect(server: Server) -> socket.socket:
    return socket.create_connection(("127.0.0.1", server.port), timeout=30)


def read_until_closed(sock: socket.socket, limit: float = 30) -> tuple[bytes, float]:
    """Everything the server sends until it closes, and how long that took."""
    sock.settimeout(limit)
    started = time.time()
    received = b""
    try:
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                break
            received += chunk
    except (socket.timeout, ConnectionResetError):
        pass
    return received, time.time() - started


def test_more_connections_than_the_descriptor_limit_allows_leave_the_server_up(start):
    # Every connection comes from one address here: its own cap is lifted, so that the server-wide one is reached.
    server = start("--max-connections-per-address", "1000", prefix="ulimit -n 96; exec")
    held = []
    refused = 0
    for _ in range(110):
        try:
            sock = connect(server)
            held.append(sock)
        except OSError:
            refused += 1
    time.sleep(1)
    # Beyond the cap the server answers 503 and closes at once instead of running out of descriptors.
    closed_at_once = 0
    for sock in held:
        sock.settimeout(0.2)
        try:
            data = sock.recv(4096)
            if data.startswith(b"HTTP/1.1 503") or data == b"":
                closed_at_once += 1
        except (socket.timeout, ConnectionResetError):
            pass
    assert closed_at_once + refused >= 110 - 96, f"{closed_at_once} refused of {len(held)}"
    assert server.process.poll() is None, server.log_path.read_text()
    for sock in held:
        sock.close()
    time.sleep(0.5)
    assert requests.get(server.base + "/healthz", timeout=10).json() == {"status": "ok"}
    assert server.process.poll() is None


def request_from(source: str, server: Server, path: str = "/healthz") -> bytes:
    """A whole request sent from the loopback address `source`, and the answer's first bytes."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=10, source_address=(source, 0)) as sock:
        sock.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
        return read_until_closed(sock, 10)[0]


def test_one_address_cannot_take_every_connection(start):
    server = start("--max-connections", "60", "--max-connections-per-address", "10", "--header-timeout", "30")
    held = []
    for _ in range(40):
        sock = socket.create_connection(("127.0.0.1", server.port), timeout=10, source_address=("127.0.0.2", 0))
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")  # half a head, held open
        held.append(sock)
    time.sleep(0.5)
    refusals = []
    for sock in held:
        sock.settimeout(0.3)
        try:
            refusals.append(sock.recv(4096))
        except socket.timeout:
            pass
    assert len(refusals) == 30 and all(answer.startswith(b"HTTP/1.1 429") for answer in refusals), refusals[:2]
    assert all(b"Retry-After: 1" in answer for answer in refusals)
    # Everyone else is served while the ten are held.
    for source in ("127.0.0.3", "127.0.0.4", "127.0.0.1"):
        assert request_from(source, server).startswith(b"HTTP/1.1 200"), source
    for sock in held:
        sock.close()
    time.sleep(0.5)
    assert request_from("127.0.0.2", server).startswith(b"HTTP/1.1 200"), "closed connections are given back"


def test_a_trusted_proxys_connections_are_not_capped_as_one_address(start):
    server = start("--max-connections-per-address", "5", "--trusted-proxies", "127.0.0.5", "--header-timeout", "30")
    held = [socket.create_connection(("127.0.0.1", server.port), timeout=10, source_address=("127.0.0.5", 0))
            for _ in range(12)]
    for sock in held:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
    assert request_from("127.0.0.5", server).startswith(b"HTTP/1.1 200"), "the proxy's thirteenth is served"
    for sock in held:
        sock.close()


def test_clients_that_send_slowly_or_never_are_timed_out(start):
    server = start("--header-timeout", "2", "--idle-timeout", "3", "--min-upload-rate", "1000")
    # A connection that sends nothing is closed without an answer.
    silent, _ = read_until_closed(connect(server))
    assert silent == b""
    # Half a request head gets 408.
    half = connect(server)
    half.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
    answer, _ = read_until_closed(half)
    assert answer.startswith(b"HTTP/1.1 408 "), answer
    assert b'"code":"request_timeout"' in answer
    # A kept-alive connection that goes quiet is closed after the idle timeout, not before its first answer.
    idle = connect(server)
    idle.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
    answer, _ = read_until_closed(idle)
    assert answer.startswith(b"HTTP/1.1 200 ") and answer.endswith(b'{"status":"ok"}'), answer
    # A body trickled below the minimum rate is cut off with 408.
    slow = connect(server)
    slow.sendall(b"POST /api/v1/sessions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                 b"Content-Length: 60000\r\n\r\n{")

    def trickle():
        try:
            for _ in range(60):
                time.sleep(0.5)
                slow.sendall(b" ")
        except OSError:
            pass

    threading.Thread(target=trickle, daemon=True).start()
    answer, _ = read_until_closed(slow)
    assert answer.startswith(b"HTTP/1.1 408 "), answer
    # A body the server refused at once (too large) is not answered twice when it then trickles.
    refused = connect(server)
    refused.sendall(b"POST /api/v1/sessions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                    b"Content-Length: 100000\r\n\r\n{")
    answer, _ = read_until_closed(refused)
    assert answer.startswith(b"HTTP/1.1 413 ") and answer.count(b"HTTP/1.1") == 1, answer
    assert requests.get(server.base + "/healthz", timeout=10).status_code == 200


def test_malformed_framing_is_answered_400_and_closed(start):
    server = start()
    for request in [
        b"GET /healthz HTTP/1.1\nHost: x\n\n",
        b"POST /api/v1/sessions HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n"
        b"0\r\n\r\n",
    ]:
        sock = connect(server)
        sock.sendall(request)
        answer, _ = read_until_closed(sock, limit=10)
        assert answer.startswith(b"HTTP/1.1 400 "), (request, answer)
        assert b"application/problem+json" in answer
    # The same after a request that was answered.
    sock = connect(server)
    sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
    time.sleep(0.3)
    sock.sendall(b"GET /healthz HTTP/1.1\nHost: x\n\n")
    answer, _ = read_until_closed(sock, limit=10)
    assert answer.startswith(b"HTTP/1.1 200 ") and b"\r\n\r\nHTTP/1.1 400 " in answer.replace(b"}HTTP", b"}\r\n\r\nHTTP"), answer


def test_curl_uploads_get_100_continue_and_refusals_come_before_the_body(start, tmp_path):
    server = start()
    token = server.sign_up("curly")
    # curl asks for 100-continue for bodies over 1 MB; trailing bytes after a JPEG's end are ignored by decoders.
    photo = tmp_path / "big.jpg"
    photo.write_bytes((PHOTOS / "phone-gps-rotated.jpg").read_bytes() + b"\0" * 300_000)

    def curl(*args):
        return subprocess.run(["curl", "-sv", "-o", "/dev/null", "-w", "%{http_code}", *args],
                              capture_output=True, text=True, timeout=60)

    accepted = curl(server.base + "/api/v1/posts", "-H", f"Authorization: Bearer {token}",
                    "-F", f"image=@{photo}", "-F", "caption=big")
    assert "> Expect: 100-continue" in accepted.stderr
    assert "< HTTP/1.1 100 Continue" in accepted.stderr
    assert accepted.stdout == "201"
    refused = curl(server.base + "/api/v1/posts", "-H", "Authorization: Bearer wrong", "-F", f"image=@{photo}")
    assert "> Expect: 100-continue" in refused.stderr
    assert "100 Continue" not in refused.stderr
    assert refused.stdout == "401"
    too_big = curl(server.base + "/api/v1/posts", "-H", f"Authorization: Bearer {token}",
                   "-H", "Content-Type: image/jpeg", "--data-binary", f"@{photo}")
    assert "100 Continue" not in too_big.stderr and too_big.stdout == "415"


def ws_connect(server: Server, token: str) -> socket.socket:
    sock = connect(server)
    sock.sendall(
        b"GET /api/v1/events HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
        + f"Authorization: Bearer {token}\r\n\r\n".encode())
    head = b""
    while b"\r\n\r\n" not in head:
        head += sock.recv(1)
    assert head.startswith(b"HTTP/1.1 101 "), head
    return sock


def frame(payload: bytes, opcode: int = 1, masked: bool = True) -> bytes:
    header = bytes([0x80 | opcode])
    length = len(payload)
    mask_bit = 0x80 if masked else 0
    if length < 126:
        header += bytes([mask_bit | length])
    else:
        header += bytes([mask_bit | 126]) + struct.pack("!H", length)
    if not masked:
        return header + payload
    key = os.urandom(4)
    return header + key + bytes(b ^ key[i % 4] for i, b in enumerate(payload))


def close_code(sock: socket.socket) -> int | None:
    """The status code of the server's close frame, reading past other frames."""
    data, _ = read_until_closed(sock, limit=15)
    while len(data) >= 2:
        opcode, length = data[0] & 0x0F, data[1] & 0x7F
        offset = 2
        if length == 126:
            length, offset = struct.unpack("!H", data[2:4])[0], 4
        elif length == 127:
            length, offset = struct.unpack("!Q", data[2:10])[0], 10
        payload = data[offset:offset + length]
        if opcode == 8:
            return struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else None
        data = data[offset + length:]
    return None


def test_websocket_protocol_errors_close_with_their_codes(start):
    server = start()
    token = server.sign_up("socky")
    unmasked = ws_connect(server, token)
    unmasked.sendall(frame(b'{"type":"subscribe","posts":[1]}', masked=False))
    assert close_code(unmasked) == 1002
    invalid = ws_connect(server, token)
    invalid.sendall(frame(b"\xff\xfe not utf-8"))
    assert close_code(invalid) == 1007
    # A well-formed client is unaffected.
    fine = ws_connect(server, token)
    fine.sendall(frame(b'{"type":"subscribe","posts":[]}'))
    fine.settimeout(5)
    assert b"hello" in fine.recv(4096)


def test_a_subscribe_flood_is_slowed_and_others_are_served(start):
    server = start()
    flooder = server.sign_up("flooder")
    reader = server.sign_up("reader")
    headers = {"Authorization": f"Bearer {reader}"}
    post = requests.post(server.base + "/api/v1/posts", headers=headers, timeout=30,
                         files={"image": ("c.jpg", (PHOTOS / "chelsea.jpg").read_bytes(), "image/jpeg")}).json()
    ids = list(range(post["id"], post["id"] + 500))
    socket_ = websocket.create_connection(f"ws://127.0.0.1:{server.port}/api/v1/events",
                                          header=[f"Authorization: Bearer {flooder}"], timeout=30)
    assert json.loads(socket_.recv())["type"] == "hello"
    for _ in range(400):
        socket_.send(json.dumps({"type": "subscribe", "posts": ids}))
        socket_.send(json.dumps({"type": "unsubscribe", "posts": ids}))
    for _ in range(20):
        assert requests.get(server.base + "/api/v1/timeline", headers=headers, timeout=30).status_code == 200
    codes = set()
    socket_.settimeout(5)
    try:
        while "rate_limited" not in codes:
            message = json.loads(socket_.recv())
            if message["type"] == "error":
                codes.add(message["code"])
    except (websocket.WebSocketTimeoutException, websocket.WebSocketConnectionClosedException):
        pass
    assert "rate_limited" in codes
    socket_.close()
    assert server.process.poll() is None


def test_too_many_sockets_for_one_user_are_refused(start):
    server = start("--rate-limit", "sockets=3/m")
    token = server.sign_up("greedy")
    opened = [websocket.create_connection(f"ws://127.0.0.1:{server.port}/api/v1/events",
                                          header=[f"Authorization: Bearer {token}"], timeout=10) for _ in range(4)]
    # Each connection is counted once its upgrade is handled, which may be in another order than they were opened:
    # three of the four are welcomed, one is closed with 1013 "try again later".
    first = [sock.recv_data(control_frame=True) for sock in opened]
    welcomed = [data for opcode, data in first if opcode == websocket.ABNF.OPCODE_TEXT]
    refused = [data for opcode, data in first if opcode == websocket.ABNF.OPCODE_CLOSE]
    assert [json.loads(data)["type"] for data in welcomed] == ["hello"] * 3, first
    assert [struct.unpack("!H", data[:2])[0] for data in refused] == [1013], first
    for sock in opened:
        sock.close()


TRACE_LINE = re.compile(r"^(\d+)\s+(\d+\.\d+)\s+(.*)$")


def traced_calls(path: pathlib.Path):
    """(finish time, call, first argument, text) of every traced system call, joining unfinished/resumed pairs."""
    pending = {}
    for line in path.read_text(errors="replace").splitlines():
        match = TRACE_LINE.match(line)
        if not match:
            continue
        pid, stamp, rest = match.group(1), float(match.group(2)), match.group(3)
        if rest.endswith("<unfinished ...>"):
            pending[pid] = rest
            continue
        resumed = re.match(r"<\.\.\. (\w+) resumed>(.*)", rest)
        if resumed:
            rest = pending.pop(pid, resumed.group(1) + "(") + resumed.group(2)
        call = re.match(r"(\w+)\((.*)", rest)
        if call:
            yield stamp, call.group(1), call.group(2)


def test_acknowledged_writes_are_on_disk_before_the_answer(start, tmp_path):
    assert shutil.which("strace"), "strace is installed by scripts/install-deps.sh --test"
    trace = tmp_path / "trace.txt"
    server = start(prefix=f"exec strace -f -y -ttt -s 48 -e trace=fsync,fdatasync,write,writev,sendmsg -o {trace}")
    token = server.sign_up("durable")
    headers = {"Authorization": f"Bearer {token}"}
    before_upload = time.time()
    photo = requests.post(server.base + "/api/v1/posts", headers=headers, timeout=60,
                          files={"image": ("c.jpg", (PHOTOS / "chelsea.jpg").read_bytes(), "image/jpeg")}).json()
    time.sleep(0.5)
    before_like = time.time()
    assert requests.put(f"{server.base}/api/v1/posts/{photo['id']}/like", headers=headers, timeout=30).ok
    time.sleep(0.5)
    calls = list(traced_calls(trace))

    def answer_after(moment: float, status: str):
        return next(stamp for stamp, name, args in calls
                    if stamp > moment and name in ("write", "writev", "sendmsg") and ("TCP" in args or "socket:[" in args)
                    and f"HTTP/1.1 {status}" in args)

    def synced_between(start_, end, path_part):
        return any(start_ < stamp < end and name in ("fsync", "fdatasync") and path_part in args
                   for stamp, name, args in calls)

    like_answer = answer_after(before_like, "200")
    assert synced_between(before_like, like_answer, "makestagram.sqlite-wal>"), \
        "the like's commit must reach the disk before its answer"
    # The upload: both photo files and the media folder, then the row, then the 201.
    upload_answer = answer_after(before_upload, "201")
    media = [stamp for stamp, name, args in calls
             if name in ("fsync", "fdatasync") and "/media/" in args and before_upload < stamp < upload_answer]
    folder = [stamp for stamp, name, args in calls
              if name in ("fsync", "fdatasync") and args.split(">")[0].endswith("/media")
              and before_upload < stamp < upload_answer]
    assert len(media) >= 2 and folder, "photo files and their folder are flushed before the post is answered"


def test_per_message_deflate_is_declined_and_frames_stay_plain(start):
    """The live engine writes finished frames straight to the socket; a negotiated extension would have to
    transform each one, so the server declines per-message deflate (RFC 7692 lets it) and a client that offers it
    gets plain frames it can read."""
    server = start()
    token = server.sign_up("deflater")
    sock = connect(server)
    sock.sendall(
        b"GET /api/v1/events HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
        b"Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n"
        + f"Authorization: Bearer {token}\r\n\r\n".encode())
    head = b""
    while b"\r\n\r\n" not in head:
        head += sock.recv(1)
    assert head.startswith(b"HTTP/1.1 101 ")
    assert b"sec-websocket-extensions" not in head.lower(), head
    sock.settimeout(10)
    data = b""

    def need(count):
        nonlocal data
        while len(data) < count:
            data += sock.recv(4096)

    need(2)
    assert data[0] & 0x70 == 0, "RSV1 would mark a compressed frame"
    assert data[0] & 0x0F == 1 and data[1] & 0x80 == 0
    length, offset = data[1] & 0x7F, 2
    if length == 126:
        need(4)
        length, offset = struct.unpack("!H", data[2:4])[0], 4
    need(offset + length)
    assert json.loads(data[offset:offset + length])["type"] == "hello"


def test_an_upload_cut_off_half_way_publishes_nothing(start):
    """A client that cancels an upload (or loses its connection) before the whole body arrived leaves no post, no
    file and no error behind; the next upload works."""
    server = start()
    token = server.sign_up("ann")
    photo = (PHOTOS / "hubble.jpg").read_bytes()
    boundary = "----cut-off-upload"
    body = (
        f"--{boundary}\r\nContent-Disposition: form-data; name=\"caption\"\r\n\r\nhalf\r\n"
        f"--{boundary}\r\nContent-Disposition: form-data; name=\"image\"; filename=\"a.jpg\"\r\n"
        f"Content-Type: image/jpeg\r\n\r\n"
    ).encode() + photo + f"\r\n--{boundary}--\r\n".encode()
    media = server.folder / "data" / "media"
    files_before = set(media.iterdir())
    for fraction in (0.05, 0.5, 0.99):
        sock = connect(server)
        sock.sendall(
            (f"POST /api/v1/posts HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n"
             f"Content-Type: multipart/form-data; boundary={boundary}\r\nContent-Length: {len(body)}\r\n\r\n").encode()
            + body[: int(len(body) * fraction)])
        time.sleep(0.3)
        sock.close()
    time.sleep(1)
    headers = {"Authorization": f"Bearer {token}"}
    posts = requests.get(f"{server.base}/api/v1/users/ann/posts", headers=headers, timeout=10).json()
    assert posts["items"] == [], "nothing was published"
    assert set(media.iterdir()) == files_before, "no file was left behind"
    with open(PHOTOS / "hubble.jpg", "rb") as whole:
        answer = requests.post(f"{server.base}/api/v1/posts", headers=headers, files={"image": whole}, timeout=30)
    assert answer.status_code == 201


def test_a_multipart_header_name_outside_ascii_is_refused_and_the_server_serves_on(start):
    """MultipartKit traps on such a byte in a part's header name: one upload must not end the server."""
    server = start("--rate-limit", "posts=off")
    headers = {"Authorization": f"Bearer {server.sign_up('nora')}"}
    photo = (PHOTOS / "chelsea.jpg").read_bytes()
    boundary = "f269af68c17526eb3f3d5ad404a728bd"
    bodies = [
        # A header line with no colon, all of it high bytes (what a fuzzer sent), and a name with one such byte
        # in a part after a well-formed one.
        f"--{boundary}\r\n".encode() + "ö\u0092Ëè".encode() + f"--{boundary}--\r\n".encode(),
        (f"--{boundary}\r\nContent-Disposition: form-data; name=\"caption\"\r\n\r\nhi\r\n--{boundary}\r\n"
         ).encode() + b"Content-Typ\xe9: image/jpeg\r\n\r\n" + photo + f"\r\n--{boundary}--\r\n".encode(),
    ]
    for body in bodies:
        answer = requests.post(f"{server.base}/api/v1/posts", data=body, timeout=30, headers={
            **headers, "Content-Type": f"multipart/form-data; boundary={boundary}"})
        assert answer.status_code == 400 and answer.json()["code"] == "malformed_body", answer.text
    # Names and values with UTF-8 where they may have it (a file name) still work.
    answer = requests.post(f"{server.base}/api/v1/posts", headers=headers, timeout=30,
                           files={"image": ("café.jpg", photo, "image/jpeg")}, data={"caption": "Café ☕"})
    assert answer.status_code == 201, answer.text
    assert server.process.poll() is None


def open_sse(server: Server, token: str) -> tuple[requests.Response, threading.Event]:
    """A Mastodon user stream read on a thread of its own; the event is set when the server ends it."""
    response = requests.get(server.base + "/api/v1/streaming/user", headers={"Authorization": f"Bearer {token}"},
                            stream=True, timeout=(5, 30))
    assert response.status_code == 200, response.text
    ended = threading.Event()

    def read():
        try:
            for _ in response.iter_content(chunk_size=None):
                pass
        except Exception:
            pass
        ended.set()

    threading.Thread(target=read, daemon=True).start()
    return response, ended


def test_mastodon_streams_end_within_a_second_when_their_session_does(start):
    server = start("--rate-limit", "all=off")
    data = server.folder / "data"
    password = {"password": "correct horse"}

    def session(name: str) -> str:
        answer = requests.post(server.base + "/api/v1/sessions", json={"username": name, **password}, timeout=10)
        assert answer.status_code == 200, answer.text
        return answer.json()["token"]

    def ends(token: str, action) -> float:
        _, ended = open_sse(server, token)
        time.sleep(0.3)
        assert not ended.is_set()
        started = time.time()
        action()
        assert ended.wait(5), "the stream is still open"
        return time.time() - started

    server.sign_up("leaver")
    token = session("leaver")
    waits = [ends(token, lambda: requests.delete(server.base + "/api/v1/sessions/current",
                                                 headers={"Authorization": f"Bearer {token}"}, timeout=10))]
    token, other = session("leaver"), session("leaver")
    waits.append(ends(other, lambda: requests.post(
        server.base + "/api/v1/me/password", headers={"Authorization": f"Bearer {token}"}, timeout=10,
        json={"currentPassword": "correct horse", "newPassword": "another fine horse"})))
    password = {"password": "another fine horse"}
    server.sign_up("warden")
    granted = subprocess.run([os.environ.get("MAKESTAGRAM_BIN", str(ROOT / ".build/debug/makestagram")), "admin",
                              "grant", "warden", "--data", str(data)], capture_output=True, text=True)
    assert granted.returncode == 0, granted.stderr
    moderator = requests.post(server.base + "/api/v1/sessions", timeout=10,
                              json={"username": "warden", "password": "correct horse"}).json()["token"]
    token = session("leaver")
    waits.append(ends(token, lambda: requests.post(
        server.base + "/api/v1/moderation/users/leaver/suspend", headers={"Authorization": f"Bearer {moderator}"},
        json={"reason": "spam"}, timeout=10)))
    assert all(wait < 1 for wait in waits), waits


def raw_sse(server: Server, token: str) -> tuple[socket.socket, bytes]:
    """A Mastodon user stream on a plain socket (closed at once when the test says so), and its status line."""
    sock = connect(server)
    sock.sendall(f"GET /api/v1/streaming/user HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n\r\n".encode())
    head = b""
    while b"\r\n" not in head:
        head += sock.recv(4096)
    return sock, head.split(b"\r\n")[0]


def test_every_stream_of_a_user_counts_against_one_cap(start):
    server = start("--rate-limit", "sockets=100/m")
    token = server.sign_up("streamer")
    sockets = [websocket.create_connection(f"ws://127.0.0.1:{server.port}/api/v1/events",
                                           header=[f"Authorization: Bearer {token}"], timeout=10) for _ in range(10)]
    for sock in sockets:
        assert json.loads(sock.recv())["type"] == "hello"
    streams = [raw_sse(server, token) for _ in range(5)]
    assert all(status.endswith(b" 200 OK") for _, status in streams), streams
    mastodon = [websocket.create_connection(f"ws://127.0.0.1:{server.port}/api/v1/streaming?stream=user",
                                            header=[f"Authorization: Bearer {token}"], timeout=10) for _ in range(5)]
    time.sleep(0.5)
    # Twenty open: the next of each kind is refused.
    refused, status = raw_sse(server, token)
    assert b" 429 " in status, status
    refused.close()
    extra = websocket.create_connection(f"ws://127.0.0.1:{server.port}/api/v1/events",
                                        header=[f"Authorization: Bearer {token}"], timeout=10)
    opcode, data = extra.recv_data(control_frame=True)
    assert opcode == websocket.ABNF.OPCODE_CLOSE and struct.unpack("!H", data[:2])[0] == 1013
    extra_mastodon = websocket.create_connection(f"ws://127.0.0.1:{server.port}/api/v1/streaming?stream=user",
                                                 header=[f"Authorization: Bearer {token}"], timeout=10)
    opcode, data = extra_mastodon.recv_data(control_frame=True)
    assert opcode == websocket.ABNF.OPCODE_CLOSE and struct.unpack("!H", data[:2])[0] == 1013
    # A client that goes away gives its place back at once (not at the stream's next heartbeat, 15 s later).
    streams[0][0].close()
    time.sleep(0.5)
    again, status = raw_sse(server, token)
    assert status.endswith(b" 200 OK"), status
    for item in sockets + mastodon:
        item.close()
    for sock, _ in streams[1:] + [(again, b"")]:
        sock.close()


def test_text_that_is_not_utf8_is_refused_wherever_it_enters_and_nothing_changes(start):
    server = start("--rate-limit", "all=off")
    token = server.sign_up("writer")
    auth = {"Authorization": f"Bearer {token}"}
    api = server.base + "/api/v1"
    requests.patch(api + "/me", headers=auth, json={"bio": "Kept as it is"}, timeout=10).raise_for_status()
    post = requests.post(api + "/posts", headers=auth, timeout=30, files={
        "image": ("c.jpg", (PHOTOS / "chelsea.jpg").read_bytes(), "image/jpeg")}).json()
    bad = b"caf\xe9 \xff\xfe"
    json_headers = {**auth, "Content-Type": "application/json"}
    form_headers = {**auth, "Content-Type": "application/x-www-form-urlencoded"}
    refusals = {
        "JSON bio": requests.patch(api + "/me", headers=json_headers, data=b'{"bio": "' + bad + b'"}'),
        "JSON comment": requests.post(api + f"/posts/{post['id']}/comments", headers=json_headers,
                                      data=b'{"text": "' + bad + b'"}'),
        "multipart caption": requests.post(api + "/posts", headers=auth, files={
            "image": ("c.jpg", (PHOTOS / "chelsea.jpg").read_bytes(), "image/jpeg"), "caption": (None, bad)}),
        "Mastodon note, escaped": requests.patch(api + "/accounts/update_credentials", headers=form_headers,
                                                 data=b"note=caf%E9"),
        "Mastodon note, raw": requests.patch(api + "/accounts/update_credentials", headers=form_headers,
                                             data=b"note=" + bad),
        "Mastodon name, multipart": requests.patch(api + "/accounts/update_credentials", headers=auth,
                                                   files={"display_name": (None, bad)}),
        "Mastodon status": requests.post(api + "/statuses", headers=form_headers,
                                         data=b"status=%FF&in_reply_to_id=" + str(post["id"]).encode()),
    }
    for what, answer in refusals.items():
        assert answer.status_code == 422, (what, answer.status_code, answer.text)
        assert answer.json()["code"] == "invalid_field" and "UTF-8" in answer.json()["detail"], what
    search = requests.get(api + "/users?query=bo%FF", headers=auth, timeout=10)
    assert search.status_code == 400 and "UTF-8" in search.json()["detail"]
    me = requests.get(api + "/me", headers=auth, timeout=10).json()
    assert me["bio"] == "Kept as it is" and me["postCount"] == 1
    assert requests.get(api + f"/posts/{post['id']}", headers=auth, timeout=10).json()["commentCount"] == 0
