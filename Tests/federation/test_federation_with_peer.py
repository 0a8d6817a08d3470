"""A Makestagram server and a peer built on bovine (an independent ActivityPub library; peer.py) on loopback names:
the peer finds people here, follows, likes, replies and takes each back, every request signed and checked by the other
side's own code, and whatever a peer sends wrongly signed is refused with nothing kept."""
import concurrent.futures
import pathlib
import subprocess
import sys
import time
import uuid

import pytest
import requests

from federation_support import (FederatedServer, HostNames, Peer, another_peer, eventually, free_loopback_address,
                                server_binary)

PHOTOS = pathlib.Path(__file__).resolve().parents[1] / "TestFixtures" / "photos"
AS = "application/activity+json"


@pytest.fixture(scope="module")
def world():
    names = HostNames()
    servers = []
    try:
        a, p = free_loopback_address(), free_loopback_address()
        names.add("mk-a.test", a)
        names.add("peer.test", p)
        mk = FederatedServer("mk-a.test", a, "--rate-limit", "signups=off")
        servers.append(mk)
        peer = Peer("peer.test", p)
        servers.append(peer)
        alice = mk.sign_up("alice")
        with open(PHOTOS / "chelsea.jpg", "rb") as photo:
            answer = requests.post(mk.base + "/api/v1/posts", headers=alice, files={"image": photo},
                                   data={"caption": "Hello #fediverse", "altText": "A cat on a sofa"}, timeout=60)
        assert answer.status_code == 201, answer.text
        peer.person("bob", "Bob Peer")
        peer.person("carol", "Carol Peer")
        yield {"mk": mk, "peer": peer, "alice": alice, "post": answer.json()}
    finally:
        for server in servers:
            server.stop()
        names.remove()


def activity_id(kind: str) -> str:
    return f"http://peer.test/activities/{kind}/{uuid.uuid4()}"


def test_the_peer_finds_alice_and_reads_her_and_her_post(world):
    mk, peer, post = world["mk"], world["peer"], world["post"]
    finger = requests.get(mk.base + "/.well-known/webfinger", params={"resource": "acct:alice@mk-a.test"},
                          timeout=10).json()
    assert finger["subject"] == "acct:alice@mk-a.test"
    link = next(link for link in finger["links"] if link["rel"] == "self")
    assert link["href"] == "http://mk-a.test/users/alice" and link["type"] == AS
    # Fetched signed by bovine, as another server would.
    fetched = peer.fetch("bob", link["href"])
    assert fetched["status"] == 200
    actor = __import__("json").loads(fetched["body"])
    assert actor["id"] == link["href"] and actor["type"] == "Person"
    assert actor["publicKey"]["owner"] == actor["id"] and "BEGIN PUBLIC KEY" in actor["publicKey"]["publicKeyPem"]
    assert actor["endpoints"]["sharedInbox"] == "http://mk-a.test/inbox"
    for field in ("inbox", "outbox", "followers", "following", "url", "manuallyApprovesFollowers"):
        assert field in actor
    nodeinfo = requests.get(mk.base + "/.well-known/nodeinfo", timeout=10).json()
    document = requests.get(nodeinfo["links"][0]["href"], timeout=10).json()
    assert document["protocols"] == ["activitypub"] and document["usage"]["users"]["total"] >= 1
    # The post's id answers its Note to ActivityPub clients and the page to browsers.
    note = requests.get(f"http://mk-a.test/p/{post['id']}", headers={"Accept": AS}, timeout=10).json()
    assert note["type"] == "Note" and note["attributedTo"] == actor["id"]
    assert note["attachment"][0]["type"] == "Image" and note["attachment"][0]["name"] == "A cat on a sofa"
    assert {"type": "Hashtag", "name": "#fediverse", "href": "http://mk-a.test/t/fediverse"} in note["tag"]
    page = requests.get(f"http://mk-a.test/p/{post['id']}", headers={"Accept": "text/html"}, timeout=10)
    assert page.headers["content-type"].startswith("text/html")
    assert requests.get(mk.base + "/.well-known/webfinger", params={"resource": "acct:alice@elsewhere.test"},
                        timeout=10).status_code == 404


def test_a_follow_from_the_peer_counts_and_is_accepted(world):
    mk, peer = world["mk"], world["peer"]
    follow = {"@context": "https://www.w3.org/ns/activitystreams", "id": activity_id("follow"), "type": "Follow",
              "actor": "http://peer.test/users/bob", "object": "http://mk-a.test/users/alice"}
    answer = peer.send("bob", "http://mk-a.test/users/alice/inbox", follow)
    assert answer["status"] == 202, answer
    profile = requests.get(mk.base + "/api/v1/users/alice", headers=world["alice"], timeout=10).json()
    assert profile["followerCount"] == 1
    followers = requests.get(mk.base + "/api/v1/users/alice/followers", headers=world["alice"], timeout=10).json()
    assert [person["username"] for person in followers["items"]] == ["bob@peer.test"]
    # Bob's avatar was fetched through the photo pipeline and is served from here.
    bob = requests.get(mk.base + "/api/v1/users/bob@peer.test", headers=world["alice"], timeout=10).json()
    assert bob["displayName"] == "Bob Peer" and bob["bio"] == "Bob Peer on peer.test"
    assert bob["avatarURL"].startswith("/media/")
    assert requests.get(mk.base + bob["avatarURL"], timeout=10).headers["content-type"].startswith("image/")

    # The Accept reaches bob's inbox, signed by alice's key and verified by bovine.
    def accepted():
        return [item["activity"] for item in peer.received()["received"] if item["activity"]["type"] == "Accept"]
    accepts = eventually(accepted)
    assert accepts, peer.received()
    assert accepts[0]["actor"] == "http://mk-a.test/users/alice"
    accepted_follow = accepts[0]["object"]
    assert {key: accepted_follow[key] for key in ("id", "type", "actor", "object")} == {
        key: follow[key] for key in ("id", "type", "actor", "object")}
    assert peer.received()["refused"] == []


def test_likes_from_the_peer_count_once_and_undo_takes_them_back(world):
    mk, peer, post, alice = world["mk"], world["peer"], world["post"], world["alice"]
    note = f"http://mk-a.test/p/{post['id']}"

    def state():
        return requests.get(f"{mk.base}/api/v1/posts/{post['id']}", headers=alice, timeout=10).json()

    like = {"id": activity_id("like"), "type": "Like", "actor": "http://peer.test/users/bob", "object": note}
    assert peer.send("bob", "http://mk-a.test/inbox", like)["status"] == 202
    assert state()["likeCount"] == 1 and state()["likers"] == ["bob@peer.test"]
    # The same Like again, or a new Like id from the same person: still one.
    assert peer.send("bob", "http://mk-a.test/inbox", like)["status"] == 202
    assert peer.send("bob", "http://mk-a.test/inbox", {**like, "id": activity_id("like")})["status"] == 202
    assert state()["likeCount"] == 1

    # The like reaches alice's activity.
    def liked_by_bob():
        groups = requests.get(mk.base + "/api/v1/activity", headers=alice, timeout=10).json()["items"]
        return any(actor["username"] == "bob@peer.test" for group in groups if group["kind"] == "like"
                   for actor in group["actors"])
    assert eventually(liked_by_bob)

    undo = {"id": activity_id("undo"), "type": "Undo", "actor": "http://peer.test/users/bob", "object": like}
    assert peer.send("bob", "http://mk-a.test/inbox", undo)["status"] == 202
    assert state()["likeCount"] == 0
    # Like again, and Undo naming the Like by id only.
    again = {**like, "id": activity_id("like")}
    assert peer.send("bob", "http://mk-a.test/inbox", again)["status"] == 202
    assert state()["likeCount"] == 1
    by_id = {"id": activity_id("undo"), "type": "Undo", "actor": "http://peer.test/users/bob", "object": again["id"]}
    assert peer.send("bob", "http://mk-a.test/inbox", by_id)["status"] == 202
    assert state()["likeCount"] == 0


