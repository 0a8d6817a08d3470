"""Albums on the native API: photos uploaded first (each its own request, progress and cancel), posted together in
the order given with their own alt texts; every read carries every photo; one photo's alt text changes alone and
live; refused albums store nothing; deleting a post removes every photo's files; the export holds them all."""
import io
import json
import os
import zipfile

import requests
import websocket

from test_openapi_conformance import PHOTOS

PHOTO_FILES = ["chelsea.jpg", "rocket.jpg", "astronaut.jpg", "hubble.jpg", "astronaut.png", "chelsea.webp"]


def sign_up(v1: str, name: str) -> dict:
    body = {"username": name, "password": "correct horse", "displayName": name.title()}
    return {"Authorization": "Bearer " + requests.post(v1 + "/accounts", json=body, timeout=30).json()["token"]}


def upload(v1: str, headers: dict, name: str, **fields) -> requests.Response:
    with open(PHOTOS / name, "rb") as photo:
        return requests.post(v1 + "/uploads", headers=headers, files={"image": photo}, data=fields, timeout=60)


def uploaded(v1: str, headers: dict, name: str, **fields) -> dict:
    answer = upload(v1, headers, name, **fields)
    assert answer.status_code == 201, answer.text
    return answer.json()


def media_files(data: str) -> set[str]:
    folder = os.path.join(data, "media")
    return {name for _, _, names in os.walk(folder) for name in names}


def test_an_album_keeps_its_photos_in_order_with_their_own_alt_texts_everywhere(server, server_data):
    v1 = server + "/api/v1"
    alice, bob = sign_up(v1, "albumalice"), sign_up(v1, "albumbob")
    assert requests.put(v1 + "/users/albumalice/follow", headers=bob, timeout=30).status_code == 200

    first = uploaded(v1, alice, "chelsea.jpg", altText="A cat on a sofa", crop="square")
    second = uploaded(v1, alice, "rocket.jpg")
    third = uploaded(v1, alice, "astronaut.jpg", altText="An astronaut above the Earth", crop="square")
    assert first["image"]["altText"] == "A cat on a sofa" and "altText" not in second["image"]
    assert first["image"]["width"] == first["image"]["height"], "each upload is cut as its post will show it"

    created = requests.post(v1 + "/posts", headers=alice, timeout=30,
                            json={"caption": "Weekend #album", "uploads": [third["id"], first["id"], second["id"]]})
    assert created.status_code == 201, created.text
    post = created.json()
    photos = post["photos"]
    assert [photo.get("altText") for photo in photos] == \
        ["An astronaut above the Earth", "A cat on a sofa", None], "in the order the uploads were named"
    assert [photo["full"]["url"] for photo in photos] == \
        [third["image"]["full"]["url"], first["image"]["full"]["url"], second["image"]["full"]["url"]]
    assert post["image"] == photos[0], "the first photo is the cover every client before albums reads"
    assert all(requests.get(server + photo["full"]["url"], timeout=30).status_code == 200 for photo in photos)

    # Every read carries every photo, in one answer.
    single = requests.post(v1 + "/posts", headers=alice, timeout=30,
                           json={"uploads": [uploaded(v1, alice, "hubble.jpg")["id"]]}).json()
    assert "photos" not in single, "a post of one photo is `image` alone, as before"
    reads = [
        requests.get(f"{v1}/posts/{post['id']}", headers=bob, timeout=30).json(),
        next(item for item in requests.get(v1 + "/timeline", headers=bob, timeout=30).json()["items"]
             if item["id"] == post["id"]),
        next(item for item in requests.get(v1 + "/users/albumalice/posts", headers=bob, timeout=30).json()["items"]
             if item["id"] == post["id"]),
        requests.get(v1 + "/tags/album/posts", headers=bob, timeout=30).json()["items"][0],
    ]
    for read in reads:
        assert read["photos"] == photos and read["image"] == photos[0]
    # An upload is used once: posted, it is no longer an upload.
    again = requests.post(v1 + "/posts", headers=alice, json={"uploads": [first["id"]]}, timeout=30)
    assert again.status_code == 404

    # Bob watches the post; Alice describes its third photo, and only that one changes.
    ticket = requests.post(v1 + "/events/tickets", headers=bob, timeout=30).json()["ticket"]
    socket = websocket.create_connection(server.replace("http://", "ws://") + f"/api/v1/events?ticket={ticket}",
                                         timeout=20)
    assert json.loads(socket.recv())["type"] == "hello"
    socket.send(json.dumps({"type": "subscribe", "posts": [post["id"]]}))
    assert json.loads(socket.recv())["type"] == "subscribed"
    assert json.loads(socket.recv())["type"] == "post.snapshot"
    edit = lambda headers, body: requests.patch(f"{v1}/posts/{post['id']}", headers=headers, json=body,  # noqa: E731
                                                timeout=30)
    assert edit(bob, {"altText": "mine", "photo": 3}).status_code == 403
    assert edit(alice, {"altText": "too far", "photo": 4}).status_code == 404
    assert edit(alice, {"altText": "zero", "photo": 0}).status_code == 422
    assert edit(alice, {"photo": 2}).json()["version"] == post["version"], "a photo number alone changes nothing"
    assert edit(alice, {"altText": "y" * 1_501, "photo": 3}).status_code == 422
    edited = edit(alice, {"altText": "A white rocket on its pad", "photo": 3})
    assert edited.status_code == 200, edited.text
    assert [photo.get("altText") for photo in edited.json()["photos"]] == \
        ["An astronaut above the Earth", "A cat on a sofa", "A white rocket on its pad"]
    changed = json.loads(socket.recv())
    assert changed == {"type": "post.photoChanged", "postId": post["id"], "version": edited.json()["version"]}
    socket.close()
    seen = requests.get(f"{v1}/posts/{post['id']}", headers=bob, timeout=30).json()
    assert seen["photos"][2]["altText"] == "A white rocket on its pad"

    # The export holds every photo and its alt text.
    archive = zipfile.ZipFile(io.BytesIO(requests.get(v1 + "/me/export", headers=alice, timeout=60).content))
    exported = next(entry for entry in json.loads(archive.read("posts.json")) if entry["id"] == post["id"])
    assert [photo["photo"] for photo in exported["photos"]] == \
        [f"photos/{post['id']}.jpg", f"photos/{post['id']}-2.jpg", f"photos/{post['id']}-3.jpg"]
    assert [photo.get("altText") for photo in exported["photos"]] == \
        ["An astronaut above the Earth", "A cat on a sofa", "A white rocket on its pad"]
    for photo in exported["photos"]:
        assert archive.read(photo["photo"])[:3] == b"\xff\xd8\xff"

    # Deleting the post removes every photo's files.
    names = {photo[key]["url"].rsplit("/", 1)[1] for photo in photos for key in ("full", "thumb")}
    names |= {variant["url"].rsplit("/", 1)[1] for photo in photos for variant in photo["variants"]}
    assert names <= media_files(server_data)
    assert requests.delete(f"{v1}/posts/{post['id']}", headers=alice, timeout=30).status_code == 204
    assert not names & media_files(server_data), "no photo of the album is left behind"
    assert all(requests.get(server + photo["full"]["url"], timeout=30).status_code == 404 for photo in photos)


