"""Moderation across servers, with real peers built on bovine: the moderators suspend a server (everything of its
people here goes, and nothing more is taken from it or sent to it) or limit one (its people's posts are seen only by
those who follow them); a person blocks a server for themselves through the Mastodon API (Mastodon.py), and its people
met later are blocked as they arrive; reports go to the reported post's server as `Flag`s, and theirs land in the
moderators' queue here."""
import pathlib
import uuid

import pytest
import requests

from federation_support import FederatedServer, HostNames, Peer, eventually, free_loopback_address

PHOTOS = pathlib.Path(__file__).resolve().parents[1] / "TestFixtures" / "photos"
PUBLIC = "https://www.w3.org/ns/activitystreams#Public"


@pytest.fixture(scope="module")
def world():
    names = HostNames()
    servers = []
    try:
        a, r, l = free_loopback_address(), free_loopback_address(), free_loopback_address()
        names.add("mk-d.test", a)
        names.add("rogue.test", r)
        names.add("loud.test", l)
        mk = FederatedServer("mk-d.test", a)
        servers.append(mk)
        rogue, loud = Peer("rogue.test", r), Peer("loud.test", l)
        servers += [rogue, loud]
        warden = mk.moderator("warden")
        yield {"mk": mk, "rogue": rogue, "loud": loud, "warden": warden}
    finally:
        for server in servers:
            server.stop()
        names.remove()


def post_photo(mk: FederatedServer, headers: dict, caption: str) -> dict:
    with open(PHOTOS / "chelsea.jpg", "rb") as photo:
        answer = requests.post(mk.base + "/api/v1/posts", headers=headers, files={"image": photo},
                               data={"caption": caption}, timeout=60)
    assert answer.status_code == 201, answer.text
    return answer.json()


def send(peer: Peer, who: str, activity: dict) -> int:
    return peer.send(who, "http://mk-d.test/inbox", activity)["status"]


def follow_remote(mk: FederatedServer, peer: Peer, headers: dict, local: str, remote: str):
    """`local` follows `remote@peer`, and the peer accepts."""
    start = len(peer.received()["received"])
    answer = requests.put(f"{mk.base}/api/v1/users/{remote}@{peer.name}/follow", headers=headers, timeout=30)
    assert answer.status_code == 200, answer.text
    follow = eventually(lambda: [r for r in peer.received()["received"][start:]
                                 if r["activity"].get("type") == "Follow"])[0]["activity"]
    accept = {"id": f"http://{peer.name}/accepts/{uuid.uuid4()}", "type": "Accept",
              "actor": f"http://{peer.name}/users/{remote}", "object": follow}
    assert peer.send(remote, f"http://mk-d.test/users/{local}/inbox", accept)["status"] == 202


def remote_post(peer: Peer, who: str, text: str) -> str:
    """`who` on the peer posts publicly; answers the Note's id."""
    note = f"http://{peer.name}/notes/{uuid.uuid4()}"
    actor = f"http://{peer.name}/users/{who}"
    create = {"id": note + "/activity", "type": "Create", "actor": actor, "to": [PUBLIC],
              "object": {"id": note, "type": "Note", "attributedTo": actor, "content": f"<p>{text}</p>",
                         "to": [PUBLIC],
                         "attachment": [{"type": "Image", "mediaType": "image/jpeg", "name": "A photo",
                                         "url": f"http://{peer.name}/media/astronaut.jpg"}]}}
    assert send(peer, who, create) == 202
    return note