def test_a_reply_from_the_peer_is_a_comment_until_deleted(world):
    mk, peer, post, alice = world["mk"], world["peer"], world["post"], world["alice"]
    note_id = f"http://peer.test/notes/{uuid.uuid4()}"
    reply = {"id": note_id, "type": "Note", "attributedTo": "http://peer.test/users/bob",
             "inReplyTo": f"http://mk-a.test/p/{post['id']}",
             "content": "<p>What a <b>lovely</b> cat &amp; sofa</p>", "to": ["https://www.w3.org/ns/activitystreams#Public"]}
    create = {"id": note_id + "/activity", "type": "Create", "actor": "http://peer.test/users/bob", "object": reply}
    assert peer.send("bob", "http://mk-a.test/inbox", create)["status"] == 202
    assert peer.send("bob", "http://mk-a.test/inbox", create)["status"] == 202, "the same reply twice"
    comments = requests.get(f"{mk.base}/api/v1/posts/{post['id']}/comments", headers=alice, timeout=10).json()
    assert [(c["author"]["username"], c["text"]) for c in comments["items"]] == [
        ("bob@peer.test", "What a lovely cat & sofa")]

    # Another reply, delivered four times at once: one comment.
    other_id = f"http://peer.test/notes/{uuid.uuid4()}"
    other = {"id": other_id + "/activity", "type": "Create", "actor": "http://peer.test/users/bob",
             "object": {**reply, "id": other_id, "content": "<p>Again</p>"}}
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        answers = list(pool.map(lambda _: peer.send("bob", "http://mk-a.test/inbox", other), range(4)))
    assert [answer["status"] for answer in answers] == [202] * 4, answers
    comments = requests.get(f"{mk.base}/api/v1/posts/{post['id']}/comments", headers=alice, timeout=10).json()
    assert [c["text"] for c in comments["items"]] == ["What a lovely cat & sofa", "Again"]
    undo = {"id": activity_id("delete"), "type": "Delete", "actor": "http://peer.test/users/bob", "object": other_id}
    assert peer.send("bob", "http://mk-a.test/inbox", undo)["status"] == 202

    # A reply for bob's followers, or for alice alone, is not a comment: everyone who sees the post would read it.
    for to, cc in ((["http://peer.test/users/bob/followers"], ["http://mk-a.test/users/alice"]),
                   (["http://mk-a.test/users/alice"], [])):
        narrow_id = f"http://peer.test/notes/{uuid.uuid4()}"
        narrow = {"id": narrow_id + "/activity", "type": "Create", "actor": "http://peer.test/users/bob",
                  "object": {**reply, "id": narrow_id, "content": "<p>Just between us</p>", "to": to, "cc": cc}}
        assert peer.send("bob", "http://mk-a.test/inbox", narrow)["status"] == 202
    comments = requests.get(f"{mk.base}/api/v1/posts/{post['id']}/comments", headers=alice, timeout=10).json()
    assert [c["text"] for c in comments["items"]] == ["What a lovely cat & sofa"]

    # Replies to comments stay under the post: carol answers bob's reply, and bob answers alice's comment here.
    answer = requests.post(f"{mk.base}/api/v1/posts/{post['id']}/comments", headers=alice,
                           json={"text": "Thank you"}, timeout=30)
    assert answer.status_code == 201, answer.text
    threaded = []
    for name, parent, text in (("carol", note_id, "Agreed"),
                               ("bob", f"http://mk-a.test/comments/{answer.json()['id']}", "You're welcome")):
        thread_id = f"http://peer.test/notes/{uuid.uuid4()}"
        threaded.append(thread_id)
        create = {"id": thread_id + "/activity", "type": "Create", "actor": f"http://peer.test/users/{name}",
                  "object": {"id": thread_id, "type": "Note", "attributedTo": f"http://peer.test/users/{name}",
                             "inReplyTo": parent, "content": f"<p>{text}</p>",
                             "to": ["https://www.w3.org/ns/activitystreams#Public"]}}
        assert peer.send(name, "http://mk-a.test/inbox", create)["status"] == 202
    comments = requests.get(f"{mk.base}/api/v1/posts/{post['id']}/comments", headers=alice, timeout=10).json()
    assert [(c["author"]["username"], c["text"]) for c in comments["items"]] == [
        ("bob@peer.test", "What a lovely cat & sofa"), ("alice", "Thank you"), ("carol@peer.test", "Agreed"),
        ("bob@peer.test", "You're welcome")]
    # Its id is its reply's document for servers, and its post's page for people.
    comment_uri = f"{mk.base}/comments/{answer.json()['id']}"
    fetched = requests.get(comment_uri, headers={"Accept": "application/activity+json"}, timeout=10)
    assert fetched.status_code == 200, fetched.text
    document = fetched.json()
    assert document["id"] == f"http://mk-a.test/comments/{answer.json()['id']}" and document["type"] == "Note"
    assert document["inReplyTo"] == f"http://mk-a.test/p/{post['id']}" and "Thank you" in document["content"]
    assert document["attributedTo"] == "http://mk-a.test/users/alice"
    assert "https://www.w3.org/ns/activitystreams#Public" in document["to"]
    shown = requests.get(comment_uri, allow_redirects=False, timeout=10)
    assert shown.status_code == 302 and shown.headers["Location"] == f"http://mk-a.test/p/{post['id']}"
    assert requests.get(f"{mk.base}/comments/999999", headers={"Accept": "application/activity+json"},
                        timeout=10).status_code == 404
    # A reply kept here from elsewhere is not this server's to give.
    kept_id = comments["items"][2]["id"]
    assert requests.get(f"{mk.base}/comments/{kept_id}", headers={"Accept": "application/activity+json"},
                        timeout=10).status_code == 404

    # A like of alice's comment (Mastodon lets its people favourite replies) is taken and changes nothing here; one of
    # a comment that does not exist is a 404.
    for comment_id, status in ((answer.json()["id"], 202), (999999, 404)):
        like = {"id": activity_id("like"), "type": "Like", "actor": "http://peer.test/users/bob",
                "object": f"http://mk-a.test/comments/{comment_id}"}
        assert peer.send("bob", "http://mk-a.test/inbox", like)["status"] == status
    assert requests.get(f"{mk.base}/api/v1/posts/{post['id']}", headers=alice, timeout=10).json()["likeCount"] == 0
    for name, thread_id in zip(("carol", "bob"), threaded):
        delete = {"id": activity_id("delete"), "type": "Delete", "actor": f"http://peer.test/users/{name}",
                  "object": thread_id}
        assert peer.send(name, "http://mk-a.test/inbox", delete)["status"] == 202
    assert requests.delete(f"{mk.base}/api/v1/comments/{answer.json()['id']}", headers=alice,
                           timeout=30).status_code == 204

    # Carol cannot delete bob's reply; bob can.
    forged = {"id": activity_id("delete"), "type": "Delete", "actor": "http://peer.test/users/carol",
              "object": note_id}
    assert peer.send("carol", "http://mk-a.test/inbox", forged)["status"] == 202
    assert requests.get(f"{mk.base}/api/v1/posts/{post['id']}", headers=alice, timeout=10).json()["commentCount"] == 1
    delete = {"id": activity_id("delete"), "type": "Delete", "actor": "http://peer.test/users/bob",
              "object": {"id": note_id, "type": "Tombstone"}}
    assert peer.send("bob", "http://mk-a.test/inbox", delete)["status"] == 202
    assert requests.get(f"{mk.base}/api/v1/posts/{post['id']}", headers=alice, timeout=10).json()["commentCount"] == 0


@pytest.mark.parametrize("broken, status, reason", [
    ("unsigned", 401, "not signed"), ("digest", 400, "Digest does not match"), ("date", 401, "12 hours"),
    ("key", 401, "not the actor's")])
def test_activities_signed_wrongly_are_refused_and_change_nothing(world, broken, status, reason):
    mk, peer, post, alice = world["mk"], world["peer"], world["post"], world["alice"]
    before = requests.get(f"{mk.base}/api/v1/posts/{post['id']}", headers=alice, timeout=10).json()["likeCount"]
    like = {"id": activity_id("like"), "type": "Like", "actor": "http://peer.test/users/bob",
            "object": f"http://mk-a.test/p/{post['id']}"}
    # `key`: signed by carol's key while the activity says it is bob's.
    answer = peer.send("bob", "http://mk-a.test/inbox", like, broken=broken,
                       signer="carol" if broken == "key" else "bob")
    assert answer["status"] == status and reason in answer["body"], answer
    assert requests.get(f"{mk.base}/api/v1/posts/{post['id']}", headers=alice, timeout=10).json()["likeCount"] == before


