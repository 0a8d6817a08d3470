"""Servers that federate, for the tests: Makestagram instances and the bovine peer (peer.py), each on a loopback
address of its own at port 80 under a host name that /etc/hosts gives it for the length of the test, so that ids
look as they do in the wild (`http://mk-a.test/users/alice`) and each server reaches the others by name."""
import contextlib
import os
import pathlib
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

import pytest
import requests

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from makestagram_server import server_binary  # noqa: E402

HOSTS = pathlib.Path("/etc/hosts")
MARK = "# makestagram federation test"


def free_loopback_address() -> str:
    """A loopback address whose port 80 is free."""
    for _ in range(100):
        address = f"127.{random.randint(1, 254)}.{random.randint(0, 254)}.{random.randint(2, 254)}"
        with socket.socket() as probe:
            try:
                probe.bind((address, 80))
                return address
            except OSError:
                continue
    raise AssertionError("no free loopback address with port 80")


class HostNames:
    """Names in /etc/hosts for the length of a test (the machine's resolver reads it first)."""

    def __init__(self):
        if not os.access(HOSTS, os.W_OK):
            pytest.skip("the federation tests name their servers in /etc/hosts, which needs root")
        self.lines: list[str] = []

    def add(self, name: str, address: str):
        line = f"{address} {name} {MARK}\n"
        with open(HOSTS, "a") as hosts:
            hosts.write(line)
        self.lines.append(line)
        assert socket.gethostbyname(name) == address

    def remove(self):
        kept = [line for line in HOSTS.read_text().splitlines(keepends=True) if line not in self.lines]
        HOSTS.write_text("".join(kept))


def wait_for(address: str, port: int, process: subprocess.Popen, log: pathlib.Path):
    deadline = time.time() + 60
    while time.time() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"exited:\n{log.read_text()}")
        try:
            with socket.create_connection((address, port), timeout=1):
                return
        except OSError:
            time.sleep(0.1)
    raise AssertionError(f"did not start:\n{log.read_text()}")


class FederatedServer:
    """`makestagram serve` on `address`:80, known as `http://name`, reaching private peers (the others here)."""

    def __init__(self, name: str, address: str, *flags: str, data: str | None = None):
        self.name = name
        self.address = address
        self.folder = pathlib.Path(tempfile.mkdtemp(prefix="makestagram-federated-"))
        self.log_path = self.folder / "server.log"
        self.log = open(self.log_path, "w")
        self.process = subprocess.Popen(
            [server_binary(), "serve", "--host", address, "--port", "80", "--data", data or str(self.folder / "data"),
             "--public-url", f"http://{name}", "--allow-private-peers", "--log-level", "info", *flags],
            stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)
        wait_for(address, 80, self.process, self.log_path)
        self.base = f"http://{name}"

    def sign_up(self, username: str) -> dict:
        answer = requests.post(self.base + "/api/v1/accounts", timeout=30,
                               json={"username": username, "password": "correct horse", "displayName": username})
        assert answer.status_code == 201, answer.text
        return {"Authorization": "Bearer " + answer.json()["token"]}

    def moderator(self, username: str) -> dict:
        """Signs `username` up and makes them a moderator on the server's machine (`makestagram admin grant`)."""
        headers = self.sign_up(username)
        granted = subprocess.run([server_binary(), "admin", "grant", username, "--data", str(self.folder / "data")],
                                 capture_output=True, text=True)
        assert granted.returncode == 0, granted.stderr
        return headers

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


class Peer:
    """The bovine peer (peer.py) on `address`:80, known as `http://name`."""

    def __init__(self, name: str, address: str, stall: bool = False, failing: bool = False):
        self.name = name
        self.folder = pathlib.Path(tempfile.mkdtemp(prefix="makestagram-peer-"))
        self.log_path = self.folder / "peer.log"
        self.log = open(self.log_path, "w")
        self.process = subprocess.Popen(
            [sys.executable, str(HERE / "peer.py"), "--host", address, "--port", "80", "--name", name,
             *(["--stall"] if stall else []), *(["--failing"] if failing else [])],
            stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)
        wait_for(address, 80, self.process, self.log_path)
        self.base = f"http://{name}"

    def person(self, username: str, name: str | None = None, locked: bool = False) -> dict:
        """Makes `username` here (again: a new key); `locked`, their document says they approve their followers."""
        answer = requests.post(self.base + "/control/person", timeout=10,
                               json={"username": username, "name": name or username, "locked": locked})
        assert answer.status_code == 200, answer.text
        return answer.json()

    def send(self, username: str, inbox: str, activity: dict, **options) -> requests.Response:
        """Sends `activity` as `username` (bovine signs it); answers the status and body the inbox gave."""
        answer = requests.post(self.base + "/control/send", timeout=60,
                               json={"username": username, "inbox": inbox, "activity": activity, **options})
        assert answer.status_code == 200, answer.text
        return answer.json()

    def fetch(self, username: str, url: str) -> dict:
        answer = requests.post(self.base + "/control/fetch", json={"username": username, "url": url}, timeout=30)
        assert answer.status_code == 200, answer.text
        return answer.json()

    def received(self) -> dict:
        return requests.get(self.base + "/control/received", timeout=10).json()

    def stop(self):
        try:
            os.killpg(self.process.pid, signal.SIGTERM)
            self.process.wait(timeout=10)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            pass
        self.log.close()
        shutil.rmtree(self.folder, ignore_errors=True)


def eventually(check, timeout: float = 10, step: float = 0.1):
    """Waits until `check()` is truthy (the federation's effects are asynchronous) and answers it."""
    deadline = time.time() + timeout
    while True:
        value = check()
        if value or time.time() > deadline:
            return value
        time.sleep(step)


@contextlib.contextmanager
def another_peer(name: str, **modes):
    """A peer of its own on a fresh loopback name, for one test (`stall=True`, `failing=True`), stopped after it."""
    names = HostNames()
    peer = None
    try:
        address = free_loopback_address()
        names.add(name, address)
        peer = Peer(name, address, **modes)
        yield peer
    finally:
        if peer:
            peer.stop()
        names.remove()