def test_a_suspended_server_loses_everything_here_and_is_refused_until_lifted(world):
    mk, rogue, warden = world["mk"], world["rogue"], world["warden"]
    mina = mk.sign_up("mina")
    post = post_photo(mk, mina, "Sunset")
    rogue.person("pat", "Pat Rogue")
    rogue.person("sam", "Sam Rogue")
    pat = "http://rogue.test/users/pat"
    for activity in (
        {"id": f"http://rogue.test/follows/{uuid.uuid4()}", "type": "Follow", "actor": pat,
         "object": "http://mk-d.test/users/mina"},
        {"id": f"http://rogue.test/likes/{uuid.uuid4()}", "type": "Like", "actor": pat,
         "object": f"http://mk-d.test/p/{post['id']}"},
        {"id": f"http://rogue.test/notes/{uuid.uuid4()}/activity", "type": "Create", "actor": pat,
         "object": {"id": f"http://rogue.test/notes/{uuid.uuid4()}", "type": "Note", "attributedTo": pat,
                    "content": "<p>Buy now</p>", "inReplyTo": f"http://mk-d.test/p/{post['id']}", "to": [PUBLIC]}},
    ):
        assert send(rogue, "pat", activity) == 202
    follow_remote(mk, rogue, mina, "mina", "sam")

    def mina_now():
        profile = requests.get(mk.base + "/api/v1/users/mina", headers=mina, timeout=10).json()
        shown = requests.get(f"{mk.base}/api/v1/posts/{post['id']}", headers=mina, timeout=10).json()
        return profile["followerCount"], profile["followingCount"], shown["likeCount"], shown["commentCount"]
    assert eventually(lambda: mina_now() == (1, 1, 1, 1)), mina_now()

    # Someone who is not a moderator cannot; a moderator suspends the server under any spelling of its name.
    assert requests.put(mk.base + "/api/v1/moderation/domain-blocks/rogue.test", headers=mina, timeout=10,
                        json={"severity": "suspend"}).status_code == 403
    answer = requests.put(mk.base + "/api/v1/moderation/domain-blocks/ROGUE.test.", headers=warden, timeout=60,
                          json={"severity": "suspend", "reason": "spam"})
    assert answer.status_code == 200, answer.text
    assert [(b["domain"], b["severity"], b["reason"]) for b in answer.json()["blocks"]] == [
        ("rogue.test", "suspend", "spam")]
    assert eventually(lambda: mina_now() == (0, 0, 0, 0)), mina_now()
    for name in ("pat@rogue.test", "sam@rogue.test"):
        assert requests.get(f"{mk.base}/api/v1/users/{name}", headers=mina, timeout=10).status_code == 404

    # Nothing more is taken from it, nor fetched from it, nor sent to it.
    again = {"id": f"http://rogue.test/follows/{uuid.uuid4()}", "type": "Follow", "actor": pat,
             "object": "http://mk-d.test/users/mina"}
    assert send(rogue, "pat", again) == 403
    rogue.person("tia", "Tia Rogue")
    found = requests.get(mk.base + "/api/v1/users", params={"query": "@tia@rogue.test"}, headers=mina,
                         timeout=30).json()["items"]
    assert found == []
    assert requests.put(mk.base + "/api/v1/users/tia@rogue.test/follow", headers=mina,
                        timeout=30).status_code == 404
    assert mina_now() == (0, 0, 0, 0)
    log = requests.get(mk.base + "/api/v1/moderation/log?limit=1", headers=warden, timeout=10).json()["items"]
    assert [(e["action"], e["domain"], e["moderator"]) for e in log] == [("suspend_domain", "rogue.test", "warden")]

    # Lifted: the server is heard again (what was removed stays removed).
    lifted = requests.delete(mk.base + "/api/v1/moderation/domain-blocks/rogue.test", headers=warden, timeout=30)
    assert lifted.status_code == 200 and lifted.json() == {"blocks": []}
    again["id"] = f"http://rogue.test/follows/{uuid.uuid4()}"
    assert send(rogue, "pat", again) == 202
    assert mina_now() == (1, 0, 0, 0)


