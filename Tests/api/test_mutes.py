"""Mutes on the native API: the muted person's posts leave the home timeline (and new ones never reach an open
screen), their likes, comments and follows leave the activity list and add nothing while it lasts; nothing else
changes and they are not told; an unmute brings it all back, the activity as read."""
import io
import json
import time
import zipfile

import requests
import websocket

from test_openapi_conformance import PHOTOS


def sign_up(v1: str, name: str) -> dict:
    body = {"username": name, "password": "correct horse", "displayName": name.title()}
    return {"Authorization": "Bearer " + requests.post(v1 + "/accounts", json=body, timeout=30).json()["token"]}


def post_photo(v1: str, headers: dict, caption: str) -> dict:
    with open(PHOTOS / "chelsea.jpg", "rb") as photo:
        answer = requests.post(v1 + "/posts", headers=headers, files={"image": photo}, data={"caption": caption},
                               timeout=60)
    assert answer.status_code == 201, answer.text
    return answer.json()


def test_a_mute_keeps_someone_out_of_feed_and_activity_until_undone(server):
    v1 = server + "/api/v1"
    get = lambda path, who: requests.get(v1 + path, headers=who, timeout=30)  # noqa: E731
    muter, loud, calm = sign_up(v1, "mutemia"), sign_up(v1, "muteleo"), sign_up(v1, "mutecal")
    for name in ("muteleo", "mutecal"):
        assert requests.put(f"{v1}/users/{name}/follow", headers=muter, timeout=30).status_code == 200
    loud_post = post_photo(v1, loud, "loud one")
    calm_post = post_photo(v1, calm, "calm one")
    mine = post_photo(v1, muter, "mine")
    assert requests.put(f"{v1}/posts/{mine['id']}/like", headers=loud, timeout=30).status_code == 200
    assert requests.post(f"{v1}/posts/{mine['id']}/comments", headers=loud, json={"text": "Loud words"},
                         timeout=30).status_code == 201
    assert requests.put(f"{v1}/users/mutemia/follow", headers=loud, timeout=30).status_code == 200
    timeline = lambda: [item["id"] for item in get("/timeline", muter).json()["items"]]  # noqa: E731
    assert timeline() == [mine["id"], calm_post["id"], loud_post["id"]]

    # Alice's screen is open: a muted person's new post never reaches it, another's does.
    ticket = requests.post(v1 + "/events/tickets", headers=muter, timeout=30).json()["ticket"]
    socket = websocket.create_connection(server.replace("http://", "ws://") + f"/api/v1/events?ticket={ticket}",
                                         timeout=20)
    assert json.loads(socket.recv())["type"] == "hello"

    muted = requests.put(v1 + "/users/muteleo/mute", headers=muter, timeout=30)
    assert muted.status_code == 200 and muted.json() == {"viewerMutes": True}
    assert timeline() == [mine["id"], calm_post["id"]]
    assert get("/users/muteleo", muter).json()["viewerMutes"] is True
    assert get("/users/muteleo", muter).json()["viewerFollows"] is True, "the follow stays"
    assert "viewerMutes" not in get("/users/mutemia", muter).json(), "nothing to say on one's own profile"
    assert get("/users/mutemia", loud).json()["viewerMutes"] is False, "they are not told"
    assert [user["username"] for user in get("/me/mutes", muter).json()["items"]] == ["muteleo"]
    archive = zipfile.ZipFile(io.BytesIO(get("/me/export", muter).content))
    assert json.loads(archive.read("muted.json")) == ["muteleo"], "the export holds whom you mute"

    def actors() -> set[str]:
        groups = get("/activity", muter).json()["items"]
        return {actor["username"] for group in groups for actor in group["actors"]}

    # The activity consumer works after each commit: wait until the mute has reached the list.
    for _ in range(100):
        if "muteleo" not in actors():
            break
        time.sleep(0.05)
    assert "muteleo" not in actors()

    newer = post_photo(v1, loud, "while muted")
    calm_newer = post_photo(v1, calm, "calm again")
    assert requests.post(f"{v1}/posts/{mine['id']}/comments", headers=loud, json={"text": "Still here"},
                         timeout=30).status_code == 201
    seen = []
    while True:
        message = json.loads(socket.recv())
        seen.append(message)
        if message["type"] == "post.created" and message["post"]["id"] == calm_newer["id"]:
            break
    assert not [m for m in seen if m["type"] == "post.created" and m["post"]["id"] == newer["id"]], \
        "the muted person's new post never reaches the open screen"
    socket.close()
    assert timeline() == [calm_newer["id"], mine["id"], calm_post["id"]]
    assert "muteleo" not in actors(), "nothing they do while muted reaches the activity"
    # Their own view is as before.
    assert mine["id"] in [item["id"] for item in get("/timeline", loud).json()["items"]]

    for bad, status in (("mutemia", 409), ("nobody_here", 404)):
        assert requests.put(f"{v1}/users/{bad}/mute", headers=muter, timeout=30).status_code == status

    unmuted = requests.delete(v1 + "/users/muteleo/mute", headers=muter, timeout=30)
    assert unmuted.status_code == 200 and unmuted.json() == {"viewerMutes": False}
    assert timeline() == [calm_newer["id"], newer["id"], mine["id"], calm_post["id"], loud_post["id"]]
    for _ in range(100):
        if "muteleo" in actors():
            break
        time.sleep(0.05)
    assert "muteleo" in actors(), "their activity is back"
    assert get("/me/mutes", muter).json()["items"] == []
