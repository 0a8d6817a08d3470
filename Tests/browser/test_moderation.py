"""The settings page's account deletion and the moderators' page, in a real browser: a deleted account's likes leave
a friend's open screen; a moderator made on the server works the reports queue and the suspended author's browser is
logged out with a message."""
import subprocess

import requests

from browser_support import PASSWORD
from makestagram_server import server_binary


def grant(data: str, username: str):
    granted = subprocess.run([server_binary(), "admin", "grant", username, "--data", data],
                             capture_output=True, text=True, timeout=60)
    assert granted.returncode == 0, granted.stderr


def test_deleting_your_account_takes_your_likes_off_a_friends_screen(browsers, sign_up):
    leaving, friend = sign_up("leaving"), sign_up("friend")
    post = friend.post_photo("chelsea.jpg", "Cat")
    leaving.api("PUT", f"/users/{friend.username}/follow")
    leaving.api("PUT", f"/posts/{post['id']}/like")
    friends, mine = browsers(), browsers(width=390, height=844)
    mine.allowed_errors = ("status of 422",)  # the wrong password, on purpose
    friends.log_in(friend)
    card = friends.card(post["id"])
    friends.wait_until(lambda: leaving.username in friends.text(".liked-by", card))

    mine.log_in(leaving)
    mine.open("/settings")
    mine.type("#delete-password", "not the password")
    mine.click("#delete-title ~ form button[type=submit]")
    # The password is checked before anything is asked.
    mine.wait_until(lambda: "not your password" in mine.text("#delete-title ~ form .form-error"))
    assert not mine.find_all("dialog[open]")
    assert mine.find("#delete-password").get_attribute("aria-invalid") == "true"
    mine.screenshot("settings-delete-account")
    mine.find("#delete-password").clear()
    mine.type("#delete-password", PASSWORD)
    mine.click("#delete-title ~ form button[type=submit]")
    mine.wait_for("dialog .dialog-actions button.danger")
    mine.click("dialog .dialog-actions button.danger")
    mine.wait_for("form[aria-label='Log in']")
    mine.wait_until(lambda: "Your account is deleted" in mine.driver.page_source)

    # The friend's open screen loses the like, live, and the count stays exact.
    friends.wait_until(lambda: leaving.username not in card.text,
                       message="the deleted account's like leaves the friend's screen")
    friends.wait_until(lambda: friend.api("GET", f"/posts/{post['id']}")["likeCount"] == 0)
    answer = requests.post(f"{friend.base}/api/v1/sessions",
                           json={"username": leaving.username, "password": PASSWORD}, timeout=10)
    assert answer.status_code == 401


def test_a_moderator_removes_a_reported_post_and_suspends_its_author(browsers, sign_up, server, server_data):
    moderator, troll, friend = sign_up("moderator"), sign_up("troll"), sign_up("friend")
    reported = troll.post_photo("chelsea.jpg", "Reported three times")
    second = troll.post_photo("rocket.jpg", "Reported once")
    friend.api("PUT", f"/users/{troll.username}/follow")
    reporters = [sign_up(f"reporter{index}") for index in range(3)]
    for index, reporter in enumerate(reporters):
        reporter.api("POST", f"/posts/{reported['id']}/reports", json={"reason": f"Spam, says {index}"})
    reporters[0].api("POST", f"/posts/{second['id']}/reports", json={"reason": "More spam"})

    trolls = browsers(width=390, height=844)
    trolls.log_in(troll)
    friends = browsers()
    friends.log_in(friend)
    friends.card(second["id"])

    grant(server_data, moderator.username)
    mod = browsers()
    mod.log_in(moderator)
    mod.open("/settings")
    mod.wait_for("a[href='/moderation']")
    mod.click("a[href='/moderation']")
    mod.wait_for(".report-item")
    first = mod.find_all(".report-item")[0]
    assert "3 reports" in first.text and "Reported three times" in first.text
    assert all(f"Spam, says {index}" in first.text for index in range(3))
    assert mod.accessibility_violations() == []
    mod.screenshot("moderation-queue")

    mod.click("button.danger", within=first)
    mod.type("#moderation-reason", "Spam")
    mod.click("dialog form button[type=submit]")
    mod.wait_until(lambda: len(mod.find_all(".report-item")) == 1)
    assert requests.get(f"{server}/api/v1/posts/{reported['id']}", headers=friend.headers, timeout=10).status_code == 404

    mod.click(f"button[aria-label='Suspend {troll.username}']")
    mod.click("dialog form button[type=submit]")
    mod.wait_until(lambda: "No reports wait" in mod.text("main"))
    # The author's open browser is logged out, and told why; the friend's feed loses the author's posts, live.
    trolls.wait_for("form[aria-label='Log in']")
    trolls.wait_until(lambda: "suspended" in trolls.driver.page_source)
    friends.wait_until(lambda: not friends.find_all(f'article.card[data-post-id="{second["id"]}"]'),
                       message="the suspended author's post leaves the friend's feed")
    trolls.type("#username", troll.username)
    trolls.type("#password", PASSWORD)
    trolls.click("form button[type=submit]")
    trolls.wait_until(lambda: "suspended by the moderators" in trolls.text(".form-error"))
    trolls.allowed_errors = ("status of 403",)

    mod.wait_until(lambda: len(mod.find_all(".log-entry")) >= 3)
    log = mod.text(".moderation-log")
    assert f"suspended @{troll.username}" in log and f"removed post {reported['id']} by @{troll.username}" in log
    assert "“Spam”" in log

    mod.type("#lift-username", troll.username)
    mod.click("form[aria-label='Lift a suspension'] button[type=submit]")
    mod.click("dialog form button[type=submit]")
    mod.wait_until(lambda: "can log in again" in mod.text("#toasts"))
    answer = requests.post(f"{server}/api/v1/sessions", json={"username": troll.username, "password": PASSWORD},
                           timeout=10)
    assert answer.status_code == 200