def test_a_limited_servers_posts_are_seen_only_by_those_who_follow_its_people(world):
    mk, loud, warden = world["mk"], world["loud"], world["warden"]
    nell, omar = mk.sign_up("nell"), mk.sign_up("omar")
    loud.person("lou", "Lou Loud")
    follow_remote(mk, loud, nell, "nell", "lou")
    note = remote_post(loud, "lou", "Very loud")

    def post_id() -> int | None:
        items = requests.get(mk.base + "/api/v1/timeline", headers=nell, timeout=10).json()["items"]
        return next((p["id"] for p in items if p["author"]["username"] == "lou@loud.test"), None)
    shown = eventually(post_id)

    def sees(headers: dict) -> bool:
        return requests.get(f"{mk.base}/api/v1/posts/{shown}", headers=headers, timeout=10).status_code == 200
    assert sees(nell) and sees(omar)

    answer = requests.put(mk.base + "/api/v1/moderation/domain-blocks/loud.test", headers=warden, timeout=30,
                          json={"severity": "limit"})
    assert answer.status_code == 200, answer.text
    assert sees(nell) and not sees(omar)
    assert requests.get(mk.base + "/api/v1/users/lou@loud.test", headers=omar, timeout=10).json()["isPrivate"]
    # A new post from there too, and the profile stays limited when their document is read again.
    assert remote_post(loud, "lou", "Still loud") != note
    assert send(loud, "lou", {"id": f"http://loud.test/updates/{uuid.uuid4()}", "type": "Update",
                              "actor": "http://loud.test/users/lou",
                              "object": {"id": "http://loud.test/users/lou", "type": "Person"}}) == 202
    assert not sees(omar)

    lifted = requests.delete(mk.base + "/api/v1/moderation/domain-blocks/loud.test", headers=warden, timeout=60)
    assert lifted.status_code == 200, lifted.text
    assert eventually(lambda: sees(omar)), "their own document says they are public"


def test_a_person_blocks_a_whole_server_for_themselves_with_mastodon_py(world):
    from mastodon import Mastodon

    mk, loud = world["mk"], world["loud"]
    pia = mk.sign_up("pia")
    post = post_photo(mk, pia, "Garden")
    loud.person("quinn", "Quinn Loud")
    quinn = "http://loud.test/users/quinn"

    def like() -> int:
        return send(loud, "quinn", {"id": f"http://loud.test/likes/{uuid.uuid4()}", "type": "Like", "actor": quinn,
                                    "object": f"http://mk-d.test/p/{post['id']}"})

    def follow(who: str) -> int:
        return send(loud, who, {"id": f"http://loud.test/follows/{uuid.uuid4()}", "type": "Follow",
                                "actor": f"http://loud.test/users/{who}", "object": "http://mk-d.test/users/pia"})
    assert follow("quinn") == 202 and like() == 202

    def pia_now():
        profile = requests.get(mk.base + "/api/v1/users/pia", headers=pia, timeout=10).json()
        shown = requests.get(f"{mk.base}/api/v1/posts/{post['id']}", headers=pia, timeout=10).json()
        return profile["followerCount"], shown["likeCount"]
    assert pia_now() == (1, 1)

    api = Mastodon(access_token=pia["Authorization"].split(" ")[1], api_base_url=mk.base, version_check_mode="none")
    api.domain_block("loud.test")
    assert api.domain_blocks() == ["loud.test"]
    assert pia_now() == (0, 0)
    assert like() >= 400 and follow("quinn") >= 400
    # Someone from there met only now is blocked as they arrive; others here still hear from them.
    loud.person("rae", "Rae Loud")
    assert follow("rae") >= 400
    assert pia_now() == (0, 0)
    ole = mk.sign_up("ole")
    assert send(loud, "rae", {"id": f"http://loud.test/follows/{uuid.uuid4()}", "type": "Follow",
                              "actor": "http://loud.test/users/rae", "object": "http://mk-d.test/users/ole"}) == 202
    # A block made one by one outlives the server's block being lifted.
    loud.person("sid", "Sid Loud")
    assert requests.get(mk.base + "/api/v1/users", params={"query": "@sid@loud.test"}, headers=ole,
                        timeout=30).status_code == 200
    api.domain_unblock("loud.test")
    assert api.domain_blocks() == []
    assert follow("quinn") == 202 and follow("rae") == 202
    assert pia_now() == (2, 0)

    requests.put(mk.base + "/api/v1/users/sid@loud.test/block", headers=pia, timeout=10).raise_for_status()
    api.domain_block("loud.test")
    api.domain_unblock("loud.test")
    blocked = requests.get(mk.base + "/api/v1/me/blocks", headers=pia, timeout=10).json()["items"]
    assert [u["username"] for u in blocked] == ["sid@loud.test"]


