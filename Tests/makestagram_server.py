"""Starting real `makestagram serve` processes for the Python tests."""
import os
import pathlib
import re
import shutil
import signal
import subprocess
import tempfile
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