def test_ids_on_another_server_than_the_actor_are_refused(world):
    mk, peer, post, alice = world["mk"], world["peer"], world["post"], world["alice"]
    like = {"id": "http://elsewhere.test/likes/1", "type": "Like", "actor": "http://peer.test/users/bob",
            "object": f"http://mk-a.test/p/{post['id']}"}
    assert peer.send("bob", "http://mk-a.test/inbox", like)["status"] == 400
    # An actor claiming to be on this server.
    local = {"id": activity_id("like"), "type": "Like", "actor": "http://mk-a.test/users/alice",
             "object": f"http://mk-a.test/p/{post['id']}"}
    assert peer.send("bob", "http://mk-a.test/inbox", local)["status"] == 401
    assert requests.get(f"{mk.base}/api/v1/posts/{post['id']}", headers=alice, timeout=10).json()["likeCount"] == 0


def test_an_undone_follow_no_longer_counts(world):
    mk, peer = world["mk"], world["peer"]
    follow = {"id": activity_id("follow"), "type": "Follow", "actor": "http://peer.test/users/carol",
              "object": "http://mk-a.test/users/alice"}
    assert peer.send("carol", "http://mk-a.test/users/alice/inbox", follow)["status"] == 202
    count = lambda: requests.get(mk.base + "/api/v1/users/alice", headers=world["alice"],  # noqa: E731
                                 timeout=10).json()["followerCount"]
    assert count() == 2
    undo = {"id": activity_id("undo"), "type": "Undo", "actor": "http://peer.test/users/carol", "object": follow}
    assert peer.send("carol", "http://mk-a.test/users/alice/inbox", undo)["status"] == 202
    assert count() == 1


def received_of(peer: Peer, kind: str, after: int = 0) -> list[dict]:
    return [item for item in peer.received()["received"][after:] if item["activity"]["type"] == kind]


def test_alice_finds_follows_and_unfollows_someone_on_the_peer(world):
    mk, peer, alice = world["mk"], world["peer"], world["alice"]
    peer.person("dave", "Dave Peer")
    found = requests.get(mk.base + "/api/v1/users", headers=alice, params={"query": "@dave@peer.test"},
                         timeout=30).json()["items"]
    assert found and found[0]["username"] == "dave@peer.test" and found[0]["displayName"] == "Dave Peer"
    start = len(peer.received()["received"])
    asked = requests.put(mk.base + "/api/v1/users/dave@peer.test/follow", headers=alice, timeout=30).json()
    # It counts once dave's server accepts it, not before.
    assert asked.get("viewerRequested") is True and asked.get("viewerFollows") is False, asked
    follows = eventually(lambda: received_of(peer, "Follow", start))
    assert follows, peer.received()
    follow = follows[0]["activity"]
    assert follow["actor"] == "http://mk-a.test/users/alice" and follow["object"] == "http://peer.test/users/dave"
    assert follows[0]["path"] == "/users/dave/inbox"
    assert requests.get(mk.base + "/api/v1/users/alice", headers=alice, timeout=10).json()["followingCount"] == 0

    accept = {"id": activity_id("accept"), "type": "Accept", "actor": "http://peer.test/users/dave", "object": follow}
    assert peer.send("dave", "http://mk-a.test/users/alice/inbox", accept)["status"] == 202
    dave = requests.get(mk.base + "/api/v1/users/dave@peer.test", headers=alice, timeout=10).json()
    assert dave["viewerFollows"] is True and dave["followerCount"] == 1
    assert requests.get(mk.base + "/api/v1/users/alice", headers=alice, timeout=10).json()["followingCount"] == 1

    start = len(peer.received()["received"])
    assert requests.delete(mk.base + "/api/v1/users/dave@peer.test/follow", headers=alice,
                           timeout=30).status_code == 200
    undos = eventually(lambda: received_of(peer, "Undo", start))
    assert undos and undos[0]["activity"]["object"]["type"] == "Follow"
    assert undos[0]["activity"]["object"]["object"] == "http://peer.test/users/dave"
    assert peer.received()["refused"] == []


def test_alices_posts_edits_deletions_and_profile_reach_her_followers_server(world):
    mk, peer, alice = world["mk"], world["peer"], world["alice"]
    start = len(peer.received()["received"])
    with open(PHOTOS / "chelsea.jpg", "rb") as photo:
        answer = requests.post(mk.base + "/api/v1/posts", headers=alice, files={"image": photo},
                               data={"caption": "Second #cat", "altText": "The cat again"}, timeout=60)
    assert answer.status_code == 201, answer.text
    post = answer.json()
    creates = eventually(lambda: received_of(peer, "Create", start))
    assert len(creates) == 1, "bob follows alice: peer.test gets the post once, at its shared inbox"
    assert creates[0]["path"] == "/inbox"
    note = creates[0]["activity"]["object"]
    assert note["id"] == f"http://mk-a.test/p/{post['id']}" and note["attributedTo"] == "http://mk-a.test/users/alice"
    image = note["attachment"][0]
    assert image["type"] == "Image" and image["name"] == "The cat again" and image["width"] > 0
    assert image["url"].startswith("http://mk-a.test/media/")
    assert requests.get(image["url"], timeout=10).status_code == 200

    edited = requests.patch(f"{mk.base}/api/v1/posts/{post['id']}", headers=alice, json={"caption": "Edited #cat"},
                            timeout=30)
    assert edited.status_code == 200, edited.text
    updates = eventually(lambda: received_of(peer, "Update", start))
    assert updates and "Edited" in updates[0]["activity"]["object"]["content"]

    # Her comment on it is a public reply to it, and its deletion a Delete of that reply.
    said = requests.post(f"{mk.base}/api/v1/posts/{post['id']}/comments", headers=alice, json={"text": "Still here"},
                         timeout=30)
    assert said.status_code == 201, said.text
    replies = eventually(lambda: [c["activity"]["object"] for c in received_of(peer, "Create", start)
                                  if c["activity"]["object"].get("inReplyTo")])
    assert replies and replies[0]["inReplyTo"] == note["id"] and "Still here" in replies[0]["content"]
    assert replies[0]["to"] == ["https://www.w3.org/ns/activitystreams#Public"], replies[0]
    assert replies[0]["attributedTo"] == "http://mk-a.test/users/alice"
    assert requests.delete(f"{mk.base}/api/v1/comments/{said.json()['id']}", headers=alice,
                           timeout=30).status_code == 204
    gone = eventually(lambda: [d for d in received_of(peer, "Delete", start)
                               if d["activity"]["object"]["id"] == replies[0]["id"]])
    assert gone, "the reply's Delete"

    assert requests.delete(f"{mk.base}/api/v1/posts/{post['id']}", headers=alice, timeout=30).status_code == 204
    deletes = eventually(lambda: [d for d in received_of(peer, "Delete", start)
                                  if d["activity"]["object"]["id"] == note["id"]])
    assert deletes

    renamed = requests.patch(mk.base + "/api/v1/me", headers=alice, json={"displayName": "Alice Anew"}, timeout=30)
    assert renamed.status_code == 200, renamed.text
    people = eventually(lambda: [u for u in received_of(peer, "Update", start)
                                 if u["activity"]["object"].get("type") == "Person"])
    assert people and people[0]["activity"]["object"]["name"] == "Alice Anew"
    assert peer.received()["refused"] == []


