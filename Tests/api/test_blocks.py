"""Blocks on the native API, tried as both people would: the follows between them end, the blocked person's likes
and comments on the blocker's posts go (counts exact), and from then on neither sees nor reaches the other through
any route; open screens of both are told to load again; an unblock restores nothing."""
import io
import json
import time
import zipfile

import requests
import websocket

from test_mutes import post_photo, sign_up


def test_a_block_hides_both_sides_everywhere_and_takes_back_what_they_did(server):
    v1 = server + "/api/v1"
    blocker, blocked, other = sign_up(v1, "blockbea"), sign_up(v1, "blockbo"), sign_up(v1, "blockcy")

    def call(method: str, path: str, who: dict, **kwargs) -> requests.Response:
        return requests.request(method, v1 + path, headers=who, timeout=30, **kwargs)

    assert call("PUT", "/users/blockbo/follow", blocker).status_code == 200
    assert call("PUT", "/users/blockbea/follow", blocked).status_code == 200
    assert call("PUT", "/users/blockbea/follow", other).status_code == 200
    assert call("PUT", "/users/blockcy/follow", blocker).status_code == 200
    mine = post_photo(v1, blocker, "mine #blocktest")
    theirs = post_photo(v1, blocked, "theirs #blocktest")
    third = post_photo(v1, other, "a third")
    assert call("PUT", f"/posts/{mine['id']}/like", blocked).status_code == 200
    assert call("POST", f"/posts/{mine['id']}/comments", blocked, json={"text": "hi"}).status_code == 201
    assert call("PUT", f"/posts/{mine['id']}/like", other).status_code == 200
    assert call("PUT", f"/posts/{third['id']}/like", blocked).status_code == 200
    assert call("POST", f"/posts/{third['id']}/comments", blocked, json={"text": "bo was here"}).status_code == 201

    # Both have a live screen open.
    sockets = []
    for who in (blocker, blocked):
        ticket = call("POST", "/events/tickets", who).json()["ticket"]
        socket = websocket.create_connection(server.replace("http://", "ws://") + f"/api/v1/events?ticket={ticket}",
                                             timeout=20)
        assert json.loads(socket.recv())["type"] == "hello"
        socket.send(json.dumps({"type": "subscribe", "posts": [mine["id"], theirs["id"], third["id"]]}))
        sockets.append(socket)

    answer = call("PUT", "/users/blockbo/block", blocker)
    assert answer.status_code == 200 and answer.json() == {"viewerBlocks": True}
    # Each open screen is closed with "load again" (4000), to show no more of the other.
    for socket in sockets:
        while True:
            opcode, frame = socket.recv_data(control_frame=True)
            if opcode == websocket.ABNF.OPCODE_CLOSE:
                break
        assert int.from_bytes(frame[:2], "big") == 4000
        socket.close()
    # Loading again, the blocked person's screen may no longer follow the blocker's post.
    ticket = call("POST", "/events/tickets", blocked).json()["ticket"]
    again = websocket.create_connection(server.replace("http://", "ws://") + f"/api/v1/events?ticket={ticket}",
                                        timeout=20)
    assert json.loads(again.recv())["type"] == "hello"
    again.send(json.dumps({"type": "subscribe", "posts": [mine["id"], third["id"]]}))
    subscribed = json.loads(again.recv())
    assert subscribed["type"] == "subscribed"
    assert subscribed["posts"] == [third["id"]] and subscribed["unavailable"] == [mine["id"]]
    snapshot = json.loads(again.recv())
    assert snapshot["type"] == "post.snapshot" and snapshot["post"]["id"] == third["id"]
    again.close()
    # The blocker's screen on a third person's post never hears of what the blocked person does there.
    ticket = call("POST", "/events/tickets", blocker).json()["ticket"]
    watching = websocket.create_connection(server.replace("http://", "ws://") + f"/api/v1/events?ticket={ticket}",
                                           timeout=20)
    assert json.loads(watching.recv())["type"] == "hello"
    watching.send(json.dumps({"type": "subscribe", "posts": [third["id"]]}))
    assert json.loads(watching.recv())["type"] == "subscribed"
    seen = json.loads(watching.recv())
    assert seen["type"] == "post.snapshot" and "blockbo" not in json.dumps(seen)
    assert call("DELETE", f"/posts/{third['id']}/like", blocked).status_code == 200
    assert call("POST", f"/posts/{third['id']}/comments", blocked, json={"text": "still here"}).status_code == 201
    assert call("POST", f"/posts/{third['id']}/comments", other, json={"text": "from cy"}).status_code == 201
    heard = []
    while True:
        message = json.loads(watching.recv())
        heard.append(message)
        if message["type"] == "comment.created" and message["comment"]["text"] == "from cy":
            break
    assert "blockbo" not in json.dumps(heard), heard
    watching.close()

    profile = call("GET", "/users/blockbo", blocker).json()
    assert profile["viewerBlocks"] is True and profile["viewerFollows"] is False
    assert profile["followerCount"] == 0 and profile["followingCount"] == 0
    post = call("GET", f"/posts/{mine['id']}", blocker).json()
    assert post["likeCount"] == 1 and post["likers"] == ["blockcy"] and post["commentCount"] == 0
    seen_third = call("GET", f"/posts/{third['id']}", blocker).json()
    assert "blockbo" not in json.dumps(seen_third), "their marks on others' posts vanish"
    assert seen_third["commentCount"] == 3, "the count stays exact"
    assert call("GET", f"/posts/{third['id']}/likes", blocker).json()["items"] == []
    assert [c["text"] for c in call("GET", f"/posts/{third['id']}/comments", blocker).json()["items"]] == ["from cy"]
    assert len(call("GET", f"/posts/{third['id']}/comments", other).json()["items"]) == 3, "others still see them"
    assert call("GET", "/users/blockbo/posts", blocker).json()["items"] == []
    # Timelines are written from JSON shared between readers: read by someone who sees bo's comments first, the
    # post still reaches the blocker without them, twice (the second time from what was kept for the blocker).
    assert "blockbo" in json.dumps(call("GET", "/timeline", other).json())
    for _ in range(2):
        timeline = call("GET", "/timeline", blocker).json()["items"]
        assert third["id"] in [item["id"] for item in timeline] and "blockbo" not in json.dumps(timeline)
    assert call("GET", f"/posts/{theirs['id']}", blocker).status_code == 404
    assert [u["username"] for u in call("GET", "/me/blocks", blocker).json()["items"]] == ["blockbo"]
    archive = zipfile.ZipFile(io.BytesIO(call("GET", "/me/export", blocker).content))
    assert json.loads(archive.read("blocked.json")) == ["blockbo"], "the export holds whom you block"
    assert call("GET", "/users", blocker, params={"query": "blockbo"}).json()["items"] == []
    assert call("PUT", "/users/blockbo/follow", blocker).json()["code"] == "you_block_them"
    assert "viewerBlocks" not in call("GET", "/users/blockbea", blocker).json()

    # The blocked person finds nothing: every route answers as if the blocker did not exist.
    for method, path, body in (
            ("GET", "/users/blockbea", None),
            ("GET", "/users/blockbea/posts", None),
            ("GET", f"/posts/{mine['id']}", None),
            ("GET", f"/posts/{mine['id']}/likes", None),
            ("GET", f"/posts/{mine['id']}/comments", None),
            ("PUT", f"/posts/{mine['id']}/like", None),
            ("POST", f"/posts/{mine['id']}/comments", {"text": "let me in"}),
            ("POST", f"/posts/{mine['id']}/reports", {"reason": "spam"}),
            ("PUT", "/users/blockbea/follow", None)):
        answer = call(method, path, blocked, json=body) if body else call(method, path, blocked)
        assert answer.status_code == 404, (method, path, answer.status_code, answer.text)
        assert answer.json()["code"] == "not_found"
    assert call("GET", "/users", blocked, params={"query": "blockbea"}).json()["items"] == []
    assert "blockbea" not in [u["username"] for u in call("GET", "/me/suggestions", blocked).json()["items"]]
    tagged = [p["id"] for p in call("GET", "/tags/blocktest/posts", blocked).json()["items"]]
    assert tagged == [theirs["id"]]

    # Neither hears of the other: the activity consumer works after commit, so wait for it.
    def actors(who: dict) -> set[str]:
        groups = call("GET", "/activity", who).json()["items"]
        return {actor["username"] for group in groups for actor in group["actors"]}
    for _ in range(100):
        if "blockbo" not in actors(blocker):
            break
        time.sleep(0.05)
    assert "blockbo" not in actors(blocker) and "blockbea" not in actors(blocked)

    for bad, status in (("blockbea", 409), ("nobody_here", 404)):
        assert call("PUT", f"/users/{bad}/block", blocker).status_code == status

    unblocked = call("DELETE", "/users/blockbo/block", blocker)
    assert unblocked.status_code == 200 and unblocked.json() == {"viewerBlocks": False}
    assert call("GET", "/users/blockbea", blocked).json()["followerCount"] == 1, "nothing comes back by itself"
    assert call("GET", f"/posts/{mine['id']}", blocked).json()["likeCount"] == 1
    assert call("PUT", "/users/blockbea/follow", blocked).status_code == 200
