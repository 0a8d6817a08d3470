"""Two Makestagram servers, mk-a.test and mk-b.test, federating with each other: bea on mk-b follows alice on mk-a,
sees her album with its alt texts in her home feed (the photos served by mk-b), likes and comments on it, and sees
alice's edit and deletion; every count exact on both servers."""
import pathlib

import requests

from federation_support import FederatedServer, eventually

PHOTOS = pathlib.Path(__file__).resolve().parents[1] / "TestFixtures" / "photos"


def upload(server: FederatedServer, who: dict, name: str, alt: str | None) -> int:
    with open(PHOTOS / name, "rb") as photo:
        answer = requests.post(server.base + "/api/v1/uploads", headers=who, files={"image": photo},
                               data={"altText": alt} if alt else {}, timeout=60)
    assert answer.status_code == 201, answer.text
    return answer.json()["id"]


def test_people_on_two_servers_follow_see_like_comment_edit_and_delete(pair):
    mk_a, mk_b = pair
    alice, bea = mk_a.sign_up("alice"), mk_b.sign_up("bea")
    a1, b1 = mk_a.base + "/api/v1", mk_b.base + "/api/v1"

    # bea finds alice by handle and follows her; it counts once mk-a accepts.
    found = requests.get(b1 + "/users", headers=bea, params={"query": "@alice@mk-a.test"}, timeout=30).json()
    assert found["items"][0]["username"] == "alice@mk-a.test"
    assert requests.put(b1 + "/users/alice@mk-a.test/follow", headers=bea, timeout=30).status_code == 200
    assert eventually(lambda: requests.get(b1 + "/users/alice@mk-a.test", headers=bea,
                                           timeout=10).json()["viewerFollows"]), "mk-a's Accept arrives"
    assert requests.get(a1 + "/users/alice", headers=alice, timeout=10).json()["followerCount"] == 1
    followers = requests.get(a1 + "/users/alice/followers", headers=alice, timeout=10).json()["items"]
    assert [person["username"] for person in followers] == ["bea@mk-b.test"]
    assert requests.get(b1 + "/users/bea", headers=bea, timeout=10).json()["followingCount"] == 1

    # alice posts an album; it reaches bea's home feed on mk-b with every photo and alt text, served by mk-b.
    uploads = [upload(mk_a, alice, "chelsea.jpg", "A cat on a sofa"), upload(mk_a, alice, "rocket.jpg", None),
               upload(mk_a, alice, "astronaut.jpg", "An astronaut above the Earth")]
    created = requests.post(a1 + "/posts", headers=alice, json={"caption": "Weekend #album", "uploads": uploads},
                            timeout=60)
    assert created.status_code == 201, created.text
    original = created.json()

    def in_feed():
        items = requests.get(b1 + "/timeline", headers=bea, timeout=10).json()["items"]
        return [item for item in items if item["author"]["username"] == "alice@mk-a.test"]
    arrived = eventually(in_feed, timeout=20)
    assert len(arrived) == 1, "once"
    post = arrived[0]
    assert post["caption"] == "Weekend #album"
    assert post["original"] == f"http://mk-a.test/p/{original['id']}", "its page on mk-a, in the feed"
    shown = requests.get(f"{b1}/posts/{post['id']}", headers=bea, timeout=10).json()
    assert shown["original"] == f"http://mk-a.test/p/{original['id']}", "and on its own"
    mine = requests.get(f"{a1}/posts/{original['id']}", headers=alice, timeout=10).json()
    assert "original" not in mine, "a post from here has none"
    assert [photo.get("altText") for photo in post["photos"]] == [
        "A cat on a sofa", None, "An astronaut above the Earth"]
    for photo in post["photos"]:
        assert photo["full"]["url"].startswith("/media/"), "served by mk-b itself"
        assert requests.get(mk_b.base + photo["full"]["url"], timeout=10).status_code == 200
    assert [photo["width"] for photo in post["photos"]] == [photo["width"] for photo in original["photos"]]

    # bea likes and comments on mk-b; alice sees both on mk-a.
    assert requests.put(f"{b1}/posts/{post['id']}/like", headers=bea, timeout=30).status_code == 200
    comment = requests.post(f"{b1}/posts/{post['id']}/comments", headers=bea,
                            json={"text": "Lovely cat, @alice@mk-a.test!"}, timeout=30)
    assert comment.status_code == 201, comment.text

    def on_a():
        return requests.get(f"{a1}/posts/{original['id']}", headers=alice, timeout=10).json()
    assert eventually(lambda: on_a()["likeCount"] == 1 and on_a()["commentCount"] == 1), on_a()
    assert on_a()["likers"] == ["bea@mk-b.test"]
    comments = requests.get(f"{a1}/posts/{original['id']}/comments", headers=alice, timeout=10).json()["items"]
    assert [(c["author"]["username"], c["text"]) for c in comments] == [("bea@mk-b.test", "Lovely cat, @alice!")]
    # (On mk-a the handle is alice's own name here.)

    # alice answers on mk-a, and carla there (whom nobody on mk-b follows) comments too: both reach the post on mk-b,
    # where bea's own comment stays once (mk-a does not send back what came from mk-b).
    carla = mk_a.sign_up("carla")
    answer = requests.post(f"{a1}/posts/{original['id']}/comments", headers=alice, json={"text": "Thanks, @bea@mk-b.test"},
                           timeout=30)
    assert answer.status_code == 201, answer.text
    assert requests.post(f"{a1}/posts/{original['id']}/comments", headers=carla, json={"text": "Same here"},
                         timeout=30).status_code == 201

    def comments_on_b():
        items = requests.get(f"{b1}/posts/{post['id']}/comments", headers=bea, timeout=10).json()["items"]
        return [(c["author"]["username"], c["text"]) for c in items]
    expected = [("bea", "Lovely cat, @alice@mk-a.test!"), ("alice@mk-a.test", "Thanks, @bea"),
                ("carla@mk-a.test", "Same here")]
    assert eventually(lambda: comments_on_b() == expected), comments_on_b()
    assert requests.get(f"{b1}/posts/{post['id']}", headers=bea, timeout=10).json()["commentCount"] == 3
    # alice deletes hers: it goes on mk-b too.
    assert requests.delete(f"{a1}/comments/{answer.json()['id']}", headers=alice, timeout=30).status_code == 204
    assert eventually(lambda: comments_on_b() == [expected[0], expected[2]]), comments_on_b()

    # bea deletes her comment: it goes on mk-a too.
    assert requests.delete(f"{b1}/comments/{comment.json()['id']}", headers=bea, timeout=30).status_code == 204
    assert eventually(lambda: on_a()["commentCount"] == 1), on_a()

    # An unlike reaches mk-a too.
    assert requests.delete(f"{b1}/posts/{post['id']}/like", headers=bea, timeout=30).status_code == 200
    assert eventually(lambda: on_a()["likeCount"] == 0), on_a()

    # alice edits, then deletes: mk-b follows.
    assert requests.patch(f"{a1}/posts/{original['id']}", headers=alice, json={"caption": "Edited #album"},
                          timeout=30).status_code == 200
    assert eventually(lambda: requests.get(f"{b1}/posts/{post['id']}", headers=bea,
                                           timeout=10).json().get("caption") == "Edited #album")
    # Her alt texts too, photo by photo: one given, one taken away.
    for photo, alt in ((2, "A rocket on its pad"), (1, "")):
        assert requests.patch(f"{a1}/posts/{original['id']}", headers=alice, json={"altText": alt, "photo": photo},
                              timeout=30).status_code == 200

    def alt_texts_on_b():
        shown = requests.get(f"{b1}/posts/{post['id']}", headers=bea, timeout=10).json()
        return [photo.get("altText") for photo in shown["photos"]], shown["caption"]
    assert eventually(lambda: alt_texts_on_b()[0] == [None, "A rocket on its pad", "An astronaut above the Earth"]), \
        alt_texts_on_b()
    assert alt_texts_on_b()[1] == "Edited #album"
    assert requests.delete(f"{a1}/posts/{original['id']}", headers=alice, timeout=30).status_code == 204
    assert eventually(lambda: requests.get(f"{b1}/posts/{post['id']}", headers=bea,
                                           timeout=10).status_code == 404)

    # bea unfollows; mk-a counts it.
    assert requests.delete(b1 + "/users/alice@mk-a.test/follow", headers=bea, timeout=30).status_code == 200
    assert eventually(lambda: requests.get(a1 + "/users/alice", headers=alice,
                                           timeout=10).json()["followerCount"] == 0)