def test_a_private_account_approves_or_declines_follows_from_the_peer(world):
    mk, peer = world["mk"], world["peer"]
    pia = mk.sign_up("pia")
    assert requests.patch(mk.base + "/api/v1/me", headers=pia, json={"isPrivate": True}, timeout=30).status_code == 200
    actor = requests.get("http://mk-a.test/users/pia", headers={"Accept": AS}, timeout=10).json()
    assert actor["manuallyApprovesFollowers"] is True
    peer.person("erin", "Erin Peer")
    start = len(peer.received()["received"])
    follows = {}
    for name in ("bob", "erin"):
        follows[name] = {"id": activity_id("follow"), "type": "Follow", "actor": f"http://peer.test/users/{name}",
                         "object": "http://mk-a.test/users/pia"}
        assert peer.send(name, "http://mk-a.test/users/pia/inbox", follows[name])["status"] == 202
    requests_here = requests.get(mk.base + "/api/v1/me/follow-requests", headers=pia, timeout=10).json()["items"]
    assert sorted(person["username"] for person in requests_here) == ["bob@peer.test", "erin@peer.test"]
    assert requests.get(mk.base + "/api/v1/users/pia", headers=pia, timeout=10).json()["followerCount"] == 0
    assert not [item for item in peer.received()["received"][start:] if item["activity"]["type"] == "Accept"]

    assert requests.post(mk.base + "/api/v1/me/follow-requests/bob@peer.test/approve", headers=pia,
                         timeout=10).status_code in (200, 204)
    assert requests.post(mk.base + "/api/v1/me/follow-requests/erin@peer.test/decline", headers=pia,
                         timeout=10).status_code in (200, 204)
    answers = eventually(lambda: len([item for item in peer.received()["received"][start:]
                                      if item["activity"]["type"] in ("Accept", "Reject")]) == 2)
    assert answers, peer.received()
    by_type = {item["activity"]["type"]: item["activity"] for item in peer.received()["received"][start:]
               if item["activity"]["type"] in ("Accept", "Reject")}
    assert by_type["Accept"]["object"]["id"] == follows["bob"]["id"]
    assert by_type["Reject"]["object"]["id"] == follows["erin"]["id"]
    assert requests.get(mk.base + "/api/v1/users/pia", headers=pia, timeout=10).json()["followerCount"] == 1


def test_the_command_line_follows_someone_on_the_peer_by_handle(world, tmp_path):
    import os
    import subprocess

    from makestagram_server import server_binary

    mk, peer = world["mk"], world["peer"]
    mk.sign_up("cli_user")
    peer.person("fern", "Fern Peer")
    env = dict(os.environ, XDG_CONFIG_HOME=str(tmp_path), MAKESTAGRAM_SERVER=mk.base)

    def run(*args, stdin=None):
        result = subprocess.run([server_binary(), *args], input=stdin, capture_output=True, text=True, env=env,
                                timeout=60)
        assert result.returncode == 0, (args, result.stderr)
        return result.stdout

    run("login", "cli_user", "--password-stdin", stdin="correct horse\n")
    start = len(peer.received()["received"])
    said = run("follow", "@fern@peer.test")
    assert "asked to follow fern@peer.test" in said and "their server accepts" in said
    follows = eventually(lambda: [item for item in peer.received()["received"][start:]
                                  if item["activity"]["type"] == "Follow"])
    assert follows and follows[0]["activity"]["actor"] == "http://mk-a.test/users/cli_user"


def test_a_server_that_never_answers_does_not_hold_up_deliveries_to_the_others(world):
    mk, peer, alice = world["mk"], world["peer"], world["alice"]
    # Bob follows alice (again, if an earlier test made him: it changes nothing).
    follow = {"id": activity_id("follow"), "type": "Follow", "actor": "http://peer.test/users/bob",
              "object": "http://mk-a.test/users/alice"}
    assert peer.send("bob", "http://mk-a.test/users/alice/inbox", follow)["status"] == 202
    with another_peer("stall.test", stall=True) as stalled:
        stalled.person("sam", "Sam Stalled")
        mk.sign_up("stan")
        follow = {"id": "http://stall.test/activities/follow/1", "type": "Follow",
                  "actor": "http://stall.test/users/sam", "object": "http://mk-a.test/users/stan"}
        # Sam follows stan; the Accept goes to a server that takes deliveries and never answers.
        assert stalled.send("sam", "http://mk-a.test/users/stan/inbox", follow)["status"] == 202
        assert eventually(lambda: stalled.received()["open"] >= 1), "the Accept is being delivered"
        start = len(peer.received()["received"])
        with open(PHOTOS / "rocket.jpg", "rb") as photo:
            answer = requests.post(mk.base + "/api/v1/posts", headers=alice, files={"image": photo},
                                   data={"caption": "Still on time"}, timeout=60)
        assert answer.status_code == 201, answer.text
        # Alice's post goes to peer.test only (bob follows her; sam does not). peer.test has it while the Accept to
        # stall.test still waits for an answer: the stalled server held one slot, not the queue.
        arrived = eventually(lambda: [item for item in peer.received()["received"][start:]
                                      if item["activity"]["type"] == "Create"], timeout=30)
        assert arrived and stalled.received()["open"] >= 1


def test_a_mention_of_someone_on_the_peer_reaches_them_and_never_a_namesake_here(world):
    mk, peer = world["mk"], world["peer"]
    peer.person("dave", "Dave Peer")
    mina, namesake, carol_here = mk.sign_up("mina"), mk.sign_up("dave"), mk.sign_up("carol")
    start = len(peer.received()["received"])
    with open(PHOTOS / "chelsea.jpg", "rb") as photo:
        answer = requests.post(mk.base + "/api/v1/posts", headers=mina, files={"image": photo},
                               data={"caption": "Look, @dave@peer.test and @alice"}, timeout=60)
    assert answer.status_code == 201, answer.text
    # Nobody on peer.test follows mina: the post goes there because it mentions dave, found by his handle.
    creates = eventually(lambda: received_of(peer, "Create", start))
    assert len(creates) == 1, peer.received()
    note = creates[0]["activity"]["object"]
    assert "http://peer.test/users/dave" in note["cc"]
    mentions = {tag["href"]: tag["name"] for tag in note["tag"] if tag["type"] == "Mention"}
    assert mentions == {"http://peer.test/users/dave": "@dave@peer.test", "http://mk-a.test/users/alice": "@alice"}
    assert 'href="http://peer.test/@dave"' in note["content"], "linked to his profile page there"

    def activity(headers):
        return requests.get(mk.base + "/api/v1/activity", headers=headers, timeout=10).json()["items"]

    def mentions_by(headers, name):
        return [item for item in activity(headers)
                if item["kind"] == "mention" and item["actors"][0]["username"] == name]
    # alice hears of her mention; the dave here, once activity has got that far, has not heard of one.
    assert eventually(lambda: mentions_by(world["alice"], "mina"))
    assert mentions_by(namesake, "mina") == []

    # A reply from the peer naming carol (on the peer) and mina (here) in HTML, as Mastodon writes them.
    note_id = f"http://peer.test/notes/{uuid.uuid4()}"
    reply = {"id": note_id, "type": "Note", "attributedTo": "http://peer.test/users/bob",
             "inReplyTo": note["id"], "to": ["https://www.w3.org/ns/activitystreams#Public"],
             "content": '<p><span class="h-card"><a href="http://peer.test/users/carol" class="u-url mention">'
                        '@<span>carol</span></a></span> and <a href="http://mk-a.test/users/mina" class="mention">'
                        '@<span>mina</span></a>: and @dave@mk-a.test too</p>'}
    create = {"id": note_id + "/activity", "type": "Create", "actor": "http://peer.test/users/bob", "object": reply}
    assert peer.send("bob", "http://mk-a.test/inbox", create)["status"] == 202
    comments = requests.get(f"{mk.base}/api/v1/posts/{answer.json()['id']}/comments", headers=mina,
                            timeout=10).json()["items"]
    assert [c["text"] for c in comments] == ["@carol@peer.test and @mina: and @dave too"]

    # dave here is named by his handle on this server; carol here is not the carol named.
    assert eventually(lambda: mentions_by(namesake, "bob@peer.test")), activity(namesake)
    assert eventually(lambda: [item for item in activity(mina) if item["kind"] == "comment"]), activity(mina)
    assert activity(carol_here) == []


