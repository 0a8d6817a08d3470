"""One visibility rule, walked route by route: for every route of the native API (read from the OpenAPI document)
and of the Mastodon API that names a person or one of their posts or comments, someone that person blocks, and a
stranger to their private account, are answered as if it did not exist: 404, or a list without it. Nothing they send
changes anything. A new route that names a person or a post joins the walk by itself; one that is not to refuse
(blocking back, or answering a request) must be listed here with its reason. The Mastodon API's routes are walked
in test_mastodon_clients.py, beside its clients."""
import os
import pathlib
import urllib.parse
import uuid
import subprocess

import pytest
import requests
import yaml

from makestagram_server import Server

from test_mutes import post_photo, sign_up

DOCUMENT = pathlib.Path(__file__).resolve().parents[2] / "Sources" / "MakestagramServer" / "Resources" / "openapi.yaml"

# Routes that name a person but act on the caller's own relations, and rightly answer: blocking back is allowed
# (both blocks then stand), and one's own follow requests concern people who asked.
ALLOWED = {
    ("PUT", "/api/v1/users/{username}/block"), ("DELETE", "/api/v1/users/{username}/block"),
    ("POST", "/api/v1/me/follow-requests/{username}/approve"),
    ("POST", "/api/v1/me/follow-requests/{username}/decline"),
}
# Moderators act on everyone; the walkers are not moderators (403 before any lookup).
MODERATION = "/api/v1/moderation/"


def walk(server: str, hidden: dict, viewer: dict, viewer_name: str) -> list[str]:
    """Calls every route naming `hidden`'s account, post or comment as `viewer`; answers what was not refused."""
    document = yaml.safe_load(DOCUMENT.read_text())
    leaks = []
    for path, operations in document["paths"].items():
        names_user = "{username}" in path
        names_post = path.startswith("/api/v1/posts/{id}")
        names_comment = path.startswith("/api/v1/comments/{id}")
        if not (names_user or names_post or names_comment) or path.startswith(MODERATION):
            continue
        for method in ("get", "put", "post", "patch", "delete"):
            if method not in operations or (method.upper(), path) in ALLOWED:
                continue
            url = server + path.replace("{username}", hidden["username"]).replace(
                "{id}", str(hidden["comment"] if names_comment else hidden["post"]))
            body = ({"text": "hello"} if path.endswith("/comments") else {"reason": "spam"}
                    if path.endswith("/reports") else {"caption": "mine now"} if method == "patch" else None)
            answer = requests.request(method.upper(), url, headers=viewer, json=body, timeout=30)
            if answer.status_code != 404:
                leaks.append(f"{method.upper()} {path}: {answer.status_code} {answer.text[:120]}")
    return leaks


@pytest.fixture(params=["sqlite", "postgresql"])
def any_store(request, server):
    """The session's server on SQLite, and a server of its own on a fresh PostgreSQL database (when the test command
    started one)."""
    if request.param == "sqlite":
        yield server
        return
    postgres = os.environ.get("MAKESTAGRAM_TEST_POSTGRES")
    if not postgres:
        pytest.skip("needs PostgreSQL (MAKESTAGRAM_TEST_POSTGRES)")
    name = "walk_" + uuid.uuid4().hex
    subprocess.run(["psql", postgres, "-qc", f"CREATE DATABASE {name}"], check=True)
    url = urllib.parse.urlsplit(postgres)._replace(path="/" + name, query="sslmode=disable").geturl()
    instance = Server("--database", url, "--rate-limit", "signups=10000/h")
    try:
        yield instance.base
    finally:
        instance.stop()
        subprocess.run(["psql", postgres, "-qc", f"DROP DATABASE {name} WITH (FORCE)"], check=False)


def test_every_route_hides_a_blocker_and_a_private_account(any_store):
    server = any_store
    v1 = server + "/api/v1"
    owner, blocked = sign_up(v1, "walkowen"), sign_up(v1, "walkbob")
    private, stranger = sign_up(v1, "walkpriv"), sign_up(v1, "walkstan")
    for person, name in ((owner, "walkowen"), (private, "walkpriv")):
        post = post_photo(v1, person, f"{name}'s #walk")
        comment = requests.post(f"{v1}/posts/{post['id']}/comments", headers=person, json={"text": "mine"},
                                timeout=30).json()
        if person is owner:
            hidden_owner = {"username": name, "post": post["id"], "comment": comment["id"]}
        else:
            hidden_private = {"username": name, "post": post["id"], "comment": comment["id"]}
    assert requests.put(f"{v1}/users/walkbob/block", headers=owner, timeout=30).status_code == 200
    assert requests.patch(f"{v1}/me", headers=private, json={"isPrivate": True}, timeout=30).status_code == 200

    leaks = walk(server, hidden_owner, blocked, "walkbob")
    assert leaks == [], "routes that showed a blocker to the one they block:\n" + "\n".join(leaks)

    # A private account: its profile is there (to ask to follow it), everything about its posts is not. Removing it
    # from one's followers acts on the caller's own followers, which it is not among: nothing changes.
    leaks = [leak for leak in walk(server, hidden_private, stranger, "walkstan")
             if not leak.startswith(("GET /api/v1/users/{username}:", "GET /api/v1/users/{username}/posts:",
                                     "PUT /api/v1/users/{username}/follow:", "DELETE /api/v1/users/{username}/follow:",
                                     "PUT /api/v1/users/{username}/mute:", "DELETE /api/v1/users/{username}/mute:",
                                     "GET /api/v1/users/{username}/followers:",
                                     "GET /api/v1/users/{username}/following:",
                                     "DELETE /api/v1/me/followers/{username}: 204"))]
    assert leaks == [], "routes that showed a private account's posts to a stranger:\n" + "\n".join(leaks)
    assert requests.get(f"{v1}/users/walkpriv/posts", headers=stranger, timeout=30).json()["items"] == []

    # Nothing the blocked person sent changed anything.
    mine = requests.get(f"{v1}/posts/{hidden_owner['post']}", headers=owner, timeout=30).json()
    assert mine["caption"] == "walkowen's #walk" and mine["likeCount"] == 0 and mine["commentCount"] == 1
    assert requests.get(f"{v1}/users/walkowen", headers=owner, timeout=30).json()["followerCount"] == 0

