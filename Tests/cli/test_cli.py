"""The `makestagram` client commands end to end, against a real server, as a person types them."""
import json
import os
import pathlib
import queue
import re
import secrets
import stat
import subprocess
import threading
import zipfile

import pytest
import requests

PHOTOS = pathlib.Path(__file__).resolve().parents[1] / "TestFixtures" / "photos"


class Terminal:
    """Runs commands as one person: their own config folder (so their own session) and server."""

    def __init__(self, binary: str, server: str, home: pathlib.Path):
        self.binary = binary
        self.env = dict(os.environ, XDG_CONFIG_HOME=str(home), MAKESTAGRAM_SERVER=server)
        self.home = home

    def run(self, *args: str, stdin: str | None = None, ok: bool = True) -> subprocess.CompletedProcess:
        result = subprocess.run(
            [self.binary, *args], input=stdin, capture_output=True, text=True, env=self.env, timeout=60,
        )
        if ok:
            assert result.returncode == 0, f"{args}: {result.stderr}"
        return result

    def start(self, *args: str) -> subprocess.Popen:
        return subprocess.Popen(
            [self.binary, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=self.env,
        )


@pytest.fixture
def terminal(makestagram_binary, server, tmp_path):
    def make(name: str) -> Terminal:
        return Terminal(makestagram_binary, server, tmp_path / name)
    return make


def name(prefix: str) -> str:
    return f"{prefix}_{secrets.token_hex(3)}"


def lines_of(stream) -> queue.Queue:
    """A process's output lines, as they come."""
    lines: queue.Queue = queue.Queue()

    def pump():
        for line in stream:
            lines.put(line.rstrip("\n"))

    threading.Thread(target=pump, daemon=True).start()
    return lines


def test_the_whole_flow_from_the_command_line(terminal, server):
    ann, ben = terminal("ann"), terminal("ben")
    ann_name, ben_name = name("ann"), name("ben")
    signed_up = ann.run("signup", ann_name, "--name", "Ann Example", "--password-stdin", stdin="correct horse\n")
    assert f"logged in as {ann_name}" in signed_up.stdout
    credentials = ann.home / "makestagram" / "credentials.json"
    assert stat.S_IMODE(credentials.stat().st_mode) == 0o600
    assert stat.S_IMODE(credentials.parent.stat().st_mode) == 0o700
    assert ann_name in ann.run("whoami").stdout

    posted = ann.run("post", str(PHOTOS / "phone-gps-rotated.jpg"), "--caption", "Coffee", "--json")
    post = json.loads(posted.stdout)
    assert post["caption"] == "Coffee" and post["image"]["height"] > post["image"]["width"]
    assert "100%" in posted.stderr, "a progress bar was drawn"

    square = json.loads(ann.run("post", str(PHOTOS / "hubble.jpg"), "--crop", "square", "--json",
                                "--alt-text", "A field of galaxies").stdout)
    assert square["image"]["width"] == square["image"]["height"] == 872
    assert square["image"]["altText"] == "A field of galaxies"
    described = ann.run("edit", str(square["id"]), "--alt-text", "Galaxies, some spiral").stdout
    assert 'described as: "Galaxies, some spiral"' in described
    assert "Removed the alt text" in ann.run("edit", str(square["id"]), "--alt-text", "").stdout
    too_long = ann.run("edit", str(square["id"]), "--alt-text", "x" * 1_501, ok=False)
    assert too_long.returncode != 0 and "1,500" in too_long.stderr
    ann.run("delete", str(square["id"]))

    # An album: several photos in order, one alt text each (the last one left without), then one changed alone.
    shared = ann.run("post", str(PHOTOS / "rocket.jpg"), str(PHOTOS / "chelsea-gps.heic"), str(PHOTOS / "hubble.jpg"),
                     "--alt", "A white rocket", "--alt", "A cat on a sofa", "--caption", "Three")
    assert "with 3 photos" in shared.stdout and "100%" in shared.stderr
    album_id = re.search(r"Posted post (\d+)", shared.stdout).group(1)
    described = ann.run("edit", album_id, "--alt", "3", "Galaxies far away").stdout
    assert 'photo 3 of post' in described and '"Galaxies far away"' in described
    album = json.loads(ann.run("post", str(PHOTOS / "rocket.jpg"), "--json").stdout)
    assert "photos" not in album, "one photo is a post of one photo"
    too_many_alts = ann.run("post", str(PHOTOS / "rocket.jpg"), "--alt", "one", "--alt", "two", ok=False)
    assert too_many_alts.returncode != 0 and "at most one --alt per photo" in too_many_alts.stderr
    no_such_photo = ann.run("edit", album_id, "--alt", "4", "none", ok=False)
    assert no_such_photo.returncode != 0 and "photo" in no_such_photo.stderr
    ann.run("delete", str(album["id"]))
    assert "[3 photos] Three" in ann.run("feed").stdout
    ann.run("delete", album_id)

    ben.run("signup", ben_name, "--password-stdin", stdin="correct horse\n")
    assert ann_name in ben.run("search", ann_name[:5]).stdout
    assert ann_name in ben.run("search", "AMPLE").stdout, "part of the display name, another case"
    assert "You follow" in ben.run("follow", ann_name).stdout
    assert f"✓ {ann_name}" in ben.run("search", "ann example").stdout
    table = ben.run("feed").stdout
    assert "Coffee" in table and ann_name in table and str(post["id"]) in table
    assert "You muted" in ben.run("mute", ann_name).stdout
    assert "Coffee" not in ben.run("feed").stdout, "a muted person's posts leave the feed"
    assert ann_name in ben.run("unmute").stdout, "with no name: whom you mute"
    assert "You unmuted" in ben.run("unmute", ann_name).stdout
    assert "You mute nobody." in ben.run("unmute").stdout
    assert "Coffee" in ben.run("feed").stdout
    assert "You blocked" in ben.run("block", ann_name).stdout
    assert "Coffee" not in ben.run("feed").stdout, "a blocked person's posts leave the feed"
    assert ann_name in ben.run("unblock").stdout, "with no name: whom you block"
    assert "You unblocked" in ben.run("unblock", ann_name).stdout
    assert "You block nobody." in ben.run("unblock").stdout
    ben.run("follow", ann_name)
    assert "Coffee" in ben.run("feed").stdout, "following again after an unblock brings them back"
    # A private account: a follow is a request, answered from the command line.
    assert "Private" in ann.run("profile", "--private").stdout
    ben.run("unfollow", ann_name)
    assert "you asked to follow it" in ben.run("follow", ann_name).stdout
    assert ben_name in ann.run("requests").stdout
    assert "asked to follow you" in ann.run("activity").stdout
    assert "follows you now" in ann.run("approve", ben_name).stdout
    assert "Nobody is waiting" in ann.run("requests").stdout
    assert "Private" not in ann.run("profile", "--no-private").stdout

    liked = ben.run("like", str(post["id"])).stdout
    assert f"Liked by {ben_name}" in liked
    page = json.loads(ben.run("feed", "--json").stdout)
    assert page["items"][0]["likeCount"] == 1 and page["items"][0]["viewerHasLiked"] is True
    assert "♥" in ben.run("feed").stdout.splitlines()[1]
    ben.run("comment", str(post["id"]), "Strong brew")
    own = json.loads(ann.run("feed", "--user", ann_name, "--json").stdout)["items"][0]
    assert own["commentCount"] == 1 and own["recentComments"][0]["text"] == "Strong brew"
    assert "no likes" in ben.run("unlike", str(post["id"])).stdout

    edited = ann.run("edit", str(post["id"]), "--caption", "Coffee, black").stdout
    assert 'now reads: "Coffee, black"' in edited
    assert "Coffee, black" in ben.run("feed").stdout
    assert json.loads(ben.run("feed", "--json").stdout)["items"][0]["editedAt"]
    refused = ben.run("edit", str(post["id"]), "--caption", "mine", ok=False)
    assert refused.returncode != 0 and "Only the author" in refused.stderr

    refused = ben.run("delete", str(post["id"]), ok=False)
    assert refused.returncode != 0 and "Only the author" in refused.stderr
    assert "Deleted post" in ann.run("delete", str(post["id"])).stdout
    assert ben_name in ann.run("followers").stdout
    assert ben_name in ben.run("followers", ann_name).stdout
    assert f"{ben_name} no longer follows you" in ann.run("remove-follower", ben_name).stdout
    assert "Nobody follows you yet." in ann.run("followers").stdout
    assert "You follow" in ben.run("follow", ann_name).stdout, "a removed follower may follow again"
    assert "no longer follow" in ben.run("unfollow", ann_name).stdout

    assert f"Logged out {ann_name}" in ann.run("logout").stdout
    after = ann.run("whoami", ok=False)
    assert after.returncode != 0 and "not logged in" in after.stderr and "makestagram login" in after.stderr


def test_errors_say_what_to_do_next(terminal, server):
    person = terminal("someone")
    username = name("someone")
    person.run("signup", username, "--password-stdin", stdin="correct horse\n")
    wrong = terminal("other").run("login", username, "--password-stdin", stdin="not the password\n", ok=False)
    assert wrong.returncode != 0 and "Check the username and password" in wrong.stderr
    taken = terminal("third").run("signup", username, "--password-stdin", stdin="correct horse\n", ok=False)
    assert "Choose another username" in taken.stderr
    bad = person.run("post", str(PHOTOS / "not-an-image.jpg"), ok=False)
    assert bad.returncode != 0 and "not a JPEG, PNG, WebP or HEIC" in bad.stderr
    missing = person.run("like", "999999999", ok=False)
    assert "no such post" in missing.stderr
    away = person.run("whoami", "--server", "http://127.0.0.1:9", ok=False)
    assert "not logged in to http://127.0.0.1:9" in away.stderr


def test_watch_prints_events_as_they_happen(terminal, server):
    watcher, actor = terminal("watcher"), terminal("actor")
    watcher_name, actor_name = name("watcher"), name("actor")
    watcher.run("signup", watcher_name, "--password-stdin", stdin="correct horse\n")
    actor.run("signup", actor_name, "--password-stdin", stdin="correct horse\n")
    post = json.loads(watcher.run("post", str(PHOTOS / "chelsea.jpg"), "--caption", "Cat", "--json").stdout)
    watcher.run("follow", actor_name)

    process = watcher.start("watch")
    try:
        lines, notes = lines_of(process.stdout), lines_of(process.stderr)
        while "Following" not in (note := notes.get(timeout=30)):
            assert "error" not in note
        actor.run("like", str(post["id"]))
        assert f"♥ {actor_name} liked post {post['id']} — 1 like" in lines.get(timeout=20)
        assert "🔔 1 unread action in your activity" in lines.get(timeout=20)
        actor.run("comment", str(post["id"]), "Nice cat")
        assert "Nice cat" in lines.get(timeout=20)
        assert "🔔 2 unread actions in your activity" in lines.get(timeout=20)
        actor.run("post", str(PHOTOS / "hubble.jpg"), "--caption", "Stars")
        announced = lines.get(timeout=20)
        assert "new post" in announced and actor_name in announced and "Stars" in announced
    finally:
        process.terminate()
        process.wait(timeout=10)



def test_activity_lists_what_others_did_and_marks_it_read(terminal):
    ann, ben = terminal("ann"), terminal("ben")
    ann_name, ben_name = name("ann"), name("ben")
    ann.run("signup", ann_name, "--password-stdin", stdin="correct horse\n")
    post = json.loads(ann.run("post", str(PHOTOS / "chelsea.jpg"), "--caption", "Hi", "--json").stdout)
    assert "Nothing yet" in ann.run("activity").stdout
    square = json.loads(ann.run("post", str(PHOTOS / "hubble.jpg"), "--crop", "square", "--json").stdout)
    assert square["image"]["width"] == square["image"]["height"] == 872
    ann.run("delete", str(square["id"]))

    ben.run("signup", ben_name, "--password-stdin", stdin="correct horse\n")
    ben.run("like", str(post["id"]))
    ben.run("comment", str(post["id"]), "Nice\nshot")
    ben.run("follow", ann_name)
    lines = ann.run("activity").stdout.splitlines()
    assert [line[0] for line in lines] == ["•", "•", "•"], "all three were unread"
    assert lines[0].endswith(f"{ben_name} started following you")
    assert lines[1].endswith(f'{ben_name} commented: "Nice shot" (post {post["id"]})')
    assert lines[2].endswith(f"{ben_name} liked your photo (post {post['id']})")
    assert not any(line.startswith("•") for line in ann.run("activity").stdout.splitlines()), "printed: now read"
    page = json.loads(ann.run("activity", "--json", "--limit", "1").stdout)
    assert page["items"][0]["kind"] == "follow" and page["nextCursor"]


def test_hiding_like_counts_from_the_command_line(terminal):
    ann, ben = terminal("ann"), terminal("ben")
    ann_name, ben_name = name("ann"), name("ben")
    ann.run("signup", ann_name, "--password-stdin", stdin="correct horse\n")
    square = json.loads(ann.run("post", str(PHOTOS / "hubble.jpg"), "--crop", "square", "--json").stdout)
    assert square["image"]["width"] == square["image"]["height"] == 872
    ann.run("delete", str(square["id"]))

    ben.run("signup", ben_name, "--password-stdin", stdin="correct horse\n")
    post = json.loads(ann.run("post", str(PHOTOS / "chelsea.jpg"), "--json").stdout)
    ben.run("like", str(post["id"]))
    assert "only you see 1 like" in ann.run("edit", str(post["id"]), "--hide-likes").stdout
    row = [line for line in ben.run("feed", "--user", ann_name).stdout.splitlines() if str(post["id"]) in line][0]
    assert " hidden " in row
    assert "likeCount" not in json.loads(ben.run("feed", "--user", ann_name, "--json").stdout)["items"][0]
    assert "again" in ann.run("edit", str(post["id"]), "--show-likes").stdout
    assert "--caption TEXT" in ann.run("edit", str(post["id"]), ok=False).stderr
    assert "New posts hide" in ann.run("profile", "--enable-hide-like-counts").stdout
    newer = json.loads(ann.run("post", str(PHOTOS / "hubble.jpg"), "--json").stdout)
    assert newer["likeCountHidden"] is True


def test_password_change_sessions_and_export_from_the_command_line(terminal, server, tmp_path):
    one, two = terminal("one"), terminal("two")
    user = name("pw")
    one.run("signup", user, "--password-stdin", stdin="correct horse\n")
    two.run("login", user, "--password-stdin", stdin="correct horse\n")
    sessions = json.loads(one.run("sessions", "--json").stdout)
    assert len(sessions) == 2 and sum(session["current"] for session in sessions) == 1
    assert "* " + next(s["id"] for s in sessions if s["current"]) in one.run("sessions").stdout

    wrong = one.run("password", "--password-stdin", stdin="not it at all\na much better secret\n", ok=False)
    assert wrong.returncode != 0 and "current password" in wrong.stderr.lower()
    changed = one.run("password", "--password-stdin", stdin="correct horse\na much better secret\n")
    assert "1 other session(s) logged out" in changed.stdout
    assert two.run("whoami", ok=False).returncode != 0, "the other session was logged out"
    two.run("login", user, "--password-stdin", stdin="a much better secret\n")
    other = next(s["id"] for s in json.loads(one.run("sessions", "--json").stdout) if not s["current"])
    assert f"Logged out session {other}" in one.run("sessions", "--end", other).stdout
    assert two.run("whoami", ok=False).returncode != 0

    one.run("post", str(PHOTOS / "chelsea.jpg"), "--caption", "Take me with you")
    archive = tmp_path / "mine.zip"
    assert "Wrote your data" in one.run("export", str(archive)).stdout
    with zipfile.ZipFile(archive) as opened:
        posts = json.loads(opened.read("posts.json"))
        assert [post["caption"] for post in posts] == ["Take me with you"]
        assert opened.read(posts[0]["photo"])[:2] == b"\xff\xd8"
    assert one.run("export", str(archive), ok=False).returncode != 0, "an existing file is not replaced"


def test_moderating_and_deleting_an_account_from_the_command_line(terminal, server, server_data):
    mod, troll, reporter, leaver = terminal("mod"), terminal("troll"), terminal("reporter"), terminal("leaver")
    mod_name, troll_name, reporter_name, leaver_name = name("mod"), name("troll"), name("rep"), name("leave")
    for who, user in [(mod, mod_name), (troll, troll_name), (reporter, reporter_name), (leaver, leaver_name)]:
        who.run("signup", user, "--password-stdin", stdin="correct horse\n")
    post = json.loads(troll.run("post", str(PHOTOS / "chelsea.jpg"), "--caption", "bad", "--json").stdout)
    token = requests.post(f"{server}/api/v1/sessions", json={"username": reporter_name, "password": "correct horse"},
                          timeout=30).json()["token"]
    requests.post(f"{server}/api/v1/posts/{post['id']}/reports", json={"reason": "it is spam"},
                  headers={"Authorization": f"Bearer {token}"}, timeout=30).raise_for_status()

    refused = mod.run("moderate", "reports", ok=False)
    assert refused.returncode != 0 and "moderators" in refused.stderr.lower()
    unknown = mod.run("admin", "grant", "nobody_here", "--data", server_data, ok=False)
    assert unknown.returncode != 0 and "no user named nobody_here" in unknown.stderr.lower()
    assert "is a moderator" in mod.run("admin", "grant", mod_name, "--data", server_data).stdout

    queue = mod.run("moderate", "reports").stdout
    assert f"post {post['id']} by {troll_name}" in queue and f"{reporter_name}: it is spam" in queue
    assert "Removed post" in mod.run("moderate", "remove", str(post["id"]), "--reason", "spam").stdout
    assert "No reports wait" in mod.run("moderate", "reports").stdout
    assert f"Suspended {troll_name}" in mod.run("moderate", "suspend", troll_name).stdout
    assert troll.run("whoami", ok=False).returncode != 0, "the suspended user is logged out"
    login = troll.run("login", troll_name, "--password-stdin", stdin="correct horse\n", ok=False)
    assert login.returncode != 0 and "suspended" in login.stderr.lower()
    mod.run("moderate", "unsuspend", troll_name)
    troll.run("login", troll_name, "--password-stdin", stdin="correct horse\n")
    log = json.loads(mod.run("moderate", "log", "--json").stdout)
    assert [entry["action"] for entry in log[:4]] == ["lift_suspension", "suspend", "remove_post", "grant_moderator"]

    # Whole servers: for everyone (moderators), and for oneself.
    assert "Suspended spam.example." in mod.run("moderate", "block-server", "Spam.Example", "--reason", "spam").stdout
    assert "Limited loud.example." in mod.run("moderate", "block-server", "loud.example", "--limit").stdout
    servers = mod.run("moderate", "servers").stdout
    assert "loud.example  limit" in servers and "spam.example  suspend" in servers and "— spam" in servers
    bad = mod.run("moderate", "block-server", "not a host", ok=False)
    assert bad.returncode != 0 and "host name" in bad.stderr
    mod.run("moderate", "unblock-server", "loud.example")
    listed = [b["domain"] for b in json.loads(mod.run("moderate", "servers", "--json").stdout)]
    assert "spam.example" in listed and "loud.example" not in listed, "the server is shared with other tests"
    assert "server loud.example" in mod.run("moderate", "log").stdout
    assert "Nothing has been sent to another server yet." in mod.run("moderate", "deliveries").stdout
    assert json.loads(mod.run("moderate", "deliveries", "--json").stdout) == []
    assert mod.run("moderate", "retry", "nowhere.example", ok=False).returncode != 0
    assert mod.run("moderate", "rotate-key", troll_name, ok=False).returncode != 0, "this server does not federate"
    assert "You block rude.example" in troll.run("block-server", "rude.example").stdout
    assert "rude.example" in troll.run("unblock-server").stdout
    troll.run("unblock-server", "rude.example")
    assert "You block no server." in troll.run("unblock-server").stdout

    careful = leaver.run("delete-account", "--password-stdin", stdin="correct horse\n", ok=False)
    assert careful.returncode != 0 and "--yes" in careful.stderr
    wrong = leaver.run("delete-account", "--yes", "--password-stdin", stdin="not my password\n", ok=False)
    assert wrong.returncode != 0
    assert f"Deleted {leaver_name}" in leaver.run("delete-account", "--yes", "--password-stdin",
                                                  stdin="correct horse\n").stdout
    assert leaver.run("whoami", ok=False).returncode != 0
    taken = terminal("impostor").run("signup", leaver_name, "--password-stdin", stdin="correct horse\n", ok=False)
    assert taken.returncode != 0 and "taken" in taken.stderr.lower()