def test_a_server_that_is_down_gets_one_attempt_not_one_per_delivery(world):
    mk, peer = world["mk"], world["peer"]
    with another_peer("down.test", failing=True) as down:
        down.person("dot", "Dot Down")
        tess = mk.sign_up("tess")
        # dot (down.test) and bob (peer.test) follow tess; the Accept to down.test is answered 503.
        for actor, who in (("http://down.test/users/dot", down), ("http://peer.test/users/bob", peer)):
            follow = {"id": actor.replace("/users/", "/follows/") + "/tess", "type": "Follow", "actor": actor,
                      "object": "http://mk-a.test/users/tess"}
            assert who.send(actor.rsplit("/", 1)[1], "http://mk-a.test/users/tess/inbox", follow)["status"] == 202
        assert eventually(lambda: down.received()["failed"] >= 1), "the Accept was tried"
        start = len(peer.received()["received"])
        for n in range(4):
            with open(PHOTOS / "rocket.jpg", "rb") as photo:
                answer = requests.post(mk.base + "/api/v1/posts", headers=tess, files={"image": photo},
                                       data={"caption": f"Post {n}"}, timeout=60)
            assert answer.status_code == 201, answer.text
        # peer.test has the four posts; down.test, failing, was left alone meanwhile: its deliveries wait for
        # their server's turn instead of each connecting to it.
        assert eventually(lambda: len(received_of(peer, "Create", start)) == 4, timeout=20)
        time.sleep(1)
        assert down.received()["failed"] == 1


def test_an_account_deleted_on_the_peer_leaves_nothing_here(world):
    mk, peer, alice, post = world["mk"], world["peer"], world["alice"], world["post"]
    peer.person("erin", "Erin Peer")
    erin = "http://peer.test/users/erin"

    def alice_now():
        profile = requests.get(mk.base + "/api/v1/users/alice", headers=alice, timeout=10).json()
        shown = requests.get(f"{mk.base}/api/v1/posts/{post['id']}", headers=alice, timeout=10).json()
        return profile["followerCount"], shown["likeCount"], shown["commentCount"]
    before = alice_now()
    note_id = f"http://peer.test/notes/{uuid.uuid4()}"
    for activity in (
        {"id": activity_id("follow"), "type": "Follow", "actor": erin, "object": "http://mk-a.test/users/alice"},
        {"id": activity_id("like"), "type": "Like", "actor": erin, "object": f"http://mk-a.test/p/{post['id']}"},
        {"id": note_id + "/activity", "type": "Create", "actor": erin,
         "object": {"id": note_id, "type": "Note", "attributedTo": erin, "content": "<p>Bye</p>",
                    "inReplyTo": f"http://mk-a.test/p/{post['id']}",
                    "to": ["https://www.w3.org/ns/activitystreams#Public"]}},
    ):
        assert peer.send("erin", "http://mk-a.test/inbox", activity)["status"] == 202
    assert alice_now() == (before[0] + 1, before[1] + 1, before[2] + 1)

    delete = {"id": erin + "#delete", "type": "Delete", "actor": erin, "object": erin,
              "to": ["https://www.w3.org/ns/activitystreams#Public"]}
    assert peer.send("erin", "http://mk-a.test/inbox", delete)["status"] == 202
    assert eventually(lambda: alice_now() == before), alice_now()
    assert requests.get(mk.base + "/api/v1/users/erin@peer.test", headers=alice, timeout=10).status_code == 404

    # Someone never met here, gone: nothing to do, and said so with a 2xx (their server tells every server it knows).
    peer.person("finn", "Finn Peer")
    gone = {"id": "http://peer.test/users/finn#delete", "type": "Delete", "actor": "http://peer.test/users/finn",
            "object": "http://peer.test/users/finn"}
    assert peer.send("finn", "http://mk-a.test/inbox", gone)["status"] == 202


def test_a_flood_from_one_server_is_refused_with_429_and_others_are_served():
    names = HostNames()
    servers = []
    try:
        a, p, q = free_loopback_address(), free_loopback_address(), free_loopback_address()
        names.add("mk-r.test", a)
        names.add("flood.test", p)
        names.add("calm.test", q)
        mk = FederatedServer("mk-r.test", a, "--rate-limit", "inbox=5/1h")
        servers.append(mk)
        flood, calm = Peer("flood.test", p), Peer("calm.test", q)
        servers += [flood, calm]
        for peer in (flood, calm):
            peer.person("pat", "Pat")
        rita = mk.sign_up("rita")

        def follow(peer: Peer, n: int) -> int:
            activity = {"id": f"http://{peer.name}/follows/{n}", "type": "Follow",
                        "actor": f"http://{peer.name}/users/pat", "object": "http://mk-r.test/users/rita"}
            return peer.send("pat", "http://mk-r.test/inbox", activity)["status"]
        assert [follow(flood, n) for n in range(7)] == [202] * 5 + [429] * 2
        assert follow(calm, 1) == 202, "another server has its own share"
        assert requests.get(mk.base + "/api/v1/users/rita", headers=rita, timeout=10).json()["followerCount"] == 2
    finally:
        for server in servers:
            server.stop()
        names.remove()


def test_oversized_deep_and_linked_data_signed_activities_are_refused(world):
    mk, peer, post, alice = world["mk"], world["peer"], world["post"], world["alice"]

    def likes():
        return requests.get(f"{mk.base}/api/v1/posts/{post['id']}", headers=alice, timeout=10).json()["likeCount"]
    before = likes()
    like = {"id": activity_id("like"), "type": "Like", "actor": "http://peer.test/users/carol",
            "object": f"http://mk-a.test/p/{post['id']}"}
    nested: list = []
    for _ in range(40):
        nested = [nested]
    cases = [
        ({**like, "padding": "x" * (300 * 1024)}, {}, 413),
        ({**like, "nested": nested}, {}, 400),
        # Only a Linked-Data signature (the JSON-LD bypasses): never read, so unsigned.
        ({**like, "signature": {"type": "RsaSignature2017", "creator": "http://peer.test/users/carol#main-key",
                                "signatureValue": "AAAA"}}, {"broken": "unsigned"}, 401),
    ]
    for activity, options, status in cases:
        answer = peer.send("carol", "http://mk-a.test/inbox", activity, **options)
        assert answer["status"] == status, answer
    assert likes() == before


def test_a_suspended_remote_person_stays_refused(world):
    mk, peer, post, alice = world["mk"], world["peer"], world["post"], world["alice"]
    peer.person("gus", "Gus Peer")
    gus = "http://peer.test/users/gus"

    def like(n: int) -> int:
        activity = {"id": f"http://peer.test/likes/gus/{n}", "type": "Like", "actor": gus,
                    "object": f"http://mk-a.test/p/{post['id']}"}
        return peer.send("gus", "http://mk-a.test/inbox", activity)["status"]

    def undo(n: int) -> int:
        activity = {"id": f"http://peer.test/likes/gus/{n}/undo", "type": "Undo", "actor": gus,
                    "object": f"http://peer.test/likes/gus/{n}"}
        return peer.send("gus", "http://mk-a.test/inbox", activity)["status"]
    # gus is known here (and kept in memory by the inbox) before the moderators act.
    assert like(1) == 202 and undo(1) == 202
    warden = mk.moderator("warden")["Authorization"].split(" ")[1]
    suspended = requests.post(mk.base + "/api/v1/moderation/users/gus@peer.test/suspend", timeout=10,
                              headers={"Authorization": f"Bearer {warden}"}, json={"reason": "spam"})
    assert suspended.status_code in (200, 204), suspended.text
    before = requests.get(f"{mk.base}/api/v1/posts/{post['id']}", headers=alice, timeout=10).json()["likeCount"]
    # Refused at once (the inbox forgot him when the suspension was committed), and after a new fetch of his document.
    assert like(2) == 403
    assert requests.get(f"{mk.base}/api/v1/posts/{post['id']}", headers=alice, timeout=10).json()["likeCount"] == before


def test_an_actor_document_that_never_finishes_is_cut_off_and_others_are_served(world):
    mk, peer, post = world["mk"], world["peer"], world["post"]
    peer.person("slowpoke", "Slow Poke")
    like = {"id": activity_id("like"), "type": "Like", "actor": "http://peer.test/users/slowpoke",
            "object": f"http://mk-a.test/p/{post['id']}"}
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        slow = pool.submit(peer.send, "slowpoke", "http://mk-a.test/inbox", like)
        # While the server reads slowpoke's document (a byte now and then), bob's like is taken.
        quick = {"id": activity_id("like"), "type": "Like", "actor": "http://peer.test/users/bob",
                 "object": f"http://mk-a.test/p/{post['id']}"}
        assert peer.send("bob", "http://mk-a.test/inbox", quick)["status"] == 202
        assert not slow.done()
        answer = slow.result(timeout=60)
    assert answer["status"] == 401 and "cannot be fetched" in answer["body"], answer