def test_mastodon_py_on_one_server_follows_favourites_and_reads_someone_on_the_other(pair):
    from mastodon import Mastodon

    mk_a, mk_b = pair
    carl = mk_a.sign_up("carl")
    dina_token = mk_b.sign_up("dina")["Authorization"].split(" ")[1]
    dina = Mastodon(access_token=dina_token, api_base_url=mk_b.base, version_check_mode="none")

    found = dina.search_v2("@carl@mk-a.test", resolve=True, result_type="accounts")["accounts"]
    assert [(account.acct, account.username) for account in found] == [("carl@mk-a.test", "carl")]
    assert dina.account_lookup("carl@mk-a.test").id == found[0].id
    assert dina.account_lookup("dina").acct == "dina"
    dina.account_follow(found[0].id)
    assert eventually(lambda: dina.account_relationships([found[0].id])[0].following), "mk-a accepted"
    assert eventually(lambda: requests.get(mk_a.base + "/api/v1/users/carl", headers=carl,
                                           timeout=10).json()["followerCount"] == 1)
    mine = {"Authorization": "Bearer " + dina_token}
    assert requests.get(mk_b.base + "/api/v1/users/carl@mk-a.test", headers=mine,
                        timeout=10).json()["followerCount"] == 1

    with open(PHOTOS / "hubble.jpg", "rb") as photo:
        upload_id = requests.post(mk_a.base + "/api/v1/uploads", headers=carl, files={"image": photo},
                                  data={"altText": "A galaxy"}, timeout=60).json()["id"]
    original = requests.post(mk_a.base + "/api/v1/posts", headers=carl, timeout=60,
                             json={"caption": "Deep field", "uploads": [upload_id]}).json()

    def carls():
        return [status for status in dina.timeline_home() if status.account.acct == "carl@mk-a.test"]
    statuses = eventually(carls, timeout=20)
    assert len(statuses) == 1
    status = statuses[0]
    assert status.uri == f"http://mk-a.test/p/{original['id']}"
    assert [media.description for media in status.media_attachments] == ["A galaxy"]
    assert status.media_attachments[0].url.startswith(mk_b.base + "/media/")
    federated = [s.id for s in dina.timeline_public()]
    local = [s.id for s in dina.timeline_public(local=True)]
    assert status.id in federated and status.id not in local

    dina.status_favourite(status.id)
    assert eventually(lambda: requests.get(f"{mk_a.base}/api/v1/posts/{original['id']}", headers=carl,
                                           timeout=10).json()["likeCount"] == 1)
    # A reply from the Mastodon app is a comment on mk-a.
    reply = dina.status_post("Stunning", in_reply_to_id=status.id)
    assert reply.in_reply_to_id == status.id
    assert eventually(lambda: [(c["author"]["username"], c["text"]) for c in requests.get(
        f"{mk_a.base}/api/v1/posts/{original['id']}/comments", headers=carl, timeout=10).json()["items"]]
        == [("dina@mk-b.test", "Stunning")])
    # Found by the actor's URL too.
    by_url = dina.search_v2("http://mk-a.test/users/carl", resolve=True, result_type="accounts")["accounts"]
    assert [account.acct for account in by_url] == ["carl@mk-a.test"]
    dina.account_unfollow(found[0].id)
    assert eventually(lambda: requests.get(mk_a.base + "/api/v1/users/carl", headers=carl,
                                           timeout=10).json()["followerCount"] == 0)