def test_reports_travel_both_ways_as_flags(world):
    from mastodon import Mastodon

    mk, loud, warden = world["mk"], world["loud"], world["warden"]
    rhea = mk.sign_up("rhea")
    loud.person("uma", "Uma Loud")
    follow_remote(mk, loud, rhea, "rhea", "uma")
    note = remote_post(loud, "uma", "Suspicious offer")

    def kept() -> int | None:
        items = requests.get(mk.base + "/api/v1/timeline", headers=rhea, timeout=10).json()["items"]
        return next((p["id"] for p in items if p["author"]["username"] == "uma@loud.test"), None)
    post = eventually(kept)

    def flags(after: int) -> list[dict]:
        return [r["activity"] for r in loud.received()["received"][after:] if r["activity"].get("type") == "Flag"]

    # Reported here only: nothing goes there.
    start = len(loud.received()["received"])
    assert requests.post(f"{mk.base}/api/v1/posts/{post}/reports", headers=rhea, timeout=10,
                         json={"reason": "Looks like a scam"}).status_code in (200, 201, 204)
    # Reported there too, from a Mastodon app, by someone else: a Flag from this server, not naming the reporter.
    sol = mk.sign_up("sol")
    follow_remote(mk, loud, sol, "sol", "uma")
    api = Mastodon(access_token=sol["Authorization"].split(" ")[1], api_base_url=mk.base, version_check_mode="none")
    account = api.account_lookup("uma@loud.test")
    report = api.report(account.id, status_ids=[post], comment="Phishing link", forward=True)
    assert report.forwarded and [str(s) for s in report.status_ids] == [str(post)]
    flag = eventually(lambda: flags(start))[0]
    assert flag["actor"] == "http://mk-d.test/actor" and flag["content"] == "Phishing link"
    assert set(flag["object"]) == {"http://loud.test/users/uma", note}
    assert "sol" not in str(flag)
    assert len(flags(start)) == 1, "the report that was not forwarded stayed here"

    queue = requests.get(mk.base + "/api/v1/moderation/reports", headers=warden, timeout=10).json()["items"]
    reasons = {r["reason"] for item in queue if item["post"]["id"] == post for r in item["reports"]}
    assert reasons == {"Looks like a scam", "Phishing link"}

    # A Flag from there names a post here: it lands in the queue, from their server's person, with its origin.
    mine = post_photo(mk, rhea, "My garden")
    flag = {"id": f"http://loud.test/flags/{uuid.uuid4()}", "type": "Flag", "actor": "http://loud.test/users/uma",
            "content": "Stolen photo", "object": ["http://mk-d.test/users/rhea", f"http://mk-d.test/p/{mine['id']}"]}
    assert send(loud, "uma", flag) == 202
    assert send(loud, "uma", {**flag, "id": f"http://loud.test/flags/{uuid.uuid4()}"}) == 202, "again: no change"
    queue = requests.get(mk.base + "/api/v1/moderation/reports", headers=warden, timeout=10).json()["items"]
    item = next(i for i in queue if i["post"]["id"] == mine["id"])
    assert item["reportCount"] == 1
    assert [(r["reporter"]["username"], r["reason"]) for r in item["reports"]] == [
        ("uma@loud.test", "Stolen photo (reported from loud.test)")]
    # A Flag that names only a person is taken and not kept (reports here are of posts).
    only = {"id": f"http://loud.test/flags/{uuid.uuid4()}", "type": "Flag", "actor": "http://loud.test/users/uma",
            "content": "Rude", "object": "http://mk-d.test/users/rhea"}
    assert send(loud, "uma", only) == 202