def test_a_photo_of_81_megapixels_or_2_gib_from_the_peer_is_refused_and_nothing_kept(world):
    mk, peer = world["mk"], world["peer"]
    peer.person("hugo", "Hugo Peer")
    viv = mk.sign_up("viv")
    start = len(peer.received()["received"])
    requests.put(mk.base + "/api/v1/users/hugo@peer.test/follow", headers=viv, timeout=30)
    follow = eventually(lambda: received_of(peer, "Follow", start))[0]["activity"]
    accept = {"id": activity_id("accept"), "type": "Accept", "actor": "http://peer.test/users/hugo", "object": follow}
    assert peer.send("hugo", "http://mk-a.test/users/viv/inbox", accept)["status"] == 202

    def note(url: str) -> dict:
        note_id = f"http://peer.test/notes/{uuid.uuid4()}"
        return {"id": note_id + "/activity", "type": "Create", "actor": "http://peer.test/users/hugo",
                "object": {"id": note_id, "type": "Note", "attributedTo": "http://peer.test/users/hugo",
                           "content": "<p>Look</p>", "to": ["https://www.w3.org/ns/activitystreams#Public"],
                           "attachment": [{"type": "Image", "mediaType": "image/png", "url": url}]}}
    answer = peer.send("hugo", "http://mk-a.test/inbox", note("http://peer.test/bomb.png"))
    assert 400 <= answer["status"] < 500, answer
    # A photo that goes on for 2 GiB is cut off at the upload limit, and refused.
    answer = peer.send("hugo", "http://mk-a.test/inbox", note("http://peer.test/huge.jpg"))
    assert 400 <= answer["status"] < 500, answer
    sent = eventually(lambda: peer.received()["huge_sent"])
    assert 0 < sent < 100 << 20, f"{sent} bytes were read of 2 GiB"
    # The same note with a real photo is kept: the refusal was the picture's. Delivered four times at once (a sender
    # that retries, or one delivery to each inbox), it is kept once, its photo fetched once, and shown with its id
    # there.
    kept = note("http://peer.test/media/rocket.jpg")
    fetched = peer.received()["media_served"].get("rocket.jpg", 0)
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        answers = list(pool.map(lambda _: peer.send("hugo", "http://mk-a.test/inbox", kept), range(4)))
    assert [answer["status"] for answer in answers] == [202] * 4, answers
    assert peer.received()["media_served"].get("rocket.jpg", 0) == fetched + 1
    items = requests.get(mk.base + "/api/v1/timeline", headers=viv, timeout=10).json()["items"]
    assert [item["author"]["username"] for item in items] == ["hugo@peer.test"]
    status = requests.get(f"{mk.base}/api/v1/statuses/{items[0]['id']}", headers=viv, timeout=10).json()
    assert status["uri"] == kept["object"]["id"]


def test_moderators_see_each_servers_deliveries_and_a_server_failing_too_long_waits_until_it_speaks():
    names = HostNames()
    servers = []
    try:
        a, d = free_loopback_address(), free_loopback_address()
        names.add("mk-s.test", a)
        names.add("down.test", d)
        mk = FederatedServer("mk-s.test", a, "--stop-trying-servers-after", "2")
        servers.append(mk)
        down = Peer("down.test", d, failing=True)
        servers.append(down)
        down.person("dot", "Dot Down")
        tess = mk.sign_up("tess")
        warden = mk.moderator("warden")

        def state() -> dict:
            answer = requests.get(mk.base + "/api/v1/moderation/servers", headers=warden, timeout=10)
            assert answer.status_code == 200, answer.text
            return next((s for s in answer.json()["servers"] if s["server"] == "down.test"), {})
        assert requests.get(mk.base + "/api/v1/moderation/servers", headers=tess, timeout=10).status_code == 403

        def follow(n: int) -> int:
            activity = {"id": f"http://down.test/follows/{n}", "type": "Follow", "actor": "http://down.test/users/dot",
                        "object": "http://mk-s.test/users/tess"}
            return down.send("dot", "http://mk-s.test/inbox", activity)["status"]
        assert follow(1) == 202
        # The Accept is answered 503: the server fails from then on, and the Accept waits to be tried again.
        assert eventually(lambda: state().get("failures") == 1), state()
        first = state()
        assert first["lastError"] == "answered 503" and first["failingSince"] and first["pending"] == 1
        assert not first["givenUp"] and "lastDeliveredAt" not in first

        # Past the limit, it is no longer tried: a new post's delivery is given up at once, not queued.
        time.sleep(2.5)
        with open(PHOTOS / "rocket.jpg", "rb") as photo:
            assert requests.post(mk.base + "/api/v1/posts", headers=tess, files={"image": photo},
                                 data={"caption": "Hello"}, timeout=60).status_code == 201
        assert eventually(lambda: state().get("givenUp")), state()
        time.sleep(1)
        assert state()["pending"] == 1 and down.received()["failed"] == 1
        metrics = requests.get(mk.base + "/metrics", timeout=10).text
        assert 'makestagram_federation_servers{state="given_up"} 1' in metrics, metrics[-2000:]

        # A moderator sees it on the moderation page and tries it again: what waits goes at once (and fails, 503).
        sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "browser"))
        from browser_support import Browser, Person
        browser = Browser(mk.base, width=1280, height=900)
        try:
            browser.log_in(Person(mk.base, "warden", warden["Authorization"].split(" ")[1]))
            browser.open("/moderation")
            browser.wait_until(lambda: "Not tried until it sends something" in browser.text(".delivery-servers"))
            assert "1 delivery waiting" in browser.text(".delivery-servers")
            assert "answered 503" in browser.text(".delivery-servers")
            browser.click("button[aria-label='Retry down.test']")
            browser.wait_until(lambda: "Trying down.test again" in browser.text("#toasts"))
            assert browser.console_errors() == []
        finally:
            browser.quit()
        assert eventually(lambda: down.received()["failed"] == 2)
        assert requests.post(mk.base + "/api/v1/moderation/servers/nowhere.test/retry", headers=warden,
                             timeout=10).status_code == 404

        # Given up again, until it sends something: then it is tried again.
        time.sleep(2.5)
        assert follow(2) == 202
        assert eventually(lambda: not state().get("failingSince") or state().get("failures") == 1), state()
        assert not state()["givenUp"]
    finally:
        for server in servers:
            server.stop()
        names.remove()


def test_other_servers_photos_stay_within_the_budget_and_are_fetched_again_when_asked_for():
    names = HostNames()
    servers = []
    try:
        a, p = free_loopback_address(), free_loopback_address()
        names.add("mk-m.test", a)
        names.add("pics.test", p)
        mk = FederatedServer("mk-m.test", a, "--remote-media-budget", "1")
        servers.append(mk)
        pics = Peer("pics.test", p)
        servers.append(pics)
        pics.person("pix", "Pix")
        mila = mk.sign_up("mila")
        start = len(pics.received()["received"])
        requests.put(mk.base + "/api/v1/users/pix@pics.test/follow", headers=mila, timeout=30).raise_for_status()
        follow = eventually(lambda: received_of(pics, "Follow", start))[0]["activity"]
        accept = {"id": f"http://pics.test/accepts/{uuid.uuid4()}", "type": "Accept",
                  "actor": "http://pics.test/users/pix", "object": follow}
        assert pics.send("pix", "http://mk-m.test/users/mila/inbox", accept)["status"] == 202
        note_id = f"http://pics.test/notes/{uuid.uuid4()}"
        create = {"id": note_id + "/activity", "type": "Create", "actor": "http://pics.test/users/pix",
                  "object": {"id": note_id, "type": "Note", "attributedTo": "http://pics.test/users/pix",
                             "content": "<p>Lift-off</p>", "to": ["https://www.w3.org/ns/activitystreams#Public"],
                             "attachment": [{"type": "Image", "mediaType": "image/jpeg", "name": "A rocket",
                                             "url": "http://pics.test/media/rocket.jpg"}]}}
        assert pics.send("pix", "http://mk-m.test/inbox", create)["status"] == 202
        post = requests.get(mk.base + "/api/v1/timeline", headers=mila, timeout=10).json()["items"][0]
        photo = post.get("photos", [post.get("image")])[0]
        media = mk.folder / "data" / "media"
        files = [photo["full"]["url"].split("/")[-1].split("?")[0], photo["thumb"]["url"].split("/")[-1].split("?")[0]]

        # A budget of one byte keeps nothing: the files go...
        assert eventually(lambda: not any((media / name).exists() for name in files)), list(media.iterdir())
        # ...and come back, the same size and shape, when someone asks for them.
        for url in (photo["full"]["url"], photo["thumb"]["url"]):
            answer = requests.get(mk.base + url, timeout=30)
            assert answer.status_code == 200 and answer.content[:3] == b"\xff\xd8\xff", url
        full = requests.get(mk.base + photo["full"]["url"], timeout=30).content
        assert len(full) > 1000
        assert all((media / name).exists() for name in files), "kept again, for a while, whatever the budget"
        metrics = requests.get(mk.base + "/metrics", timeout=10).text

        def value(name: str) -> float:
            return float(next(line.split()[-1] for line in metrics.splitlines() if line.startswith(name + " ")))
        assert value("makestagram_federation_remote_media_refetched_total") >= 1
        assert value("makestagram_federation_remote_media_evicted_total") >= 1
        # A name nobody gave is still a 404, and asks no server.
        assert requests.get(mk.base + "/media/" + "0" * 32 + ".jpg", timeout=10).status_code == 404
    finally:
        for server in servers:
            server.stop()
        names.remove()


