"""Real Mastodon clients nobody here wrote, with their default settings, against a server behind nginx over HTTPS
(as a public server runs): Mastodon.py (mastodon-py 2.3.3) and the toot command line sign in through the server's
own consent page (filled over HTTP, as a person would in the browser), post photos, page, favourite, follow, read
notifications, stream, and revoke."""
import html
import os
import pathlib
import re
import shutil
import subprocess
import tempfile
import time

import pytest
import requests
from mastodon import Mastodon, StreamListener
from mastodon.errors import MastodonAPIError

from makestagram_server import ROOT, Nginx, Server

PHOTOS = ROOT / "Tests" / "TestFixtures" / "photos"
pytestmark = pytest.mark.skipif(not shutil.which("nginx"), reason="needs nginx")
SCOPES = ["read", "write", "follow"]


@pytest.fixture(scope="module")
def public():
    """A server behind nginx over HTTPS, whose certificate the clients trust (as they would a real one)."""
    server = Server("--trusted-proxies", "127.0.0.1", "--rate-limit", "signups=10000/h")
    proxy = Nginx([server.port], tls=True)
    # requests reads the first, OpenSSL's default context (websocket-client's) the second.
    names = ("REQUESTS_CA_BUNDLE", "SSL_CERT_FILE")
    previous = {name: os.environ.get(name) for name in names}
    for name in names:
        os.environ[name] = str(proxy.certificate)
    try:
        yield proxy.base, server
    finally:
        for name, value in previous.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        proxy.stop()
        server.stop()


def sign_up(base: str, name: str) -> str:
    answer = requests.post(base + "/api/v1/accounts", timeout=30,
                           json={"username": name, "password": "correct horse", "displayName": name.title()})
    assert answer.status_code == 201, answer.text
    return answer.json()["token"]


def post_photo(base: str, headers: dict, caption: str) -> dict:
    with open(PHOTOS / "rocket.jpg", "rb") as photo:
        answer = requests.post(base + "/api/v1/posts", headers=headers, files={"image": photo},
                               data={"caption": caption}, timeout=60)
    assert answer.status_code == 201, answer.text
    return answer.json()


def consent(url: str, username: str) -> str:
    """Opens the authorization page, signs in and approves; answers the code the page shows."""
    page = requests.get(url, timeout=30)
    assert page.status_code == 200 and "wants to use your account" in page.text
    fields = {name: html.unescape(value)
              for name, value in re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)">', page.text)}
    fields.update(username=username, password="correct horse", decision="approve")
    answer = requests.post(url.split("?")[0].rstrip("/"), data=fields, timeout=30)
    assert answer.status_code == 200, answer.text
    return re.search(r'id="code">([^<]+)<', answer.text).group(1)


def log_in(base: str, username: str, scopes=SCOPES) -> Mastodon:
    client_id, secret = Mastodon.create_app("Pictures", api_base_url=base, scopes=scopes)
    client = Mastodon(client_id=client_id, client_secret=secret, api_base_url=base)
    code = consent(client.auth_request_url(scopes=scopes), username)
    client.log_in(code=code, scopes=scopes)
    return client


