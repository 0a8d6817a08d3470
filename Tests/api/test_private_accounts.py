"""Private accounts on the native API, as their owner and strangers would use them: a follow is a request, the
owner approves or declines it from the activity (live, with the unread count), counts count accepted follows
only, strangers see the profile but no post, and switching back to public accepts every request."""
import json
import time

import requests
import websocket

from test_mutes import post_photo, sign_up


def test_a_private_account_decides_who_follows_and_reads_it(server):
    v1 = server + "/api/v1"
    owner, asker, other = sign_up(v1, "privpia"), sign_up(v1, "privasa"), sign_up(v1, "privoli")

    def call(method: str, path: str, who: dict, **kwargs) -> requests.Response:
        return requests.request(method, v1 + path, headers=who, timeout=30, **kwargs)

    assert call("PUT", "/users/privpia/follow", other).json()["viewerFollows"] is True
    earlier = post_photo(v1, owner, "while public")
    plain = call("GET", "/timeline", other).json()["items"][0]["image"]["full"]["url"]
    assert "?" not in plain and requests.get(server + plain, timeout=30).status_code == 200
    switched = call("PATCH", "/me", owner, json={"isPrivate": True})
    assert switched.status_code == 200 and switched.json()["isPrivate"] is True
    assert switched.json()["followerCount"] == 1, "going private keeps the followers"
    post = post_photo(v1, owner, "for friends #privtest")
    # The follower's timeline, read while public, is read anew: the earlier post's photo is at a signed URL now, and
    # its plain URL is refused.
    now = next(i for i in call("GET", "/timeline", other).json()["items"] if i["id"] == earlier["id"])
    assert "?s=" in now["image"]["full"]["url"] and now["version"] > earlier["version"]
    assert requests.get(server + now["image"]["full"]["url"], timeout=30).status_code == 200
    assert requests.get(server + plain, timeout=30).status_code == 404

    # The owner's screen is open: the request arrives as an unread count, live.
    ticket = call("POST", "/events/tickets", owner).json()["ticket"]
    socket = websocket.create_connection(server.replace("http://", "ws://") + f"/api/v1/events?ticket={ticket}",
                                         timeout=20)
    assert json.loads(socket.recv())["type"] == "hello"

    asked = call("PUT", "/users/privpia/follow", asker)
    assert asked.status_code == 200
    assert asked.json() == {"followerCount": 1, "viewerFollows": False, "viewerRequested": True}
    while True:
        message = json.loads(socket.recv())
        if message["type"] == "activity.changed":
            break
    assert message["unreadCount"] >= 1
    socket.close()

    # A stranger (or someone waiting) sees the profile, but no post, like or comment.
    profile = call("GET", "/users/privpia", asker).json()
    assert profile["isPrivate"] is True and profile["viewerRequested"] is True and profile["viewerFollows"] is False
    assert call("GET", "/users/privpia/posts", asker).json()["items"] == []
    for method, path in (("GET", f"/posts/{post['id']}"), ("GET", f"/posts/{post['id']}/likes"),
                         ("GET", f"/posts/{post['id']}/comments"), ("PUT", f"/posts/{post['id']}/like")):
        assert call(method, path, asker).status_code == 404, (method, path)
    assert call("GET", "/tags/privtest/posts", asker).json()["items"] == []
    # Its photos are served only at the signed URLs its readers are given: the bare file name is not enough.
    signed = call("GET", f"/posts/{post['id']}", other).json()["image"]["full"]["url"]
    assert "?s=" in signed and signed == post["image"]["full"]["url"]
    bare = signed.split("?")[0]
    assert requests.get(server + signed, timeout=30).status_code == 200
    assert requests.get(server + signed, timeout=30).headers["Cache-Control"].startswith("private")
    assert requests.get(server + bare, timeout=30).status_code == 404
    assert requests.get(server + bare + "?s=99999999-" + "0" * 32, timeout=30).status_code == 404
    forged = signed[:-1] + ("0" if signed[-1] != "0" else "1")
    assert requests.get(server + forged, timeout=30).status_code == 404
    other_file = post["image"]["thumb"]["url"].split("?")[0]
    assert requests.get(server + other_file + "?" + signed.split("?")[1], timeout=30).status_code == 404, \
        "a signature is for one file"
    assert [p["id"] for p in call("GET", "/timeline", other).json()["items"]] == [post["id"], earlier["id"]], \
        "followers read it"

    # The request is in the owner's activity and list; the owner approves it there.
    for _ in range(100):
        groups = call("GET", "/activity", owner).json()["items"]
        if any(g["kind"] == "follow_request" for g in groups):
            break
        time.sleep(0.05)
    request = next(g for g in groups if g["kind"] == "follow_request")
    assert [a["username"] for a in request["actors"]] == ["privasa"]
    assert [u["username"] for u in call("GET", "/me/follow-requests", owner).json()["items"]] == ["privasa"]
    assert call("POST", "/me/follow-requests/privoli/approve", owner).status_code == 404, "never asked"
    assert call("POST", "/me/follow-requests/privasa/approve", owner).status_code == 204
    assert call("POST", "/me/follow-requests/privasa/approve", owner).status_code == 404, "answered already"
    assert call("GET", "/users/privpia", asker).json()["followerCount"] == 2
    assert call("GET", f"/posts/{post['id']}", asker).status_code == 200
    assert call("PUT", f"/posts/{post['id']}/like", asker).status_code == 200
    for _ in range(100):
        kinds = [g["kind"] for g in call("GET", "/activity", owner).json()["items"]]
        if "follow_request" not in kinds:
            break
        time.sleep(0.05)
    assert "follow_request" not in kinds and "follow" in kinds
    for _ in range(100):
        thumbs = [g["post"]["thumbnailURL"] for g in call("GET", "/activity", owner).json()["items"] if g.get("post")]
        if thumbs:
            break
        time.sleep(0.05)
    assert thumbs and all("?s=" in url for url in thumbs), "the like's line shows the photo at its signed URL"
    assert requests.get(server + thumbs[0], timeout=30).status_code == 200

    # Declined: nothing changes for the one declined but the pending mark; switching to public accepts requests.
    late = sign_up(v1, "privlou")
    assert call("PUT", "/users/privpia/follow", late).json()["viewerRequested"] is True
    assert call("POST", "/me/follow-requests/privlou/decline", owner).status_code == 204
    assert call("GET", "/users/privpia", late).json()["viewerRequested"] is False
    assert call("PUT", "/users/privpia/follow", late).json()["viewerRequested"] is True, "they may ask again"
    opened = call("PATCH", "/me", owner, json={"isPrivate": False}).json()
    assert opened["isPrivate"] is False and opened["followerCount"] == 3
    assert call("GET", "/users/privpia", late).json()["viewerFollows"] is True
    assert call("GET", "/me/follow-requests", owner).json()["items"] == []
    # Public again: the photos are everyone's, at their plain URLs.
    plain = call("GET", f"/posts/{post['id']}", late).json()["image"]["full"]["url"]
    assert "?" not in plain and requests.get(server + plain, timeout=30).status_code == 200


