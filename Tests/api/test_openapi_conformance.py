"""Every response the server gives in a full tour of the API matches the OpenAPI document's schema for its
operation and status, and every documented operation is exercised."""
import pathlib
import re
import subprocess

import jsonschema
import pytest
import requests
import yaml
from openapi_spec_validator import validate as validate_spec

from makestagram_server import server_binary

ROOT = pathlib.Path(__file__).resolve().parents[2]
SPEC_PATH = ROOT / "Sources" / "MakestagramServer" / "Resources" / "openapi.yaml"
PHOTOS = ROOT / "Tests" / "TestFixtures" / "photos"
SPEC = yaml.safe_load(SPEC_PATH.read_text())


def template_regex(template: str) -> re.Pattern:
    return re.compile("^" + re.sub(r"\{[^}]+\}", r"[^/]+", template) + "$")


OPERATIONS = {
    (method.upper(), template): operation
    for template, item in SPEC["paths"].items()
    for method, operation in item.items()
    if method in ("get", "put", "patch", "post", "delete")
}


class Checker:
    """Sends requests and checks each answer against the document."""

    def __init__(self, base: str):
        self.base = base
        self.seen: set[tuple[str, str]] = set()

    def operation(self, method: str, path: str):
        for (op_method, template), operation in OPERATIONS.items():
            if op_method == method and template_regex(template).match(path):
                return template, operation
        raise AssertionError(f"{method} {path} is not in the OpenAPI document")

    def request(self, method: str, path: str, token: str | None = None, **kwargs) -> requests.Response:
        headers = kwargs.pop("headers", {})
        if token:
            headers["Authorization"] = f"Bearer {token}"
        response = requests.request(method, self.base + path, headers=headers, timeout=30, **kwargs)
        template, operation = self.operation(method, path.split("?")[0])
        self.seen.add((method, template))
        status = str(response.status_code)
        documented = operation["responses"]
        assert status in documented, f"{method} {path} answered {status}, not documented: {response.text}"
        spec_response = documented[status]
        if "$ref" in spec_response:
            spec_response = SPEC["components"]["responses"][spec_response["$ref"].split("/")[-1]]
        content = spec_response.get("content")
        if not content:
            assert not response.content, f"{method} {path} {status} should have no body"
            return response
        media_type = response.headers["Content-Type"].split(";")[0]
        assert media_type in content, f"{method} {path} {status}: Content-Type {media_type} not documented"
        if media_type.endswith("json"):
            schema = dict(content[media_type]["schema"])
            schema["components"] = SPEC["components"]
            jsonschema.validate(
                response.json(), schema, cls=jsonschema.Draft202012Validator,
                format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER,
            )
        return response


def test_document_is_valid_openapi_31(server):
    validate_spec(SPEC)
    served = requests.get(server + "/api/v1/openapi.yaml", timeout=10)
    assert served.status_code == 200
    assert yaml.safe_load(served.text) == SPEC