def test_mastodon_py_signs_in_posts_pages_favourites_follows_streams_and_revokes(public):
    base, _ = public
    sign_up(base, "mara")
    friend = sign_up(base, "felix")
    friend_headers = {"Authorization": f"Bearer {friend}"}
    mara = log_in(base, "mara")
    assert mara.retrieve_mastodon_version() >= "4.0.0"
    me = mara.account_verify_credentials()
    assert me.username == "mara" and me.acct == "mara"

    posted = []
    for index in range(3):
        media = mara.media_post(str(PHOTOS / "chelsea.jpg"))
        assert media.type == "image" and media.url.startswith("https://")
        posted.append(mara.status_post(f"Cat number {index} #cats", media_ids=[media.id]))
    assert posted[-1].media_attachments[0].preview_url.startswith(base)
    first = mara.timeline_home(limit=2)
    second = mara.fetch_next(first)
    assert [status.id for status in first + second] == [status.id for status in reversed(posted)]
    assert "Cat number 0" in second[0].content

    felix = mara.account_lookup("felix")
    named = mara.status_post("Hello @felix and @nobody_here", media_ids=[mara.media_post(str(PHOTOS / "rocket.jpg")).id])
    assert [(m.acct, m.username, m.id) for m in named.mentions] == [("felix", "felix", felix.id)]
    assert named.mentions[0].url.endswith("/u/felix")
    assert mara.status(named.id).mentions[0].acct == "felix"
    mara.status_delete(named.id)
    assert mara.account_follow(felix.id).following
    assert mara.account_relationships([felix.id])[0].following

    got = []

    class Listener(StreamListener):
        def on_notification(self, notification):
            got.append((notification.type, notification.account.username))

        def on_update(self, status):
            got.append(("update", status.id))

    stream = mara.stream_user(Listener(), run_async=True)
    try:
        time.sleep(0.5)
        liked = requests.put(f"{base}/api/v1/posts/{posted[0].id}/like", headers=friend_headers, timeout=30)
        assert liked.status_code == 200
        deadline = time.time() + 20
        while ("favourite", "felix") not in got and time.time() < deadline:
            time.sleep(0.1)
        assert ("favourite", "felix") in got, "the favourite arrived live"
        # Felix names her in a caption of his own: a mention, live too (derived from the change log after commit).
        post_photo(base, friend_headers, "Look, @mara")
        deadline = time.time() + 20
        while ("mention", "felix") not in got and time.time() < deadline:
            time.sleep(0.1)
        assert ("mention", "felix") in got, "the mention arrived live"
    finally:
        stream.close()

    assert [account.username for account in mara.status_favourited_by(posted[0].id)] == ["felix"]
    notifications = [(n.type, n.account.username) for n in mara.notifications()]
    assert notifications[:2] == [("mention", "felix"), ("favourite", "felix")]
    assert "Look, @mara" in mara.notifications()[0].status.content
    favourited = mara.status_favourite(posted[1].id)
    assert favourited.favourited and favourited.favourites_count == 1
    unfavourited = mara.status_unfavourite(posted[1].id)
    assert not unfavourited.favourited and unfavourited.favourites_count == 0
    reply = mara.status_post("Replying with a comment", in_reply_to_id=posted[0].id)
    assert [status.id for status in mara.status_context(posted[0].id).descendants] == [reply.id]
    # A reply opens as a status, its thread is its post, and answering it is a comment on the post too.
    opened = mara.status(reply.id)
    assert opened.id == reply.id and opened.in_reply_to_id == posted[0].id and "Replying" in opened.content
    assert [status.id for status in mara.status_context(reply.id).ancestors] == [posted[0].id]
    answer = mara.status_post("Answering the reply", in_reply_to_id=reply.id)
    assert answer.in_reply_to_id == posted[0].id
    assert [s.id for s in mara.status_context(posted[0].id).descendants] == [reply.id, answer.id]
    with pytest.raises(MastodonAPIError) as missing:
        mara.status("c999999")
    assert missing.value.args[1] == 404
    assert mara.search_v2("feli", result_type="accounts").accounts[0].username == "felix"
    updated = mara.account_update_credentials(display_name="Mara M.", note="Cats & coffee",
                                              avatar=str(PHOTOS / "chelsea.jpg"))
    assert updated.display_name == "Mara M." and updated.source.note == "Cats & coffee"
    assert "Cats &amp; coffee" in updated.note and "/media/" in updated.avatar

    # The web client's API sees the same post, with the like.
    mine = requests.get(f"{base}/api/v1/posts/{posted[0].id}", headers=friend_headers, timeout=30).json()
    assert mine["likeCount"] == 1 and mine["caption"] == "Cat number 0 #cats"

    mara.revoke_access_token()
    with pytest.raises(MastodonAPIError):
        mara.account_verify_credentials()