def test_servers_are_blocked_by_a_moderator_for_everyone_and_by_a_person_for_themselves(browsers, sign_up,
                                                                                         server_data):
    moderator, person = sign_up("servermod"), sign_up("serverperson")
    grant(server_data, moderator.username)
    mod = browsers()
    mod.log_in(moderator)
    mod.open("/moderation")
    mod.wait_until(lambda: "Nothing has been sent to another server yet." in mod.text("main"))
    mod.type("#server-domain", "Spam.Browser.Example.")
    mod.click("form[aria-label='Block a server'] button[type=submit]")
    mod.type("#moderation-reason", "Spam waves")
    mod.click("dialog form button[type=submit]")
    mod.wait_until(lambda: "spam.browser.example" in mod.text(".server-blocks"))
    assert "Suspended" in mod.text(".server-blocks") and "“Spam waves”" in mod.text(".server-blocks")
    mod.type("#server-domain", "loud.browser.example")
    mod.find("#server-severity").send_keys("L")  # Limit
    mod.click("form[aria-label='Block a server'] button[type=submit]")
    mod.click("dialog form button[type=submit]")
    mod.wait_until(lambda: "loud.browser.example" in mod.text(".server-blocks"))
    newest = moderator.api("GET", "/moderation/domain-blocks")["blocks"][0]
    assert (newest["domain"], newest["severity"]) == ("loud.browser.example", "limit")
    mod.wait_until(lambda: "limited the server loud.browser.example" in mod.text(".moderation-log"))
    assert "suspended the server spam.browser.example" in mod.text(".moderation-log")
    assert mod.accessibility_violations() == []
    mod.screenshot("moderation-servers")
    mod.click("button[aria-label='Lift the block of spam.browser.example']")
    mod.click("dialog form button[type=submit]")
    mod.wait_until(lambda: "spam.browser.example" not in mod.text(".server-blocks"))
    listed = [b["domain"] for b in moderator.api("GET", "/moderation/domain-blocks")["blocks"]]
    assert "loud.browser.example" in listed and "spam.browser.example" not in listed

    mine = browsers(width=390, height=844)
    mine.log_in(person)
    mine.open("/settings")
    mine.wait_until(lambda: "You block no server" in mine.text("main"))
    mine.type("#block-server", "not a server")
    mine.click("form[aria-label='Block a server'] button[type=submit]")
    mine.click("dialog .dialog-actions button.danger")
    mine.wait_until(lambda: "host name" in mine.text("#servers-title ~ form .form-error"))
    mine.allowed_errors = ("status of 422",)
    mine.find("#block-server").clear()
    mine.type("#block-server", "rude.example")
    mine.click("form[aria-label='Block a server'] button[type=submit]")
    mine.click("dialog .dialog-actions button.danger")
    mine.wait_until(lambda: "rude.example" in mine.text(".server-list"))
    assert person.api("GET", "/me/domain-blocks") == {"domains": ["rude.example"]}
    mine.click("button[aria-label='Unblock rude.example']")
    mine.wait_until(lambda: "You block no server" in mine.text("main"))
    assert person.api("GET", "/me/domain-blocks") == {"domains": []}


def test_an_app_you_authorised_is_listed_in_settings_and_revoked_there(browsers, sign_up, server):
    person = sign_up("appuser")
    registered = requests.post(f"{server}/api/v1/apps", timeout=30, data={
        "client_name": "Photo Frame", "redirect_uris": "urn:ietf:wg:oauth:2.0:oob", "scopes": "read"}).json()
    page = requests.get(f"{server}/oauth/authorize", timeout=30, params={
        "client_id": registered["client_id"], "redirect_uri": "urn:ietf:wg:oauth:2.0:oob", "response_type": "code",
        "scope": "read"})
    assert "Photo Frame" in page.text
    approved = requests.post(f"{server}/oauth/authorize", timeout=30, data={
        "client_id": registered["client_id"], "redirect_uri": "urn:ietf:wg:oauth:2.0:oob", "response_type": "code",
        "scope": "read", "username": person.username, "password": PASSWORD, "decision": "approve"})
    code = approved.text.split('id="code">')[1].split("<")[0]
    token = requests.post(f"{server}/oauth/token", timeout=30, data={
        "grant_type": "authorization_code", "client_id": registered["client_id"],
        "client_secret": registered["client_secret"], "code": code,
        "redirect_uri": "urn:ietf:wg:oauth:2.0:oob"}).json()["access_token"]
    app_headers = {"Authorization": f"Bearer {token}"}
    assert requests.get(f"{server}/api/v1/timeline", headers=app_headers, timeout=10).status_code == 200

    browser = browsers()
    # The consent page an app sends people to: the app's name, what it may do, and the sign-in form.
    browser.open(page.url.replace(server, ""))
    browser.wait_for("form[aria-label='Authorize Photo Frame']")
    assert "See your posts" in browser.text("main")
    assert browser.accessibility_violations() == []
    browser.screenshot("oauth-consent")
    browser.log_in(person)
    browser.open("/settings")
    browser.wait_until(lambda: "Photo Frame" in browser.text("#apps-title ~ .session-list"))
    assert "may read" in browser.text("#apps-title ~ .session-list")
    browser.click("button[aria-label='Revoke Photo Frame']")
    browser.click("dialog .dialog-actions button:last-child")
    browser.wait_until(lambda: "No apps can use your account" in browser.text("main"))
    assert requests.get(f"{server}/api/v1/timeline", headers=app_headers, timeout=10).status_code == 401