def test_an_account_deleted_here_is_deleted_on_the_peer_signed_with_its_key(world):
    mk, peer = world["mk"], world["peer"]
    gus = mk.sign_up("gus")
    follow = {"id": activity_id("follow"), "type": "Follow", "actor": "http://peer.test/users/bob",
              "object": "http://mk-a.test/users/gus"}
    start = len(peer.received()["received"])
    assert peer.send("bob", "http://mk-a.test/users/gus/inbox", follow)["status"] == 202
    assert eventually(lambda: [a for a in received_of(peer, "Accept", start)
                               if a["activity"]["actor"] == "http://mk-a.test/users/gus"])
    assert requests.post(mk.base + "/api/v1/me/delete", headers=gus, json={"password": "correct horse"},
                         timeout=30).status_code == 202
    deletes = eventually(lambda: [d for d in received_of(peer, "Delete", start)
                                  if d["activity"]["object"] == "http://mk-a.test/users/gus"])
    assert len(deletes) == 1, "peer.test once, at its shared inbox"
    assert deletes[0]["path"] == "/inbox" and deletes[0]["activity"]["actor"] == "http://mk-a.test/users/gus"
    assert peer.received()["refused"] == [], "bovine verified the signature with gus's key"
    assert eventually(lambda: "account deleted" in mk.log_path.read_text(), timeout=20)


def test_a_follower_who_comes_or_goes_between_two_posts_gets_exactly_the_posts_made_while_following(world):
    """Which servers an author's followers are on is kept between posts: a follow or an unfollow in between changes
    where the next post goes."""
    mk, peer = world["mk"], world["peer"]
    hana = mk.sign_up("hana")
    peer.person("ivy", "Ivy Peer")

    def post(caption: str) -> str:
        with open(PHOTOS / "rocket.jpg", "rb") as photo:
            answer = requests.post(mk.base + "/api/v1/posts", headers=hana, files={"image": photo},
                                   data={"caption": caption}, timeout=60)
        assert answer.status_code == 201, answer.text
        return f"http://mk-a.test/p/{answer.json()['id']}"

    def creates_of(note: str, start: int) -> list:
        return [c for c in received_of(peer, "Create", start) if c["activity"]["object"]["id"] == note]

    start = len(peer.received()["received"])
    alone = post("Nobody elsewhere follows me")
    follow = {"id": activity_id("follow"), "type": "Follow", "actor": "http://peer.test/users/ivy",
              "object": "http://mk-a.test/users/hana"}
    assert peer.send("ivy", "http://mk-a.test/users/hana/inbox", follow)["status"] == 202
    followed = post("Now ivy follows me")
    assert len(eventually(lambda: creates_of(followed, start))) == 1
    undo = {"id": activity_id("undo"), "type": "Undo", "actor": "http://peer.test/users/ivy", "object": follow}
    assert peer.send("ivy", "http://mk-a.test/users/hana/inbox", undo)["status"] == 202
    after = post("Ivy left")
    marker = post("Ivy left, and this is the last")
    follow_again = dict(follow, id=activity_id("follow"))
    assert peer.send("ivy", "http://mk-a.test/users/hana/inbox", follow_again)["status"] == 202
    last = post("Ivy is back")
    assert len(eventually(lambda: creates_of(last, start))) == 1
    assert creates_of(alone, start) == [] and creates_of(after, start) == [] and creates_of(marker, start) == []


def test_a_locked_person_s_posts_for_their_followers_are_kept_for_their_followers_here_only(world):
    """lou on the peer approves her followers; pat does not. moe follows both. lou's post for her followers reaches moe
    and nobody else here; pat's post for his followers, and a note to moe alone, are taken and not kept (this server
    shows a public person's posts to everyone, and has no direct messages). When lou unlocks, her post for her
    followers goes before she is public here."""
    mk, peer = world["mk"], world["peer"]
    peer.person("lou", "Lou Locked", locked=True)
    peer.person("pat", "Pat Public")
    moe, nia = mk.sign_up("moe"), mk.sign_up("nia")
    v1 = mk.base + "/api/v1"
    for name in ("lou", "pat"):
        start = len(peer.received()["received"])
        assert requests.put(f"{v1}/users/{name}@peer.test/follow", headers=moe, timeout=30).status_code == 200
        follow = eventually(lambda: received_of(peer, "Follow", start))[0]["activity"]
        accept = {"id": activity_id("accept"), "type": "Accept", "actor": f"http://peer.test/users/{name}",
                  "object": follow}
        assert peer.send(name, "http://mk-a.test/users/moe/inbox", accept)["status"] == 202
    assert requests.get(f"{v1}/users/lou@peer.test", headers=moe, timeout=10).json()["isPrivate"] is True
    assert requests.get(f"{v1}/users/pat@peer.test", headers=moe, timeout=10).json()["isPrivate"] is False

    def note(name: str, caption: str, to: list[str]) -> dict:
        note_id = f"http://peer.test/notes/{uuid.uuid4()}"
        return {"id": note_id + "/activity", "type": "Create", "actor": f"http://peer.test/users/{name}",
                "object": {"id": note_id, "type": "Note", "attributedTo": f"http://peer.test/users/{name}",
                           "content": f"<p>{caption}</p>", "to": to,
                           "attachment": [{"type": "Image", "mediaType": "image/jpeg", "name": "A rocket",
                                           "url": "http://peer.test/media/rocket.jpg"}]}}
    sent = [note("pat", "Pat for followers", ["http://peer.test/users/pat/followers"]),
            note("lou", "Lou to moe alone", ["http://mk-a.test/users/moe"]),
            note("lou", "Lou for followers", ["http://peer.test/users/lou/followers"])]
    for create in sent:
        assert peer.send(create["actor"].rsplit("/", 1)[1], "http://mk-a.test/inbox", create)["status"] == 202

    def feed(who) -> list[str]:
        items = requests.get(f"{v1}/timeline", headers=who, params={"limit": 50}, timeout=10).json()["items"]
        return [item["caption"] for item in items if item["author"]["username"] in ("lou@peer.test", "pat@peer.test")]
    assert feed(moe) == ["Lou for followers"], "kept once taken: the inbox answers after keeping"
    assert feed(nia) == []
    kept = requests.get(f"{v1}/timeline", headers=moe, timeout=10).json()["items"][0]
    assert kept["caption"] == "Lou for followers" and kept["image"].get("altText") == "A rocket"
    assert requests.get(f"{v1}/posts/{kept['id']}", headers=nia, timeout=10).status_code == 404

    # lou edits her caption and her photo's alt text there: both follow. An alt text the rules here refuse (a NUL)
    # leaves the photo's as it was, and the caption still follows.
    def edit(caption: str, alt: str) -> int:
        note = dict(sent[2]["object"], content=f"<p>{caption}</p>")
        note["attachment"] = [dict(note["attachment"][0], name=alt)]
        update = {"id": activity_id("update"), "type": "Update", "actor": "http://peer.test/users/lou", "object": note}
        return peer.send("lou", "http://mk-a.test/inbox", update)["status"]

    def shown() -> tuple[str, str]:
        post = requests.get(f"{v1}/posts/{kept['id']}", headers=moe, timeout=10).json()
        return post["caption"], post["image"].get("altText")
    assert edit("Lou, edited", "A red rocket on its pad") == 202
    assert shown() == ("Lou, edited", "A red rocket on its pad")
    assert edit("Lou, edited again", "A rocket\u0000") == 202
    assert shown() == ("Lou, edited again", "A red rocket on its pad")

    # Her reply to her own post there, for her followers, is a comment on it here, seen by moe alone.
    reply_id = f"http://peer.test/notes/{uuid.uuid4()}"
    reply = {"id": reply_id + "/activity", "type": "Create", "actor": "http://peer.test/users/lou",
             "object": {"id": reply_id, "type": "Note", "attributedTo": "http://peer.test/users/lou",
                        "inReplyTo": sent[2]["object"]["id"], "content": "<p>Launch at dawn</p>",
                        "to": ["http://peer.test/users/lou/followers"]}}
    assert peer.send("lou", "http://mk-a.test/inbox", reply)["status"] == 202
    said = requests.get(f"{v1}/posts/{kept['id']}/comments", headers=moe, timeout=10).json()["items"]
    assert [(c["author"]["username"], c["text"]) for c in said] == [("lou@peer.test", "Launch at dawn")]
    assert requests.get(f"{v1}/posts/{kept['id']}/comments", headers=nia, timeout=10).status_code == 404

    # moe's comment is a reply there, for his followers and lou, not public.
    start = len(peer.received()["received"])
    assert requests.post(f"{v1}/posts/{kept['id']}/comments", headers=moe, json={"text": "Lovely"},
                         timeout=30).status_code == 201
    replies = eventually(lambda: [c["activity"]["object"] for c in received_of(peer, "Create", start)
                                  if c["activity"]["object"].get("inReplyTo")])
    assert replies[0]["to"] == ["http://mk-a.test/users/moe/followers"], replies[0]
    assert replies[0]["cc"] == ["http://peer.test/users/lou"], replies[0]

    # lou unlocks (a new document, with a new key): the next thing she sends makes this server read it again.
    peer.person("lou", "Lou Locked", locked=False)
    update = {"id": activity_id("update"), "type": "Update", "actor": "http://peer.test/users/lou",
              "object": "http://peer.test/users/lou"}
    assert peer.send("lou", "http://mk-a.test/inbox", update)["status"] == 202
    assert requests.get(f"{v1}/users/lou@peer.test", headers=nia, timeout=10).json()["isPrivate"] is False
    assert requests.get(f"{v1}/posts/{kept['id']}", headers=moe, timeout=10).status_code == 404
    assert requests.get(f"{v1}/posts/{kept['id']}", headers=nia, timeout=10).status_code == 404
    assert feed(moe) == []