def test_the_websocket_stream_delivers_live_and_revoking_the_app_in_settings_cuts_it(public):
    base, _ = public
    owner = sign_up(base, "wanda")
    fan = sign_up(base, "fred")
    wanda = log_in(base, "wanda")
    post = wanda.status_post("Live", media_ids=[wanda.media_post(str(PHOTOS / "rocket.jpg")).id])
    got, aborted = [], []

    class Listener(StreamListener):
        def on_notification(self, notification):
            got.append((notification.type, notification.account.username))

        def on_abort(self, error):
            aborted.append(error)

    handle = wanda.stream_open_websocket(Listener())
    try:
        wanda.stream_user(Listener(), websocket_handle=handle)
        time.sleep(0.5)
        requests.put(f"{base}/api/v1/posts/{post.id}/like", headers={"Authorization": f"Bearer {fan}"}, timeout=30)
        deadline = time.time() + 20
        while ("favourite", "fred") not in got and time.time() < deadline:
            time.sleep(0.1)
        assert ("favourite", "fred") in got
        # A comment of fred's on his own post that names her: a mention on this stream too.
        fans = {"Authorization": f"Bearer {fan}"}
        own = post_photo(base, fans, "Mine")
        requests.post(f"{base}/api/v1/posts/{own['id']}/comments", headers=fans, json={"text": "cc @wanda"},
                      timeout=30).raise_for_status()
        deadline = time.time() + 20
        while ("mention", "fred") not in got and time.time() < deadline:
            time.sleep(0.1)
        time.sleep(0.5)
        assert got.count(("mention", "fred")) == 1, "announced once"

        # The owner revokes the app from their settings: its stream ends and its token fails.
        owner_headers = {"Authorization": f"Bearer {owner}"}
        apps = requests.get(base + "/api/v1/me/apps", headers=owner_headers, timeout=30).json()["items"]
        assert [app["name"] for app in apps] == ["Pictures"]
        revoked = requests.delete(f"{base}/api/v1/me/apps/{apps[0]['id']}", headers=owner_headers, timeout=30)
        assert revoked.status_code == 204
        deadline = time.time() + 20
        while handle.connection is not None and handle.connection.connected and time.time() < deadline:
            time.sleep(0.1)
        assert not (handle.connection and handle.connection.connected), "the app's stream was cut"
        with pytest.raises(MastodonAPIError):
            wanda.account_verify_credentials()
    finally:
        handle.close()


def test_alt_text_through_mastodon_py_before_and_after_posting(public):
    base, _ = public
    sign_up(base, "alma")
    alma = log_in(base, "alma")
    limit = requests.get(base + "/api/v2/instance", timeout=30).json()["configuration"]["media_attachments"]
    assert limit["description_limit"] == 1_500
    media = alma.media_post(str(PHOTOS / "rocket.jpg"), description="A rocket on its pad")
    assert media.description == "A rocket on its pad"
    assert alma.media_update(media.id, description="A white rocket at dawn").description == "A white rocket at dawn"
    with pytest.raises(MastodonAPIError) as refused:
        alma.media_update(media.id, description="x" * 1_501)
    assert refused.value.args[1] == 422
    status = alma.status_post("Launch day", media_ids=[media.id])
    assert status.media_attachments[0].description == "A white rocket at dawn"
    # After posting too (Mastodon itself needs a status edit): the attachment has the status's ID.
    assert status.media_attachments[0].id == status.id
    alma.media_update(status.media_attachments[0].id, description="A white rocket, seen from the beach")
    assert alma.status(status.id).media_attachments[0].description == "A white rocket, seen from the beach"
    # As Mastodon does it: a status edit with media_attributes, together with the caption.
    edited = alma.status_update(status.id, "Launch day, T+10 s", media_attributes=[
        alma.generate_media_edit_attributes(status.id, description="Smoke and fire")])
    assert edited.media_attachments[0].description == "Smoke and fire" and edited.edited_at is not None
    assert "T+10 s" in alma.status(status.id).content
    assert alma.status_update(status.id, "Caption only").media_attachments[0].description == "Smoke and fire"
    # Nobody else can describe her photo, posted or not.
    other = {"Authorization": f"Bearer {sign_up(base, 'otto')}"}
    pending = alma.media_post(str(PHOTOS / "rocket.jpg"))
    for media_id in (status.id, pending.id):
        answer = requests.put(f"{base}/api/v1/media/{media_id}", headers=other, data={"description": "mine"},
                              timeout=30)
        assert answer.status_code == 404, answer.text
    assert alma.status(status.id).media_attachments[0].description == "Smoke and fire"
    # None written: null, never the caption.
    plain = alma.status_post("No words", media_ids=[alma.media_post(str(PHOTOS / "rocket.jpg")).id])
    assert plain.media_attachments[0].description is None
    with pytest.raises(MastodonAPIError) as too_long:
        alma.media_post(str(PHOTOS / "rocket.jpg"), description="y" * 1_501)
    assert too_long.value.args[1] == 422


