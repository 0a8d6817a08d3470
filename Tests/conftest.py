"""Starts a real `makestagram serve` on a free loopback port with its own data folder."""
import os
import pathlib
import re
import shutil
import subprocess
import tempfile
import time

import pytest
import requests

from makestagram_server import server_binary


@pytest.fixture(scope="session")
def makestagram_binary() -> str:
    """The built `makestagram` executable."""
    return server_binary()


# The log file and the data folder of each running server, by base URL.
SERVER_LOGS: dict[str, pathlib.Path] = {}
SERVER_DATA: dict[str, str] = {}


@pytest.fixture(scope="session")
def server():
    data = tempfile.mkdtemp(prefix="makestagram-tests-")
    log_path = pathlib.Path(data) / "server.log"
    log = open(log_path, "w")
    process = subprocess.Popen(
        # Every test signs its people up from this one address: sign-ups get a limit far above the default.
        [server_binary(), "serve", "--port", "0", "--data", os.path.join(data, "data"), "--log-level", "info",
         "--rate-limit", "signups=10000/h"],
        stdout=log, stderr=subprocess.STDOUT,
    )
    try:
        base = None
        deadline = time.time() + 60
        while time.time() < deadline and base is None:
            match = re.search(r"listening on 127\.0\.0\.1:(\d+)", log_path.read_text())
            if match:
                base = f"http://127.0.0.1:{match.group(1)}"
            elif process.poll() is not None:
                pytest.fail("server exited:\n" + log_path.read_text())
            else:
                time.sleep(0.1)
        if base is None:
            pytest.fail("server did not start:\n" + log_path.read_text())
        requests.get(base + "/healthz", timeout=10).raise_for_status()
        SERVER_LOGS[base] = log_path
        SERVER_DATA[base] = os.path.join(data, "data")
        yield base
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
        log.close()
        shutil.rmtree(data, ignore_errors=True)


@pytest.fixture
def server_data(server) -> str:
    """The data folder of the session's server, for commands run on the server's machine (`makestagram admin`)."""
    return SERVER_DATA[server]


@pytest.fixture
def server_log(server) -> pathlib.Path:
    """The log file of the session's server (it logs at info level: one line per request)."""
    return SERVER_LOGS[server]