def test_an_owner_removes_a_follower_who_may_ask_again(server):
    """Removing a follower: they stop following, untold (no activity, nothing live), see a private account's posts no
    more, and may ask again; removing someone who does not follow changes nothing, and oneself is refused."""
    v1 = server + "/api/v1"
    owner, fan, other = sign_up(v1, "rempia"), sign_up(v1, "remfan"), sign_up(v1, "remoli")

    def call(method: str, path: str, who: dict, **kwargs) -> requests.Response:
        return requests.request(method, v1 + path, headers=who, timeout=30, **kwargs)

    assert call("PUT", "/users/rempia/follow", fan).json()["viewerFollows"] is True
    assert call("PATCH", "/me", owner, json={"isPrivate": True}).status_code == 200
    post = post_photo(v1, owner, "for friends")
    assert call("GET", f"/posts/{post['id']}", fan).status_code == 200

    assert call("DELETE", "/me/followers/remfan", owner).status_code == 204
    assert call("GET", "/users/rempia", owner).json()["followerCount"] == 0
    seen = call("GET", "/users/rempia", fan).json()
    assert seen["viewerFollows"] is False and seen.get("viewerRequested") is not True
    assert call("GET", f"/posts/{post['id']}", fan).status_code == 404
    assert all(item["author"]["username"] != "rempia" for item in call("GET", "/timeline", fan).json()["items"])
    assert call("GET", "/users/remfan", fan).json()["followingCount"] == 0

    # Again, of someone who does not follow: nothing changes. Oneself: 409. Nobody: 404.
    assert call("DELETE", "/me/followers/remfan", owner).status_code == 204
    assert call("DELETE", "/me/followers/remoli", owner).status_code == 204
    assert call("DELETE", "/me/followers/rempia", owner).status_code == 409
    assert call("DELETE", "/me/followers/nobody", owner).status_code == 404

    # A pending request goes the same way; and the removed may ask again.
    assert call("PUT", "/users/rempia/follow", other).json()["viewerRequested"] is True
    assert call("DELETE", "/me/followers/remoli", owner).status_code == 204
    assert call("GET", "/me/follow-requests", owner).json()["items"] == []
    assert call("PUT", "/users/rempia/follow", fan).json()["viewerRequested"] is True
    assert [p["username"] for p in call("GET", "/me/follow-requests", owner).json()["items"]] == ["remfan"]