def test_an_album_through_mastodon_py_reads_back_the_same_natively(public):
    base, _ = public
    token = sign_up(base, "albina")
    albina = log_in(base, "albina")
    for version in ("v1", "v2"):
        document = requests.get(f"{base}/api/{version}/instance", timeout=30).json()
        assert document["configuration"]["statuses"]["max_media_attachments"] == 10
    media = [
        albina.media_post(str(PHOTOS / "rocket.jpg"), description="A rocket on its pad"),
        albina.media_post(str(PHOTOS / "chelsea.jpg")),
        albina.media_post(str(PHOTOS / "astronaut.jpg"), description="An astronaut above the Earth"),
    ]
    status = albina.status_post("Three of them", media_ids=[media[2].id, media[0].id, media[1].id])
    attachments = status.media_attachments
    assert [each.description for each in attachments] == ["An astronaut above the Earth", "A rocket on its pad", None]
    assert [each.url for each in attachments] == [media[2].url, media[0].url, media[1].url]
    assert attachments[0].id == status.id and len({each.id for each in attachments}) == 3
    for read in (albina.status(status.id), albina.timeline_home()[0],
                 albina.account_statuses(albina.me().id)[0]):
        assert [each.url for each in read.media_attachments] == [each.url for each in attachments]
        assert [each.description for each in read.media_attachments] == [each.description for each in attachments]

    # A posted photo reads back by its attachment ID.
    assert albina.media(attachments[1].id).url == attachments[1].url
    # Each photo's alt text changes alone: after posting through the media ID, or as Mastodon does it, in an edit.
    albina.media_update(attachments[2].id, description="A cat asleep on a sofa")
    edited = albina.status_update(status.id, "Three of them, described", media_attributes=[
        albina.generate_media_edit_attributes(attachments[1].id, description="A white rocket at dawn")])
    assert [each.description for each in edited.media_attachments] == \
        ["An astronaut above the Earth", "A white rocket at dawn", "A cat asleep on a sofa"]
    with pytest.raises(MastodonAPIError) as foreign:
        albina.status_update(status.id, "x", media_attributes=[
            albina.generate_media_edit_attributes(f"{status.id}-9", description="none such")])
    assert foreign.value.args[1] == 422

    # The native API reads the same album.
    native = requests.get(f"{base}/api/v1/posts/{status.id}", headers={"Authorization": f"Bearer {token}"},
                          timeout=30).json()
    assert [photo.get("altText") for photo in native["photos"]] == \
        ["An astronaut above the Earth", "A white rocket at dawn", "A cat asleep on a sofa"]
    assert base + native["photos"][1]["full"]["url"] == edited.media_attachments[1].url

    # Eleven photos are one too many: refused, nothing posted, the uploads kept.
    eleven = [albina.media_post(str(PHOTOS / "chelsea.jpg")).id for _ in range(11)]
    with pytest.raises(MastodonAPIError) as refused:
        albina.status_post("Too many", media_ids=eleven)
    assert refused.value.args[1] == 422
    assert albina.timeline_home()[0].id == status.id, "nothing was posted"
    assert len(albina.status_post("Ten", media_ids=eleven[:10]).media_attachments) == 10
    # An upload never posted can be taken back.
    assert requests.delete(f"{base}/api/v1/media/{eleven[10]}", headers={"Authorization": f"Bearer {token}"},
                           timeout=30).status_code == 200
    with pytest.raises(MastodonAPIError):
        albina.status_post("Gone", media_ids=[eleven[10]])


