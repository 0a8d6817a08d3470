"""Starting real `makestagram serve` processes for the Python tests."""
import os
import pathlib
import random
import re
import shutil
import signal
import socket as sockets
import subprocess
import tempfile
import threading
import time

import pytest
import requests

ROOT = pathlib.Path(__file__).resolve().parents[1]


def server_binary() -> str:
    path = os.environ.get("MAKESTAGRAM_BIN", str(ROOT / ".build" / "debug" / "makestagram"))
    if not os.path.exists(path):
        pytest.fail(f"{path} is missing: run `swift build` first (or set MAKESTAGRAM_BIN)")
    return path


class Server:
    """A `makestagram serve` of its own, started with extra flags and optionally through a shell prefix (ulimit,
    strace)."""

    def __init__(self, *flags: str, prefix: str = "exec", data: str | None = None):
        self.folder = pathlib.Path(tempfile.mkdtemp(prefix="makestagram-server-"))
        self.log_path = self.folder / "server.log"
        command = [server_binary(), "serve", "--port", "0", "--data", data or str(self.folder / "data"),
                   "--log-level", "info", *flags]
        shell = f"{prefix} {' '.join(map(quote, command))}"
        self.log = open(self.log_path, "w")
        # A session of its own, so that stopping it ends strace and the server it traces together.
        self.process = subprocess.Popen(["bash", "-c", shell], stdout=self.log, stderr=subprocess.STDOUT,
                                        start_new_session=True)
        deadline = time.time() + 60
        self.port = None
        while time.time() < deadline and self.port is None:
            match = re.search(r"listening on 127\.0\.0\.1:(\d+)", self.log_path.read_text())
            if match:
                self.port = int(match.group(1))
            elif self.process.poll() is not None:
                raise AssertionError("server exited:\n" + self.log_path.read_text())
            else:
                time.sleep(0.1)
        assert self.port, "server did not start:\n" + self.log_path.read_text()
        self.base = f"http://127.0.0.1:{self.port}"

    def sign_up(self, username: str) -> str:
        answer = requests.post(self.base + "/api/v1/accounts", timeout=30,
                               json={"username": username, "password": "correct horse", "displayName": username})
        assert answer.status_code == 201, answer.text
        return answer.json()["token"]

    def kill(self):
        """Ends the server at once (SIGKILL), as a crash or a lost machine would."""
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)
        except ProcessLookupError:
            pass

    def stop(self):
        try:
            os.killpg(self.process.pid, signal.SIGTERM)
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.log.close()
        shutil.rmtree(self.folder, ignore_errors=True)


def quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"




def free_port() -> int:
    with sockets.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def nginx_config(folder: pathlib.Path, port: int, upstreams: list[int], tls: bool = False) -> str:
    """The configuration docs/deployment.md shows, with the test's ports and folders; with `tls`, nginx answers
    HTTPS with a certificate for 127.0.0.1 that `tls_certificate` makes."""
    servers = "\n".join(f"    server 127.0.0.1:{p} max_fails=1 fail_timeout=5s;" for p in upstreams)
    user = "user root;\n" if os.geteuid() == 0 else ""
    template = (ROOT / "docs" / "nginx.conf").read_text()
    listen = f"listen 127.0.0.1:{port};"
    if tls:
        listen = (f"listen 127.0.0.1:{port} ssl; ssl_certificate {folder}/cert.pem; "
                  f"ssl_certificate_key {folder}/key.pem;")
    http = template.split("# --- http ---", 1)[1].replace("UPSTREAM_SERVERS", servers).replace("listen 80;", listen)
    return f"""{user}worker_processes 1;
pid {folder}/nginx.pid;
error_log {folder}/error.log warn;
events {{ worker_connections 1024; }}
http {{
  access_log off;
  client_body_temp_path {folder}/body;
  proxy_temp_path {folder}/proxy;
  fastcgi_temp_path {folder}/fastcgi;
  uwsgi_temp_path {folder}/uwsgi;
  scgi_temp_path {folder}/scgi;
{http}
}}
"""


def tls_certificate(folder: pathlib.Path) -> pathlib.Path:
    """A self-signed certificate for 127.0.0.1 (cert.pem, key.pem in `folder`); answers the certificate's path, for
    clients to trust (REQUESTS_CA_BUNDLE)."""
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
         "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(folder / "key.pem"), "-out", str(folder / "cert.pem")],
        check=True, capture_output=True)
    return folder / "cert.pem"