def test_every_response_matches_the_document(server, server_data):
    api = Checker(server)
    v1 = "/api/v1"

    def sign_up(name: str) -> str:
        body = {"username": name, "password": "correct horse", "displayName": name.title()}
        return api.request("POST", v1 + "/accounts", json=body).json()["token"]

    alice, bob = sign_up("alice"), sign_up("bob")
    api.request("POST", v1 + "/accounts", json={"username": "alice", "password": "correct horse", "displayName": "A"})
    api.request("POST", v1 + "/accounts", json={"username": "x"})
    api.request("POST", v1 + "/accounts", json={"username": "ab", "password": "correct horse", "displayName": "A"})
    api.request("POST", v1 + "/sessions", json={"username": "alice", "password": "correct horse"})
    api.request("POST", v1 + "/sessions", json={"username": "alice", "password": "wrong one"})
    api.request("GET", v1 + "/me", token=alice)
    sessions = api.request("GET", v1 + "/me/sessions", token=bob).json()["items"]
    api.request("GET", v1 + "/me/export", token=bob)
    api.request("DELETE", f"{v1}/me/sessions/{'0' * 32}", token=bob)
    api.request("POST", v1 + "/me/password", token=bob,
                json={"currentPassword": "wrong one!", "newPassword": "a much better secret"})
    api.request("POST", v1 + "/me/password", token=bob, json={"currentPassword": "x"})
    other = api.request("POST", v1 + "/sessions", json={"username": "bob", "password": "correct horse"}).json()["token"]
    api.request("DELETE", f"{v1}/me/sessions/{next(s['id'] for s in sessions if s['current'])}", token=other)
    bob = other
    api.request("POST", v1 + "/me/password", token=bob,
                json={"currentPassword": "correct horse", "newPassword": "a much better secret"})
    api.request("GET", v1 + "/me")

    with open(PHOTOS / "phone-gps-rotated.jpg", "rb") as photo:
        post = api.request("POST", v1 + "/posts", token=alice, files={"image": photo}, data={"caption": "hi"}).json()
    with open(PHOTOS / "hubble.jpg", "rb") as photo:
        cropped = api.request("POST", v1 + "/posts", token=alice, files={"image": photo}, data={"crop": "portrait"})
        assert cropped.status_code == 201 and cropped.json()["image"]["variants"]
    api.request("GET", cropped.json()["image"]["variants"][0]["url"])
    api.request("DELETE", f"{v1}/posts/{cropped.json()['id']}", token=alice)
    with open(PHOTOS / "hubble.jpg", "rb") as photo:
        assert api.request(
            "POST", v1 + "/posts", token=alice, files={"image": photo}, data={"crop": "4:5"}).status_code == 422
    with open(PHOTOS / "not-an-image.jpg", "rb") as photo:
        assert api.request("POST", v1 + "/posts", token=alice, files={"image": photo}).status_code == 415
    with open(PHOTOS / "truncated.jpg", "rb") as photo:
        assert api.request("POST", v1 + "/posts", token=alice, files={"image": photo}).status_code == 422
    api.request("POST", v1 + "/posts", token=alice, json={})
    # An album: photos uploaded first, then posted together; a third upload taken back.
    uploads = []
    for name in ("rocket.jpg", "chelsea.jpg", "astronaut.jpg"):
        with open(PHOTOS / name, "rb") as photo:
            uploads.append(api.request("POST", v1 + "/uploads", token=alice, files={"image": photo},
                                       data={"altText": name, "crop": "square"}).json()["id"])
    with open(PHOTOS / "not-an-image.jpg", "rb") as photo:
        assert api.request("POST", v1 + "/uploads", token=alice, files={"image": photo}).status_code == 415
    assert api.request("DELETE", f"{v1}/uploads/{uploads[2]}", token=bob).status_code == 404
    assert api.request("DELETE", f"{v1}/uploads/{uploads[2]}", token=alice).status_code == 204
    assert api.request("POST", v1 + "/posts", token=alice, json={"uploads": uploads}).status_code == 404
    album = api.request("POST", v1 + "/posts", token=alice, json={"caption": "two", "uploads": uploads[:2]}).json()
    assert len(album["photos"]) == 2
    api.request("PATCH", f"{v1}/posts/{album['id']}", token=alice, json={"altText": "A cat", "photo": 2})
    api.request("PATCH", f"{v1}/posts/{album['id']}", token=alice, json={"altText": "A cat", "photo": 3})
    api.request("DELETE", f"{v1}/posts/{album['id']}", token=alice)
    pid = post["id"]

    api.request("GET", f"{v1}/posts/{pid}", token=bob)
    api.request("PATCH", f"{v1}/posts/{pid}", token=alice, json={"caption": "hi, edited"})
    api.request("PATCH", f"{v1}/posts/{pid}", token=bob, json={"caption": "mine"})
    api.request("PATCH", f"{v1}/posts/{pid}", token=alice, json={"caption": "x" * 2201})
    api.request("PATCH", v1 + "/me", token=alice, json={"displayName": "Alice Archer", "bio": "Cats\nand coffee"})
    api.request("PATCH", v1 + "/me", token=alice, json={"bio": "b" * 151})
    with open(PHOTOS / "chelsea.jpg", "rb") as photo:
        assert api.request("PUT", v1 + "/me/avatar", token=alice, files={"image": photo}).status_code == 200
    with open(PHOTOS / "not-an-image.jpg", "rb") as photo:
        assert api.request("PUT", v1 + "/me/avatar", token=alice, files={"image": photo}).status_code == 415
    api.request("GET", f"{v1}/users/alice", token=bob)
    api.request("DELETE", v1 + "/me/avatar", token=bob)
    api.request("GET", f"{v1}/posts/99999", token=bob)
    api.request("PUT", f"{v1}/users/alice/follow", token=bob)
    api.request("PUT", f"{v1}/users/bob/follow", token=bob)
    api.request("DELETE", f"{v1}/users/nobody/follow", token=bob)
    assert api.request("PUT", f"{v1}/users/alice/mute", token=bob).json() == {"viewerMutes": True}
    api.request("PUT", f"{v1}/users/bob/mute", token=bob)
    api.request("GET", f"{v1}/users/alice", token=bob)
    api.request("GET", f"{v1}/me/mutes", token=bob)
    api.request("DELETE", f"{v1}/users/alice/mute", token=bob)
    api.request("DELETE", f"{v1}/users/nobody/mute", token=bob)
    sign_up("conformblocked")
    assert api.request("PUT", f"{v1}/users/conformblocked/block", token=bob).json() == {"viewerBlocks": True}
    api.request("PUT", f"{v1}/users/bob/block", token=bob)
    api.request("GET", f"{v1}/users/conformblocked", token=bob)
    api.request("GET", f"{v1}/me/blocks", token=bob)
    api.request("PUT", f"{v1}/users/conformblocked/follow", token=bob)
    api.request("DELETE", f"{v1}/users/conformblocked/block", token=bob)
    api.request("DELETE", f"{v1}/users/nobody/block", token=bob)
    # Whole servers, blocked for oneself (nobody from there is known yet).
    assert api.request("PUT", f"{v1}/me/domain-blocks/Spam.Example.", token=bob).json() == {
        "domains": ["spam.example"]}
    api.request("PUT", f"{v1}/me/domain-blocks/not a host", token=bob)
    assert api.request("GET", f"{v1}/me/domain-blocks", token=bob).json() == {"domains": ["spam.example"]}
    assert api.request("DELETE", f"{v1}/me/domain-blocks/spam.example", token=bob).json() == {"domains": []}
    # A private account: a follow request, approved; another declined; one that does not exist.
    private = sign_up("conformprivate")
    asker, other = sign_up("conformasker"), sign_up("conformother")
    assert api.request("PATCH", v1 + "/me", token=private, json={"isPrivate": True}).json()["isPrivate"] is True
    assert api.request("PUT", f"{v1}/users/conformprivate/follow", token=asker).json()["viewerRequested"] is True
    api.request("PUT", f"{v1}/users/conformprivate/follow", token=other)
    api.request("GET", f"{v1}/users/conformprivate", token=asker)
    api.request("GET", f"{v1}/users/conformprivate/posts", token=asker)
    api.request("GET", f"{v1}/me/follow-requests", token=private)
    api.request("GET", f"{v1}/activity", token=private)
    api.request("POST", f"{v1}/me/follow-requests/conformasker/approve", token=private)
    api.request("POST", f"{v1}/me/follow-requests/conformother/decline", token=private)
    api.request("POST", f"{v1}/me/follow-requests/nobody/approve", token=private)
    api.request("POST", f"{v1}/me/follow-requests/nobody/decline", token=private)
    api.request("DELETE", f"{v1}/me/followers/conformasker", token=private)
    api.request("DELETE", f"{v1}/me/followers/conformasker", token=private)
    api.request("DELETE", f"{v1}/me/followers/conformprivate", token=private)
    api.request("DELETE", f"{v1}/me/followers/nobody", token=private)
    api.request("PATCH", v1 + "/me", token=private, json={"isPrivate": False})
    api.request("GET", f"{v1}/users/alice", token=bob)
    api.request("GET", f"{v1}/users/nobody", token=bob)
    api.request("GET", f"{v1}/users?query=al", token=bob)
    api.request("GET", f"{v1}/users?query=Alice%20Arch", token=bob)
    api.request("GET", f"{v1}/users?query=", token=bob)
    api.request("GET", f"{v1}/me/suggestions", token=bob)
    api.request("GET", f"{v1}/me/suggestions?for=alice&limit=3", token=bob)
    api.request("GET", f"{v1}/me/suggestions?for=nobody", token=bob)
    api.request("GET", f"{v1}/users/alice/followers", token=bob)
    api.request("GET", f"{v1}/users/bob/following?limit=1", token=bob)
    api.request("GET", f"{v1}/users/alice/posts", token=bob)
    api.request("PUT", f"{v1}/posts/{pid}/like", token=bob)
    api.request("DELETE", f"{v1}/posts/{pid}/like", token=bob)
    api.request("PUT", f"{v1}/posts/{pid}/like", token=bob)
    api.request("GET", f"{v1}/posts/{pid}/likes", token=alice)
    timeline = api.request("GET", f"{v1}/timeline?limit=1", token=bob).json()
    assert timeline["items"][0]["likeCount"] == 1 and timeline["items"][0]["viewerHasLiked"]
    api.request("GET", f"{v1}/timeline?cursor={timeline['newerCursor']}", token=bob)
    api.request("GET", f"{v1}/timeline?cursor=bogus", token=bob)
    comment = api.request("POST", f"{v1}/posts/{pid}/comments", token=bob, json={"text": "nice"}).json()
    api.request("POST", f"{v1}/posts/{pid}/comments", token=bob, json={"text": ""})
    api.request("GET", f"{v1}/posts/{pid}/comments", token=alice)
    activity = api.request("GET", f"{v1}/activity?limit=1", token=alice).json()
    assert activity["items"][0]["kind"] == "comment" and activity["items"][0]["comment"]["text"] == "nice"
    assert activity["items"][0]["actors"][0]["username"] == "bob"
    rest = api.request("GET", f"{v1}/activity?cursor={activity['nextCursor']}", token=alice).json()
    assert [group["kind"] for group in rest["items"]] == ["like", "follow"]
    api.request("GET", f"{v1}/activity?cursor=bogus", token=alice)
    assert api.request("GET", f"{v1}/activity/unread", token=alice).json() == {"unreadCount": 3}
    api.request("POST", f"{v1}/activity/read", token=alice, json={"through": -1})
    api.request("POST", f"{v1}/activity/read", token=alice, data="{}")
    api.request("POST", f"{v1}/activity/read", token=alice, json={"through": "all"})
    latest = activity["items"][0]["latestId"]
    assert api.request("POST", f"{v1}/activity/read", token=alice, json={"through": latest}).json() == {"unreadCount": 0}
    api.request("GET", f"{v1}/activity", token=bob)
    hidden = api.request("PATCH", f"{v1}/posts/{pid}", token=alice, json={"hideLikeCount": True}).json()
    assert hidden["likeCountHidden"] and hidden["likeCount"] == 1, "the author still sees the count"
    seen = api.request("GET", f"{v1}/posts/{pid}", token=bob).json()
    assert seen["likeCountHidden"] and "likeCount" not in seen and seen["likers"] == ["bob"]
    assert "likeCount" not in api.request("DELETE", f"{v1}/posts/{pid}/like", token=bob).json()
    assert "likeCount" not in api.request("PUT", f"{v1}/posts/{pid}/like", token=bob).json()
    assert "likeCount" not in api.request("GET", f"{v1}/timeline", token=bob).json()["items"][0]
    assert api.request("PATCH", f"{v1}/posts/{pid}", token=alice, json={}).status_code == 400
    assert api.request("PATCH", f"{v1}/posts/{pid}", token=alice, json={"caption": None}).json()["likeCountHidden"]
    api.request("PATCH", f"{v1}/posts/{pid}", token=bob, json={"caption": None})
    api.request("PATCH", f"{v1}/posts/{pid}", token=alice, json={"hideLikeCount": "yes"})
    shown = api.request("PATCH", f"{v1}/posts/{pid}", token=alice, json={"hideLikeCount": False}).json()
    assert not shown["likeCountHidden"] and shown["likeCount"] == 1
    me = api.request("PATCH", v1 + "/me", token=alice, json={"hideLikeCounts": True}).json()
    assert me["hideLikeCounts"] is True
    assert "hideLikeCounts" not in api.request("GET", f"{v1}/users/alice", token=bob).json()
    api.request("PATCH", v1 + "/me", token=alice, json={"hideLikeCounts": False})
    tagged = api.request("POST", v1 + "/posts", token=alice, files={"image": (PHOTOS / "rocket.jpg").read_bytes()},
                         data={"caption": "Lift-off #Launch_Day"}).json()
    page = api.request("GET", f"{v1}/tags/launch_day/posts?limit=1", token=bob).json()
    assert [post["id"] for post in page["items"]] == [tagged["id"]] and "nextCursor" not in page
    assert api.request("GET", f"{v1}/tags/no%20such%20tag/posts", token=bob).json() == {"items": []}
    api.request("GET", f"{v1}/tags/launch_day/posts?cursor=bogus", token=bob)
    api.request("DELETE", f"{v1}/comments/{comment['id']}", token=alice)
    api.request("POST", f"{v1}/posts/{pid}/reports", token=bob, json={"reason": "spam"})
    api.request("POST", f"{v1}/posts/{pid}/reports", token=bob, json={"reason": "spam"})

    # Moderation: members are refused; a moderator made on the server's machine works the queue.
    carol = sign_up("carol")
    with open(PHOTOS / "chelsea.jpg", "rb") as photo:
        carols = api.request("POST", v1 + "/posts", token=carol, files={"image": photo}).json()
    api.request("POST", f"{v1}/posts/{carols['id']}/reports", token=bob, json={"reason": "rude"})
    api.request("GET", v1 + "/moderation/reports", token=bob)
    granted = subprocess.run([server_binary(), "admin", "grant", "alice", "--data", server_data],
                             capture_output=True, text=True, timeout=60)
    assert granted.returncode == 0, granted.stderr
    assert api.request("GET", v1 + "/me", token=alice).json()["isModerator"] is True
    # A page of one, then the next by its cursor (other tests on this server may have reported posts before).
    queue = api.request("GET", v1 + "/moderation/reports?limit=1", token=alice).json()
    assert len(queue["items"]) == 1 and "nextCursor" in queue
    api.request("GET", f"{v1}/moderation/reports?cursor={queue['nextCursor']}", token=alice)
    queued = api.request("GET", v1 + "/moderation/reports?limit=100", token=alice).json()["items"]
    assert [item["reports"][0]["reason"] for item in queued if item["post"]["id"] == pid] == ["spam"]
    api.request("GET", v1 + "/moderation/reports?cursor=bogus", token=alice)
    api.request("POST", f"{v1}/moderation/reports/{pid}/dismiss", token=alice, json={"reason": "fine"})
    api.request("POST", f"{v1}/moderation/reports/{pid}/dismiss", token=alice)
    api.request("POST", f"{v1}/moderation/reports/{pid}/dismiss", token=alice, data="{", headers={"Content-Type": "text/plain"})
    api.request("POST", f"{v1}/moderation/posts/{carols['id']}/remove", token=alice, json={"reason": "x" * 501})
    api.request("POST", f"{v1}/moderation/posts/{carols['id']}/remove", token=alice, json={})
    api.request("POST", f"{v1}/moderation/posts/{carols['id']}/remove", token=alice)
    api.request("POST", f"{v1}/moderation/users/alice/suspend", token=alice)
    api.request("POST", f"{v1}/moderation/users/carol/suspend", token=alice, json={"reason": "spam"})
    assert api.request("POST", v1 + "/sessions",
                       json={"username": "carol", "password": "correct horse"}).json()["code"] == "account_suspended"
    api.request("POST", f"{v1}/moderation/users/carol/unsuspend", token=alice, json={"reason": None})
    api.request("POST", f"{v1}/moderation/users/nobody/unsuspend", token=alice)
    log = api.request("GET", v1 + "/moderation/log?limit=2", token=alice).json()
    assert [entry["action"] for entry in log["items"]] == ["lift_suspension", "suspend"]
    api.request("GET", f"{v1}/moderation/log?cursor={log['nextCursor']}", token=alice)
    api.request("GET", v1 + "/moderation/log?cursor=bogus", token=alice)
    # Whole servers, blocked for everyone.
    blocks = api.request("PUT", f"{v1}/moderation/domain-blocks/conform-spam.example", token=alice,
                         json={"severity": "suspend", "reason": "spam"}).json()
    assert ("conform-spam.example", "suspend") in [(b["domain"], b["severity"]) for b in blocks["blocks"]]
    api.request("PUT", f"{v1}/moderation/domain-blocks/conform-loud.example", token=alice, json={"severity": "limit"})
    api.request("PUT", f"{v1}/moderation/domain-blocks/conform-loud.example", token=alice, json={"severity": "silence"})
    api.request("PUT", f"{v1}/moderation/domain-blocks/-bad-.example", token=alice, json={"severity": "limit"})
    api.request("PUT", f"{v1}/moderation/domain-blocks/conform-spam.example", token=bob, json={"severity": "limit"})
    api.request("PUT", f"{v1}/moderation/domain-blocks/conform-spam.example", token=alice, data="x",
                headers={"Content-Type": "text/plain"})
    listed = {b["domain"] for b in api.request("GET", f"{v1}/moderation/domain-blocks", token=alice).json()["blocks"]}
    assert {"conform-spam.example", "conform-loud.example"} <= listed
    api.request("GET", f"{v1}/moderation/domain-blocks", token=bob)
    assert api.request("GET", f"{v1}/moderation/servers", token=alice).json() == {"servers": []}
    api.request("GET", f"{v1}/moderation/servers", token=bob)
    api.request("POST", f"{v1}/moderation/servers/nowhere.example/retry", token=alice)
    api.request("POST", f"{v1}/moderation/users/bob/rotate-key", token=alice)
    api.request("POST", f"{v1}/moderation/users/bob/rotate-key", token=bob)
    api.request("DELETE", f"{v1}/moderation/domain-blocks/conform-loud.example", token=alice, json={"reason": "calmer"})
    api.request("DELETE", f"{v1}/moderation/domain-blocks/conform-loud.example", token=bob)
    log = api.request("GET", v1 + "/moderation/log?limit=3", token=alice).json()
    assert [(e["action"], e.get("domain")) for e in log["items"]] == [
        ("unblock_domain", "conform-loud.example"), ("limit_domain", "conform-loud.example"), ("suspend_domain", "conform-spam.example")]

    # Third-party apps: registration, the consent page, a code, a token, its scopes, revocation.
    app = api.request("POST", v1 + "/apps", data={"client_name": "Frame", "redirect_uris": "https://frame.example/cb",
                                                  "scopes": "read"}).json()
    api.request("POST", v1 + "/apps", json={"client_name": "Bad", "redirect_uris": "javascript:alert(1)"})
    api.request("POST", v1 + "/apps", files={"client_name": (None, "Multipart")})
    api.request("GET", "/.well-known/oauth-authorization-server")
    query = {"client_id": app["client_id"], "redirect_uri": "https://frame.example/cb", "response_type": "code",
             "scope": "read", "state": "s1"}
    api.request("GET", "/oauth/authorize", params=query)
    api.request("GET", "/oauth/authorize", params={**query, "redirect_uri": "https://evil.example/cb"})
    api.request("GET", "/oauth/authorize", params={**query, "scope": "write"}, allow_redirects=False)
    api.request("POST", "/oauth/authorize", data={**query, "username": "alice", "password": "wrong one!",
                                                  "decision": "approve"})
    approved = api.request("POST", "/oauth/authorize", allow_redirects=False,
                           data={**query, "username": "alice", "password": "correct horse", "decision": "approve"})
    code = re.search(r"code=([^&]+)", approved.headers["Location"]).group(1)
    token_form = {"grant_type": "authorization_code", "client_id": app["client_id"],
                  "client_secret": app["client_secret"], "code": code, "redirect_uri": "https://frame.example/cb"}
    api.request("POST", "/oauth/token", data={**token_form, "client_secret": "wrong"})
    granted = api.request("POST", "/oauth/token", data=token_form).json()
    assert granted["scope"] == "read"
    api.request("POST", "/oauth/token", data=token_form)
    api.request("POST", "/oauth/token", data={"grant_type": "password", "username": "alice"})
    app_token = granted["access_token"]
    api.request("GET", v1 + "/timeline", token=app_token)
    api.request("PUT", f"{v1}/posts/{pid}/like", token=app_token)
    api.request("GET", v1 + "/me/apps", token=app_token)
    apps = api.request("GET", v1 + "/me/apps", token=alice).json()["items"]
    assert [entry["name"] for entry in apps] == ["Frame"]
    api.request("POST", "/oauth/revoke", data={"client_id": app["client_id"], "client_secret": "wrong",
                                               "token": app_token})
    api.request("POST", "/oauth/revoke", data={"client_id": app["client_id"], "client_secret": app["client_secret"],
                                               "token": app_token})
    api.request("DELETE", f"{v1}/me/apps/{apps[0]['id']}", token=alice)

    # Deleting an account: the password is needed; the account goes, its token with it.
    api.request("POST", v1 + "/me/password/check", token=carol, json={"password": "not the password"})
    api.request("POST", v1 + "/me/password/check", token=carol, json={"password": "correct horse"})
    api.request("POST", v1 + "/me/password/check", token=carol, json={})
    api.request("POST", v1 + "/me/delete", token=carol, json={"password": "not the password"})
    api.request("POST", v1 + "/me/delete", token=carol, json={})
    api.request("POST", v1 + "/me/delete", token=carol, data="x", headers={"Content-Type": "text/plain"})
    api.request("POST", v1 + "/me/delete", json={"password": "correct horse"})
    api.request("POST", v1 + "/me/delete", token=carol, json={"password": "correct horse"})
    api.request("GET", v1 + "/me", token=carol)
    full = api.request("GET", post["image"]["full"]["url"])
    assert full.headers["X-Content-Type-Options"] == "nosniff"
    api.request("GET", post["image"]["full"]["url"], headers={"If-None-Match": full.headers["ETag"]})
    api.request("GET", "/media/0123456789abcdef0123456789abcdef.jpg")
    api.request("DELETE", f"{v1}/posts/{pid}", token=bob)
    api.request("DELETE", f"{v1}/posts/{pid}", token=alice)
    api.request("POST", v1 + "/events/tickets", token=bob)
    api.request("POST", v1 + "/events/tickets")
    api.request("GET", v1 + "/events", token=bob)
    api.request("GET", "/healthz")
    api.request("GET", "/metrics")
    api.request("GET", v1 + "/openapi.yaml")
    api.request("DELETE", v1 + "/sessions/current", token=alice)
    api.request("GET", v1 + "/me", token=alice)
    for _ in range(5):
        api.request("POST", v1 + "/sessions", json={"username": "bob", "password": "wrong one"})
    assert api.request("POST", v1 + "/sessions", json={"username": "bob", "password": "wrong one"}).status_code == 429

    missing = {key for key in OPERATIONS} - api.seen
    assert not missing, f"operations never exercised: {sorted(missing)}"
