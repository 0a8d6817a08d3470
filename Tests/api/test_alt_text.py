"""Alt text on the native API: kept whole up to 1,500 characters from the post to every read, refused (422, nothing
stored) when longer or with control characters, changed by its author only, and heard live by screens showing the
post."""
import json

import requests
import websocket

from test_openapi_conformance import PHOTOS


def sign_up(v1: str, name: str) -> dict:
    body = {"username": name, "password": "correct horse", "displayName": name.title()}
    return {"Authorization": "Bearer " + requests.post(v1 + "/accounts", json=body, timeout=30).json()["token"]}


def post_photo(v1: str, headers: dict, **fields):
    with open(PHOTOS / "chelsea.jpg", "rb") as photo:
        return requests.post(v1 + "/posts", headers=headers, files={"image": photo}, data=fields, timeout=60)


def test_alt_text_is_kept_whole_refused_when_wrong_and_changed_live_by_its_author(server):
    v1 = server + "/api/v1"
    alice, bob = sign_up(v1, "altalice"), sign_up(v1, "altbob")
    mine = lambda: requests.get(v1 + "/users/altalice/posts", headers=alice, timeout=30).json()["items"]  # noqa: E731

    # 1,500 characters (one outside the Basic Multilingual Plane) are kept whole; one more is refused, as is a NUL.
    longest = "é" * 1_499 + "🐈"
    created = post_photo(v1, alice, caption="Our cat", altText=longest)
    assert created.status_code == 201, created.text
    post = created.json()
    assert post["image"]["altText"] == longest
    for bad in ("x" * 1_501, "a cat\u0000 asleep"):
        refused = post_photo(v1, alice, altText=bad)
        assert refused.status_code == 422 and "altText" in refused.json()["detail"], refused.text
    assert [item["id"] for item in mine()] == [post["id"]], "a refused post stores nothing"
    assert requests.get(f"{v1}/posts/{post['id']}", headers=bob, timeout=30).json()["image"]["altText"] == longest
    # Without one, the field is absent (clients then say the photo has no description).
    assert "altText" not in post_photo(v1, alice, altText="  ").json()["image"]

    # Bob watches the post; only Alice may change its alt text, and his screen hears of it.
    ticket = requests.post(v1 + "/events/tickets", headers=bob, timeout=30).json()["ticket"]
    socket = websocket.create_connection(server.replace("http://", "ws://") + f"/api/v1/events?ticket={ticket}",
                                         timeout=20)
    assert json.loads(socket.recv())["type"] == "hello"
    socket.send(json.dumps({"type": "subscribe", "posts": [post["id"]]}))
    assert json.loads(socket.recv())["type"] == "subscribed"
    assert json.loads(socket.recv())["type"] == "post.snapshot"
    assert requests.patch(f"{v1}/posts/{post['id']}", headers=bob, json={"altText": "mine"}, timeout=30
                          ).status_code == 403
    refused = requests.patch(f"{v1}/posts/{post['id']}", headers=alice, json={"altText": "y" * 1_501}, timeout=30)
    assert refused.status_code == 422
    edited = requests.patch(f"{v1}/posts/{post['id']}", headers=alice, json={"altText": "A grey cat asleep"},
                            timeout=30).json()
    assert edited["image"]["altText"] == "A grey cat asleep" and edited["caption"] == "Our cat"
    assert edited["version"] > post["version"] and "editedAt" not in edited
    changed = json.loads(socket.recv())
    assert changed == {"type": "post.photoChanged", "postId": post["id"], "version": edited["version"]}
    assert requests.get(f"{v1}/posts/{post['id']}", headers=bob, timeout=30).json()["image"]["altText"] == \
        "A grey cat asleep"
    timeline = requests.get(v1 + "/users/altalice/posts", headers=bob, timeout=30).json()["items"]
    assert timeline[1]["image"]["altText"] == "A grey cat asleep"
    # Empty removes it.
    cleared = requests.patch(f"{v1}/posts/{post['id']}", headers=alice, json={"altText": ""}, timeout=30).json()
    assert "altText" not in cleared["image"]
    socket.close()