def test_mute_through_mastodon_py(public):
    base, _ = public
    token = sign_up(base, "muna")
    sign_up(base, "moto")
    muna, moto = log_in(base, "muna"), log_in(base, "moto")
    moto_id = moto.me().id
    muna.account_follow(moto_id)
    first = moto.status_post("Loud", media_ids=[moto.media_post(str(PHOTOS / "rocket.jpg")).id])
    assert [status.id for status in muna.timeline_home()] == [first.id]

    relationship = muna.account_mute(moto_id)
    assert relationship.muting is True and relationship.following is True
    assert muna.account_relationships(moto_id)[0].muting is True
    assert [account.acct for account in muna.mutes()] == ["moto"]
    assert muna.timeline_home() == []
    moto.status_post("Louder", media_ids=[moto.media_post(str(PHOTOS / "rocket.jpg")).id])
    assert muna.timeline_home() == []
    assert moto.account_relationships(muna.me().id)[0].muting is False, "they are not told"
    # The native API says the same.
    native = requests.get(base + "/api/v1/users/moto", headers={"Authorization": f"Bearer {token}"}, timeout=30)
    assert native.json()["viewerMutes"] is True

    assert muna.account_unmute(moto_id).muting is False
    assert [status.content for status in muna.timeline_home()] == ["<p>Louder</p>", "<p>Loud</p>"]
    assert muna.mutes() == []


def test_block_through_mastodon_py(public):
    base, _ = public
    sign_up(base, "blanca")
    sign_up(base, "bruno")
    blanca, bruno = log_in(base, "blanca"), log_in(base, "bruno")
    blanca_id, bruno_id = blanca.me().id, bruno.me().id
    blanca.account_follow(bruno_id)
    bruno.account_follow(blanca_id)
    hers = blanca.status_post("Mine", media_ids=[blanca.media_post(str(PHOTOS / "rocket.jpg")).id])
    bruno.status_favourite(hers.id)
    his_reply = bruno.status_post("A reply", in_reply_to_id=hers.id)

    relationship = blanca.account_block(bruno_id)
    assert relationship.blocking is True and relationship.following is False and relationship.followed_by is False
    assert [account.acct for account in blanca.blocks()] == ["bruno"]
    assert blanca.status(hers.id).favourites_count == 0 and blanca.status(hers.id).replies_count == 0
    assert blanca.status_context(hers.id).descendants == []
    # To him she is gone: her account, her status, and no way to follow, favourite or answer.
    for attempt in (lambda: bruno.account(blanca_id), lambda: bruno.status(hers.id),
                    lambda: bruno.status_favourite(hers.id), lambda: bruno.account_follow(blanca_id),
                    lambda: bruno.status_post("Again", in_reply_to_id=hers.id),
                    lambda: bruno.status(his_reply.id), lambda: bruno.status_context(his_reply.id),
                    lambda: bruno.status_post("Again", in_reply_to_id=his_reply.id)):
        with pytest.raises(MastodonAPIError) as refused:
            attempt()
        assert refused.value.args[1] == 404
    assert bruno.account_search("blanca") == []
    assert bruno.account_relationships(blanca_id)[0].blocked_by is True
    assert blanca.account_relationships(bruno_id)[0].blocked_by is False
    assert bruno.timeline_home() == [] or all(s.account.id != blanca_id for s in bruno.timeline_home())

    assert blanca.account_unblock(bruno_id).blocking is False
    assert blanca.blocks() == []
    assert bruno.account(blanca_id).followers_count == 0, "an unblock restores nothing"