class Nginx:
    """Debian's nginx in front of `upstreams`, as docs/deployment.md configures it (optionally over TLS)."""

    def __init__(self, upstreams: list[int], tls: bool = False):
        self.folder = pathlib.Path(tempfile.mkdtemp(prefix="makestagram-nginx-"))
        self.certificate = tls_certificate(self.folder) if tls else None
        port = free_port()
        (self.folder / "nginx.conf").write_text(nginx_config(self.folder, port, upstreams, tls=tls))
        self.process = subprocess.Popen(["nginx", "-c", str(self.folder / "nginx.conf"), "-g", "daemon off;"],
                                        stderr=open(self.folder / "nginx.log", "w"))
        self.base = f"{'https' if tls else 'http'}://127.0.0.1:{port}"
        deadline = time.time() + 20
        while True:
            try:
                requests.get(self.base + "/healthz", timeout=2, verify=str(self.certificate) if tls else True
                             ).raise_for_status()
                break
            except requests.RequestException:
                if time.time() > deadline or self.process.poll() is not None:
                    raise AssertionError("nginx did not start:\n" + (self.folder / "nginx.log").read_text())
                time.sleep(0.1)

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=10)
        shutil.rmtree(self.folder, ignore_errors=True)


def like_storm(base: str, post_id: int, likers: list[dict], seconds: float, during=None, after: float = 0.5):
    """Likes and unlikes from every liker at once for `seconds`, then runs `during` (a kill) and goes on for `after`
    seconds. Answers which likers' last answer acknowledged a like (True) or an unlike (False), and which had a last
    request that may or may not have been applied."""
    acknowledged: dict[int, bool] = {}
    uncertain: set[int] = set()
    stop = threading.Event()
    lock = threading.Lock()

    def storm(index: int):
        generator = random.Random(index)
        session = requests.Session()
        while not stop.is_set():
            liked = generator.random() < 0.5
            method = session.put if liked else session.delete
            try:
                answer = method(f"{base}/api/v1/posts/{post_id}/like", headers=likers[index], timeout=30)
            except requests.RequestException:
                answer = None
            with lock:
                if answer is not None and answer.status_code == 200:
                    acknowledged[index] = liked
                    uncertain.discard(index)
                else:
                    uncertain.add(index)
            if answer is None:
                time.sleep(0.05)

    threads = [threading.Thread(target=storm, args=(index,)) for index in range(len(likers))]
    for thread in threads:
        thread.start()
    time.sleep(seconds)
    if during:
        during()
        time.sleep(after)
    stop.set()
    for thread in threads:
        thread.join()
    return acknowledged, uncertain


def wait_for_derived_activity(base: str, author: dict, post_id: int, likes: int):
    """Waits (15 s at most) until the author's unread count and the likes of the post in their activity equal the
    rows: what the activity consumer derives from the change log has caught up, nothing applied twice."""
    deadline = time.time() + 15
    while True:
        unread = requests.get(base + "/api/v1/activity/unread", headers=author, timeout=30).json()["unreadCount"]
        groups = requests.get(base + "/api/v1/activity?limit=50", headers=author, timeout=30).json()["items"]
        liked = sum(group["actorCount"] for group in groups
                    if group["kind"] == "like" and group["post"]["id"] == post_id)
        if unread == likes and liked == likes:
            return
        assert time.time() < deadline, f"activity never caught up: {unread} unread, {liked} in groups, {likes} likes"
        time.sleep(0.2)


def assert_acknowledged_likes_stored(base: str, author: dict, post_id: int, acknowledged: dict[int, bool],
                                     uncertain: set[int]) -> set[str]:
    """Every like (of `liker{index}`) whose last answer was an acknowledgement is stored as acknowledged, and the
    post's count equals its rows; answers who likes it now."""
    answer = requests.get(f"{base}/api/v1/posts/{post_id}/likes?limit=50", headers=author, timeout=30)
    stored = {user["username"] for user in answer.json()["items"]}
    for index, liked in acknowledged.items():
        if index not in uncertain:
            assert (f"liker{index}" in stored) == liked, f"liker{index}: acknowledged {liked}, stored otherwise"
    read = requests.get(f"{base}/api/v1/posts/{post_id}", headers=author, timeout=30).json()
    assert read["likeCount"] == len(stored)
    return stored