def test_a_rotated_key_signs_from_then_on_and_the_other_server_reads_it_again(pair):
    mk_a, mk_b = pair
    kay, ben = mk_a.sign_up("kay"), mk_b.sign_up("ben")
    a1, b1 = mk_a.base + "/api/v1", mk_b.base + "/api/v1"
    assert requests.put(b1 + "/users/kay@mk-a.test/follow", headers=ben, timeout=30).status_code == 200
    assert eventually(lambda: requests.get(b1 + "/users/kay@mk-a.test", headers=ben,
                                           timeout=10).json()["viewerFollows"])

    def public_key() -> str:
        return requests.get("http://mk-a.test/users/kay", headers={"Accept": "application/activity+json"},
                            timeout=10).json()["publicKey"]["publicKeyPem"]
    before = public_key()
    keeper = mk_a.moderator("keeper")
    assert requests.post(a1 + "/moderation/users/kay/rotate-key", headers=kay, timeout=30).status_code == 403
    assert requests.post(a1 + "/moderation/users/nobody/rotate-key", headers=keeper, timeout=30).status_code == 404
    assert requests.post(a1 + "/moderation/users/kay/rotate-key", headers=keeper, timeout=30).status_code == 204
    after = public_key()
    assert after != before and "PUBLIC KEY" in after

    # What kay does from now on is signed with the new key, and mk-b, which knew the old one, reads it again.
    created = requests.post(a1 + "/posts", headers=kay, timeout=60, json={
        "caption": "New key", "uploads": [upload(mk_a, kay, "rocket.jpg", "A rocket")]})
    assert created.status_code == 201, created.text

    def arrived():
        items = requests.get(b1 + "/timeline", headers=ben, timeout=10).json()["items"]
        return [item for item in items if item["caption"] == "New key"]
    assert eventually(arrived, timeout=30), "mk-b took the post signed with the new key"