def test_locked_account_through_mastodon_py(public):
    base, _ = public
    sign_up(base, "lorna")
    sign_up(base, "lucas")
    lorna, lucas = log_in(base, "lorna"), log_in(base, "lucas")
    lorna_id, lucas_id = lorna.me().id, lucas.me().id
    assert lorna.account_update_credentials(locked=True).locked is True
    assert lucas.account(lorna_id).locked is True
    hers = lorna.status_post("Friends only", media_ids=[lorna.media_post(str(PHOTOS / "rocket.jpg")).id])
    assert hers.visibility == "private"
    # Who sees a post is its account's rule: asking for more than that is refused, for less is taken (and said).
    asked_public = lorna.status_post("Asked public", visibility="public",
                                     media_ids=[lorna.media_post(str(PHOTOS / "rocket.jpg")).id])
    assert asked_public.visibility == "private"
    lorna.status_delete(asked_public.id)
    for who, visibility in ((lucas, "private"), (lucas, "direct"), (lorna, "direct")):
        photo = who.media_post(str(PHOTOS / "rocket.jpg")).id
        with pytest.raises(MastodonAPIError) as refused:
            who.status_post("Not like this", visibility=visibility, media_ids=[photo])
        assert refused.value.args[1] == 422, visibility
    unknown = requests.post(base + "/api/v1/statuses", headers={"Authorization": f"Bearer {lucas.access_token}"},
                            data={"status": "Not like this", "visibility": "secret",
                                  "media_ids[]": lucas.media_post(str(PHOTOS / "rocket.jpg")).id}, timeout=30)
    assert unknown.status_code == 422, unknown.text
    assert lucas.account_statuses(lucas_id) == []

    relationship = lucas.account_follow(lorna_id)
    assert relationship.requested is True and relationship.following is False
    assert [account.acct for account in lorna.follow_requests()] == ["lucas"]
    with pytest.raises(MastodonAPIError) as refused:
        lucas.status(hers.id)
    assert refused.value.args[1] == 404
    assert lucas.account_statuses(lorna_id) == []
    for _ in range(100):
        if any(n.type == "follow_request" for n in lorna.notifications()):
            break
        time.sleep(0.05)
    assert [n.account.acct for n in lorna.notifications() if n.type == "follow_request"] == ["lucas"]

    assert lorna.follow_request_authorize(lucas_id).followed_by is True
    assert lucas.account_relationships(lorna_id)[0].following is True
    assert lucas.status(hers.id).content == "<p>Friends only</p>"
    assert lorna.follow_requests() == []
    # She removes him from her followers: her statuses are hidden from him again, and he may ask again.
    assert lorna.account_remove_from_followers(lucas_id).followed_by is False
    assert lucas.account_relationships(lorna_id)[0].following is False
    with pytest.raises(MastodonAPIError) as hidden:
        lucas.status(hers.id)
    assert hidden.value.args[1] == 404
    assert lucas.account_follow(lorna_id).requested is True
    assert lorna.follow_request_authorize(lucas_id).followed_by is True
    assert lorna.account_update_credentials(locked=False).locked is False
    assert lucas.status(hers.id).visibility == "public"


