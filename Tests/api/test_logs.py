"""What the server writes to its log: one line per request with the user it authenticated, and never a password,
a token or a query string."""
import re
import time
import uuid

import requests


def test_access_lines_name_the_user_and_never_secrets(server, server_log):
    username = "log_" + uuid.uuid4().hex[:8]
    password = "secret-" + uuid.uuid4().hex
    signup = requests.post(
        server + "/api/v1/accounts",
        json={"username": username, "password": password, "displayName": "Log Test"},
        timeout=10,
    )
    signup.raise_for_status()
    login = requests.post(
        server + "/api/v1/sessions", json={"username": username, "password": password}, timeout=10
    )
    login.raise_for_status()
    token, user_id = login.json()["token"], login.json()["user"]["id"]
    marker = uuid.uuid4().hex
    timeline = requests.get(
        server + f"/api/v1/timeline?limit=5&probe={marker}",
        headers={"Authorization": f"Bearer {token}"},
        timeout=10,
    )
    timeline.raise_for_status()
    requests.get(server + "/api/v1/timeline", headers={"Authorization": "Bearer wrong"}, timeout=10)
    time.sleep(0.5)  # the log is written by the server process
    log = server_log.read_text()
    lines = [line for line in log.splitlines() if "GET /api/v1/timeline" in line]
    assert any(re.search(rf"\buser={user_id}\b.*GET /api/v1/timeline 200", line) for line in lines), lines
    assert any("GET /api/v1/timeline 401" in line and "user=" not in line for line in lines), lines
    for secret in (password, token, signup.json()["token"], marker):
        assert secret not in log