def test_an_account_deleted_on_one_server_is_gone_from_the_other(pair):
    """dana on mk-a deletes her account: mk-a sends the Delete of her actor, signed with her key (kept until it is
    sent), and mk-b removes her: her post from ned's feed, her follow and like of ned's post, her follower."""
    mk_a, mk_b = pair
    dana, ned = mk_a.sign_up("dana"), mk_b.sign_up("ned")
    a1, b1 = mk_a.base + "/api/v1", mk_b.base + "/api/v1"

    def follow(api, who, handle, viewer):
        assert requests.put(f"{api}/users/{handle}/follow", headers=who, timeout=30).status_code == 200
        assert eventually(lambda: requests.get(f"{api}/users/{handle}", headers=who,
                                               timeout=10).json()["viewerFollows"]), f"{viewer}'s follow accepted"
    follow(b1, ned, "dana@mk-a.test", "ned")
    follow(a1, dana, "ned@mk-b.test", "dana")
    with open(PHOTOS / "chelsea.jpg", "rb") as photo:
        assert requests.post(a1 + "/posts", headers=dana, files={"image": photo}, data={"caption": "Dana's cat"},
                             timeout=60).status_code == 201
    with open(PHOTOS / "rocket.jpg", "rb") as photo:
        neds = requests.post(b1 + "/posts", headers=ned, files={"image": photo}, data={"caption": "Ned's rocket"},
                             timeout=60).json()

    def danas_in_neds_feed():
        items = requests.get(b1 + "/timeline", headers=ned, timeout=10).json()["items"]
        return [item for item in items if item["author"]["username"] == "dana@mk-a.test"]
    assert eventually(danas_in_neds_feed, timeout=20)
    on_a = eventually(lambda: [item for item in requests.get(a1 + "/timeline", headers=dana, timeout=10).json()["items"]
                               if item["author"]["username"] == "ned@mk-b.test"], timeout=20)
    assert requests.put(f"{a1}/posts/{on_a[0]['id']}/like", headers=dana, timeout=30).status_code == 200

    def ned_now():
        me = requests.get(b1 + "/users/ned", headers=ned, timeout=10).json()
        post = requests.get(f"{b1}/posts/{neds['id']}", headers=ned, timeout=10).json()
        return me["followerCount"], me["followingCount"], post["likeCount"]
    assert eventually(lambda: ned_now() == (1, 1, 1)), ned_now()

    deleted = requests.post(a1 + "/me/delete", headers=dana, json={"password": "correct horse"}, timeout=30)
    assert deleted.status_code == 202, deleted.text
    assert eventually(lambda: ned_now() == (0, 0, 0), timeout=20), ned_now()
    assert danas_in_neds_feed() == []
    assert requests.get(b1 + "/users/dana@mk-a.test", headers=ned, timeout=10).status_code == 404
    # Her row, with her key, went once the Delete had been sent.
    assert eventually(lambda: "account deleted" in mk_a.log_path.read_text(), timeout=20)


