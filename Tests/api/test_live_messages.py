"""Every message the event stream sends in a tour of its events matches the OpenAPI document's
LiveServerMessage schema, with a browser-style ticket and with a bearer token."""
import json

import jsonschema
import requests
import websocket

from test_openapi_conformance import PHOTOS, SPEC


def check(message: dict) -> dict:
    schema = {"$ref": "#/components/schemas/LiveServerMessage", "components": SPEC["components"]}
    jsonschema.validate(
        message, schema, cls=jsonschema.Draft202012Validator,
        format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER,
    )
    return message


def receive(socket) -> dict:
    return check(json.loads(socket.recv()))


def test_live_messages_match_the_document(server):
    v1 = server + "/api/v1"
    ws_base = server.replace("http://", "ws://") + "/api/v1/events"

    def sign_up(name: str) -> dict:
        body = {"username": name, "password": "correct horse", "displayName": name.title()}
        return {"Authorization": "Bearer " + requests.post(v1 + "/accounts", json=body, timeout=30).json()["token"]}

    alice, bob = sign_up("livealice"), sign_up("livebob")
    with open(PHOTOS / "chelsea.jpg", "rb") as photo:
        post = requests.post(v1 + "/posts", headers=alice, files={"image": photo}, timeout=30).json()

    ticket = requests.post(v1 + "/events/tickets", headers=bob, timeout=30).json()["ticket"]
    socket = websocket.create_connection(f"{ws_base}?ticket={ticket}", timeout=20)
    assert receive(socket)["type"] == "hello"
    socket.send(json.dumps({"type": "subscribe", "posts": [post["id"], 999999]}))
    subscribed = receive(socket)
    assert subscribed == {"type": "subscribed", "posts": [post["id"]], "unavailable": [999999]}
    assert receive(socket)["type"] == "post.snapshot"

    requests.put(f"{v1}/posts/{post['id']}/like", headers=alice, timeout=30)
    liked = receive(socket)
    assert liked["type"] == "post.liked" and liked["likeCount"] == 1 and not liked["viewerHasLiked"]
    comment = requests.post(f"{v1}/posts/{post['id']}/comments", headers=alice, json={"text": "hi"}, timeout=30).json()
    assert receive(socket)["type"] == "comment.created"
    requests.delete(f"{v1}/comments/{comment['id']}", headers=alice, timeout=30)
    assert receive(socket)["type"] == "comment.deleted"
    requests.patch(f"{v1}/posts/{post['id']}", headers=alice, json={"altText": "A cat"}, timeout=30)
    changed = receive(socket)
    assert changed["type"] == "post.photoChanged" and changed["postId"] == post["id"]
    requests.put(f"{v1}/users/livealice/follow", headers=bob, timeout=30)
    with open(PHOTOS / "chelsea.jpg", "rb") as photo:
        requests.post(v1 + "/posts", headers=alice, files={"image": photo}, timeout=30)
    assert receive(socket)["type"] == "post.created"
    requests.delete(f"{v1}/posts/{post['id']}", headers=alice, timeout=30)
    assert receive(socket)["type"] == "post.deleted"
    socket.send("not json")
    assert receive(socket)["type"] == "error"

    # The same user with a bearer token; logging out closes both sockets with the documented code.
    second = websocket.create_connection(ws_base, header=[f"Authorization: {bob['Authorization']}"], timeout=20)
    assert receive(second)["type"] == "hello"
    requests.delete(v1 + "/sessions/current", headers=bob, timeout=30)
    for closing in (socket, second):
        opcode, frame = closing.recv_data(control_frame=True)
        assert opcode == websocket.ABNF.OPCODE_CLOSE
        assert int.from_bytes(frame[:2], "big") == 4001


def test_refused_sockets_close_with_the_documented_code(server):
    v1 = server + "/api/v1"
    ws_base = server.replace("http://", "ws://") + "/api/v1/events"
    body = {"username": "liveticket", "password": "correct horse", "displayName": "T"}
    token = requests.post(v1 + "/accounts", json=body, timeout=30).json()["token"]
    ticket = requests.post(v1 + "/events/tickets", headers={"Authorization": "Bearer " + token}, timeout=30).json()
    used = websocket.create_connection(f"{ws_base}?ticket={ticket['ticket']}", timeout=20)
    assert receive(used)["type"] == "hello"
    used.close()
    for url, header in [
        (f"{ws_base}?ticket={ticket['ticket']}", []),
        (ws_base, ["Authorization: Bearer not-a-token"]),
        (ws_base, []),
    ]:
        refused = websocket.create_connection(url, header=header, timeout=20)
        opcode, frame = refused.recv_data(control_frame=True)
        assert opcode == websocket.ABNF.OPCODE_CLOSE
        assert int.from_bytes(frame[:2], "big") == 4002
        refused.close()