def test_a_follower_blocked_or_removed_here_is_rejected_and_one_who_unfollows_is_not(world):
    """carol, bob and dina on the peer follow blair. blair blocks carol, and removes dina from her followers: the peer
    is sent a Reject of each one's Follow, so that it stops counting (and feeding them) the follow. bob unfollows: his
    own Undo, answered with nothing."""
    mk, peer = world["mk"], world["peer"]
    blair = mk.sign_up("blair")
    peer.person("dina", "Dina Peer")
    follows = {}
    for name in ("carol", "bob", "dina"):
        follows[name] = {"id": activity_id("follow"), "type": "Follow", "actor": f"http://peer.test/users/{name}",
                         "object": "http://mk-a.test/users/blair"}
        start = len(peer.received()["received"])
        assert peer.send(name, "http://mk-a.test/users/blair/inbox", follows[name])["status"] == 202
        assert eventually(lambda: [a for a in received_of(peer, "Accept", start)
                                   if a["activity"]["object"]["id"] == follows[name]["id"]])
    assert requests.get(mk.base + "/api/v1/users/blair", headers=blair, timeout=10).json()["followerCount"] == 3

    start = len(peer.received()["received"])
    assert requests.delete(mk.base + "/api/v1/me/followers/dina@peer.test", headers=blair,
                           timeout=30).status_code == 204
    rejects = eventually(lambda: received_of(peer, "Reject", start))
    assert [reject["activity"]["object"]["id"] for reject in rejects] == [follows["dina"]["id"]], rejects
    assert requests.get(mk.base + "/api/v1/users/blair", headers=blair, timeout=10).json()["followerCount"] == 2

    start = len(peer.received()["received"])
    undo = {"id": activity_id("undo"), "type": "Undo", "actor": "http://peer.test/users/bob", "object": follows["bob"]}
    assert peer.send("bob", "http://mk-a.test/users/blair/inbox", undo)["status"] == 202
    assert requests.get(mk.base + "/api/v1/users/blair", headers=blair, timeout=10).json()["followerCount"] == 1
    # The block comes after bob's Undo in the change log, and so does what it sends.
    assert requests.put(mk.base + "/api/v1/users/carol@peer.test/block", headers=blair, timeout=30).status_code == 200
    rejects = eventually(lambda: received_of(peer, "Reject", start))
    assert [reject["activity"]["object"]["id"] for reject in rejects] == [follows["carol"]["id"]], rejects
    assert rejects[0]["activity"]["actor"] == "http://mk-a.test/users/blair"
    assert requests.get(mk.base + "/api/v1/users/blair", headers=blair, timeout=10).json()["followerCount"] == 0


def test_a_block_from_the_peer_is_a_block_here_and_its_undo_lifts_it(world):
    """elke on the peer and gale here follow each other; elke blocks gale: the follows end both ways, and gale sees
    nothing of elke (404), as a block here does; elke's Undo of the Block lifts it (the follows stay ended)."""
    mk, peer = world["mk"], world["peer"]
    peer.person("elke", "Elke Peer")
    gale = mk.sign_up("gale")
    v1 = mk.base + "/api/v1"
    start = len(peer.received()["received"])
    assert requests.put(f"{v1}/users/elke@peer.test/follow", headers=gale, timeout=30).status_code == 200
    follow = eventually(lambda: received_of(peer, "Follow", start))[0]["activity"]
    accept = {"id": activity_id("accept"), "type": "Accept", "actor": "http://peer.test/users/elke", "object": follow}
    assert peer.send("elke", "http://mk-a.test/users/gale/inbox", accept)["status"] == 202
    theirs = {"id": activity_id("follow"), "type": "Follow", "actor": "http://peer.test/users/elke",
              "object": "http://mk-a.test/users/gale"}
    assert peer.send("elke", "http://mk-a.test/users/gale/inbox", theirs)["status"] == 202
    me = requests.get(f"{v1}/users/gale", headers=gale, timeout=10).json()
    assert (me["followerCount"], me["followingCount"]) == (1, 1)

    block = {"id": activity_id("block"), "type": "Block", "actor": "http://peer.test/users/elke",
             "object": "http://mk-a.test/users/gale"}
    assert peer.send("elke", "http://mk-a.test/users/gale/inbox", block)["status"] == 202
    me = requests.get(f"{v1}/users/gale", headers=gale, timeout=10).json()
    assert (me["followerCount"], me["followingCount"]) == (0, 0)
    assert requests.get(f"{v1}/users/elke@peer.test", headers=gale, timeout=10).status_code == 404
    assert requests.put(f"{v1}/users/elke@peer.test/follow", headers=gale, timeout=30).status_code == 404
    nobody = {"id": activity_id("block"), "type": "Block", "actor": "http://peer.test/users/elke",
              "object": "http://mk-a.test/users/nobody"}
    assert peer.send("elke", "http://mk-a.test/inbox", nobody)["status"] == 404

    undo = {"id": activity_id("undo"), "type": "Undo", "actor": "http://peer.test/users/elke", "object": block}
    assert peer.send("elke", "http://mk-a.test/users/gale/inbox", undo)["status"] == 202
    assert requests.get(f"{v1}/users/elke@peer.test", headers=gale, timeout=10).status_code == 200
    assert requests.get(f"{v1}/users/gale", headers=gale, timeout=10).json()["followingCount"] == 0