def test_a_private_account_s_posts_reach_its_followers_on_the_other_server_and_nobody_else(pair):
    """pia on mk-a is private: her posts go to her followers only. bree on mk-b asks to follow her and is approved; pia's
    post and her edit of it reach bree's feed on mk-b, and nobody else there sees it. When pia turns public, mk-a says
    so, and mk-b removes the post that was for her followers only (on mk-b, as on Mastodon, a post keeps the audience
    it was sent to)."""
    mk_a, mk_b = pair
    pia, bree, cato = mk_a.sign_up("pia"), mk_b.sign_up("bree"), mk_b.sign_up("cato")
    a1, b1 = mk_a.base + "/api/v1", mk_b.base + "/api/v1"
    assert requests.patch(a1 + "/me", headers=pia, json={"isPrivate": True}, timeout=30).status_code == 200

    assert requests.put(b1 + "/users/pia@mk-a.test/follow", headers=bree, timeout=30).status_code == 200
    assert eventually(lambda: [person["username"] for person in requests.get(
        a1 + "/me/follow-requests", headers=pia, timeout=10).json()["items"]] == ["bree@mk-b.test"])
    assert requests.post(a1 + "/me/follow-requests/bree@mk-b.test/approve", headers=pia,
                         timeout=30).status_code in (200, 204)
    assert eventually(lambda: requests.get(b1 + "/users/pia@mk-a.test", headers=bree,
                                           timeout=10).json()["viewerFollows"]), "mk-a's Accept arrives"
    assert requests.get(b1 + "/users/pia@mk-a.test", headers=bree, timeout=10).json()["isPrivate"] is True

    with open(PHOTOS / "chelsea.jpg", "rb") as photo:
        created = requests.post(a1 + "/posts", headers=pia, files={"image": photo},
                                data={"caption": "For my followers", "altText": "A cat"}, timeout=60)
    assert created.status_code == 201, created.text
    original = created.json()

    def in_feed(who):
        items = requests.get(b1 + "/timeline", headers=who, timeout=10).json()["items"]
        return [item for item in items if item["author"]["username"] == "pia@mk-a.test"]
    arrived = eventually(lambda: in_feed(bree), timeout=20)
    assert arrived and arrived[0]["caption"] == "For my followers"
    post = arrived[0]
    assert post["image"].get("altText") == "A cat"
    assert requests.get(mk_b.base + post["image"]["full"]["url"], timeout=10).status_code == 200

    # Nobody else on mk-b sees it: not cato, not someone signed out, not through her profile.
    assert in_feed(cato) == []
    assert requests.get(f"{b1}/posts/{post['id']}", headers=cato, timeout=10).status_code == 404
    assert requests.get(f"{b1}/posts/{post['id']}", timeout=10).status_code in (401, 404)
    listed = requests.get(b1 + "/users/pia@mk-a.test/posts", headers=cato, timeout=10)
    assert listed.status_code in (403, 404) or listed.json()["items"] == [], listed.text

    # Her edit reaches bree too, still for her followers only.
    assert requests.patch(f"{a1}/posts/{original['id']}", headers=pia, json={"caption": "Edited, for followers"},
                          timeout=30).status_code == 200
    assert eventually(lambda: requests.get(f"{b1}/posts/{post['id']}", headers=bree,
                                           timeout=10).json().get("caption") == "Edited, for followers")
    assert requests.get(f"{b1}/posts/{post['id']}", headers=cato, timeout=10).status_code == 404

    # bree's comment reaches pia's post on mk-a: a reply for bree's followers and pia, not public, and a comment
    # there all the same, since only pia's followers see the post.
    said = requests.post(f"{b1}/posts/{post['id']}/comments", headers=bree, json={"text": "Only for us"}, timeout=30)
    assert said.status_code == 201, said.text
    assert requests.get(f"{mk_b.base}/comments/{said.json()['id']}", headers={"Accept": "application/activity+json"},
                        timeout=10).status_code == 404, "a reply for followers is not given to anybody who asks"
    assert eventually(lambda: [c["text"] for c in requests.get(f"{a1}/posts/{original['id']}/comments", headers=pia,
                                                                timeout=10).json()["items"]] == ["Only for us"])

    # pia turns public: mk-b learns it, and the post for her followers only goes before anyone else could see it.
    assert requests.patch(a1 + "/me", headers=pia, json={"isPrivate": False}, timeout=30).status_code == 200
    assert eventually(lambda: requests.get(b1 + "/users/pia@mk-a.test", headers=cato,
                                           timeout=10).json()["isPrivate"] is False, timeout=20)
    assert requests.get(f"{b1}/posts/{post['id']}", headers=bree, timeout=10).status_code == 404
    assert requests.get(f"{b1}/posts/{post['id']}", headers=cato, timeout=10).status_code == 404
    assert in_feed(bree) == []