def test_albums_that_cannot_be_posted_store_nothing_and_a_cancelled_upload_is_forgotten(server, server_data):
    v1 = server + "/api/v1"
    alice, bob = sign_up(v1, "albumcarol"), sign_up(v1, "albumdave")
    mine = lambda: requests.get(v1 + "/users/albumcarol/posts", headers=alice, timeout=30).json()["items"]  # noqa: E731
    ids = [uploaded(v1, alice, PHOTO_FILES[index % len(PHOTO_FILES)])["id"] for index in range(11)]
    bobs = uploaded(v1, bob, "chelsea.jpg")["id"]

    def refused(uploads, status, words):
        answer = requests.post(v1 + "/posts", headers=alice, json={"caption": "x", "uploads": uploads}, timeout=30)
        assert answer.status_code == status and words in answer.json()["detail"], answer.text
        assert mine() == [], "nothing was posted"

    refused(ids, 422, "uploads: a post holds at most 10 photos")
    refused([], 422, "uploads: a post needs at least one photo")
    refused([ids[0], ids[1], ids[0]], 422, "uploads: each photo can be in a post once")
    refused([ids[0], bobs], 404, "media")
    refused([ids[0], 999_999_999], 404, "media")
    bad_caption = requests.post(v1 + "/posts", headers=alice, json={"caption": "a\u0000b", "uploads": ids[:2]},
                                timeout=30)
    assert bad_caption.status_code == 422 and mine() == []
    # The uploads refused with their album are still there to post.
    ten = requests.post(v1 + "/posts", headers=alice, json={"uploads": ids[:10]}, timeout=30)
    assert ten.status_code == 201 and len(ten.json()["photos"]) == 10, ten.text
    # A bad photo is refused on its own upload, before any post.
    with open(PHOTOS / "not-an-image.jpg", "rb") as text:
        assert requests.post(v1 + "/uploads", headers=alice, files={"image": text}, timeout=30).status_code == 415
    refused_alt = upload(v1, alice, "rocket.jpg", altText="z" * 1_501)
    assert refused_alt.status_code == 422 and "altText" in refused_alt.json()["detail"]

    # Cancelled in the composer: the upload is forgotten at once, files and all; nobody else can.
    left = ids[10]
    upload_files = media_files(server_data)
    assert requests.delete(f"{v1}/uploads/{left}", headers=bob, timeout=30).status_code == 404
    assert requests.delete(f"{v1}/uploads/{left}", headers=alice, timeout=30).status_code == 204
    assert requests.delete(f"{v1}/uploads/{left}", headers=alice, timeout=30).status_code == 404
    assert len(media_files(server_data)) < len(upload_files)
    assert requests.post(v1 + "/posts", headers=alice, json={"uploads": [left]}, timeout=30).status_code == 404