def test_every_mastodon_route_hides_a_blocker(public):
    """The visibility rule through the Mastodon API: every route naming a blocker answers 404 to the one they block
    (the native routes are walked in test_visibility_routes.py)."""
    base, _ = public
    sign_up(base, "mwalkowen")
    sign_up(base, "mwalkbob")
    owner, blocked = log_in(base, "mwalkowen"), log_in(base, "mwalkbob")
    owner_id, blocked_id = owner.me().id, blocked.me().id
    status = owner.status_post("Mine", media_ids=[owner.media_post(str(PHOTOS / "rocket.jpg")).id])
    owner.account_block(blocked_id)
    token = blocked.access_token
    headers = {"Authorization": f"Bearer {token}"}
    routes = [
        ("GET", f"/api/v1/accounts/{owner_id}"), ("GET", f"/api/v1/accounts/{owner_id}/statuses"),
        ("GET", f"/api/v1/accounts/{owner_id}/followers"), ("GET", f"/api/v1/accounts/{owner_id}/following"),
        ("POST", f"/api/v1/accounts/{owner_id}/follow"), ("POST", f"/api/v1/accounts/{owner_id}/unfollow"),
        ("POST", f"/api/v1/accounts/{owner_id}/mute"),
        ("GET", f"/api/v1/statuses/{status.id}"), ("GET", f"/api/v1/statuses/{status.id}/context"),
        ("GET", f"/api/v1/statuses/{status.id}/favourited_by"), ("POST", f"/api/v1/statuses/{status.id}/favourite"),
        ("POST", f"/api/v1/statuses/{status.id}/unfavourite"), ("PUT", f"/api/v1/statuses/{status.id}"),
        ("DELETE", f"/api/v1/statuses/{status.id}"),
        ("GET", "/api/v1/accounts/lookup?acct=mwalkowen"),
    ]
    leaks = []
    for method, path in routes:
        answer = requests.request(method, base + path, headers=headers, data={"status": "mine"}, timeout=30)
        if answer.status_code != 404:
            leaks.append(f"{method} {path}: {answer.status_code} {answer.text[:120]}")
    assert leaks == [], "Mastodon routes that showed a blocker to the one they block:\n" + "\n".join(leaks)
    assert blocked.account_search("mwalkowen") == []
    assert owner.status(status.id).favourites_count == 0


def test_a_read_only_token_cannot_write(public):
    base, _ = public
    sign_up(base, "rhea")
    reader = log_in(base, "rhea", scopes=["read"])
    assert reader.timeline_home() == []
    with pytest.raises(MastodonAPIError) as refused:
        reader.media_post(str(PHOTOS / "chelsea.jpg"))
    assert "403" in str(refused.value) or "scope" in str(refused.value)
    with pytest.raises(MastodonAPIError):
        reader.account_follow(reader.account_verify_credentials().id)


def test_toot_logs_in_and_posts_a_photo(public):
    base, _ = public
    token = sign_up(base, "tomas")
    home = tempfile.mkdtemp(prefix="toot-")
    env = dict(os.environ, XDG_CONFIG_HOME=home)
    try:
        login = subprocess.Popen(["toot", "login", "--instance", base], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT, text=True, env=env)
        shown = ""
        while "Login URL:" not in shown:
            line = login.stdout.readline()
            assert line, f"toot stopped: {shown}"
            shown += line
        url = login.stdout.readline().strip()
        code = consent(url, "tomas")
        rest, _ = login.communicate("n\n" + code + "\n", timeout=60)
        assert login.returncode == 0 and "Successfully logged in" in rest, rest
        posted = subprocess.run(["toot", "post", "--media", str(PHOTOS / "chelsea.jpg"), "Posted with toot"],
                                capture_output=True, text=True, env=env, timeout=60)
        assert posted.returncode == 0, posted.stderr
        timeline = requests.get(base + "/api/v1/timeline", headers={"Authorization": f"Bearer {token}"},
                                timeout=30).json()
        assert timeline["items"][0]["caption"] == "Posted with toot"
        assert timeline["items"][0]["image"]["variants"], "the photo went through the whole pipeline"
        # Two photos, each with its description.
        album = subprocess.run(["toot", "post", "--media", str(PHOTOS / "rocket.jpg"), "--description", "A rocket",
                                "--media", str(PHOTOS / "astronaut.jpg"), "--description", "An astronaut",
                                "Two with toot"], capture_output=True, text=True, env=env, timeout=60)
        assert album.returncode == 0, album.stderr
        newest = requests.get(base + "/api/v1/timeline", headers={"Authorization": f"Bearer {token}"},
                              timeout=30).json()["items"][0]
        assert newest["caption"] == "Two with toot"
        assert [photo.get("altText") for photo in newest["photos"]] == ["A rocket", "An astronaut"]
    finally:
        shutil.rmtree(home, ignore_errors=True)
