"""The web client in a real browser: what a person does, and what they see."""
import secrets
import time

import requests
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys

from browser_support import PASSWORD, PHOTOS

# Failed requests the browser itself reports on the console when a test provokes them on purpose.
REFUSED_UPLOAD = ("status of 415", "status of 422", "status of 413")


def test_sign_up_upload_and_see_the_post(browsers):
    browser = browsers()
    browser.open("/")
    browser.wait_for("form[aria-label='Log in']")
    browser.screenshot("login")
    browser.click("a[href='/signup']")
    username = "newcomer" + str(abs(hash(browser)) % 100000)
    browser.type("#username", username)
    browser.type("#displayName", "New Comer")
    browser.type("#password", PASSWORD)
    browser.click("form button[type=submit]")
    browser.wait_for(".empty h1")
    assert "Your feed is empty" in browser.text(".empty h1")

    browser.click("a.nav-item[href='/new']")
    browser.find("#photo-input").send_keys(str(PHOTOS / "phone-gps-rotated.jpg"))
    browser.wait_for(".preview-image")
    browser.type("#caption", "Hello from the phone 📸")
    browser.screenshot("upload")
    browser.click("button[type=submit]")

    card = browser.wait_for("article.card")
    assert browser.driver.current_url.endswith("/")
    assert "Hello from the phone 📸" in browser.text(".caption", card)
    image = browser.find("img.photo", card)
    browser.wait_until(lambda: browser.driver.execute_script("return arguments[0].naturalWidth", image) > 0)
    width, height = browser.driver.execute_script("return [arguments[0].naturalWidth, arguments[0].naturalHeight]", image)
    assert height > width, "the rotated phone photo is shown upright (portrait)"
    assert browser.text(".liked-by", card) == "Be the first to like this"
    browser.screenshot("feed-after-upload")


def test_session_survives_reload_and_errors_are_explained(browsers, sign_up):
    person = sign_up("returning")
    browser = browsers()
    browser.allowed_errors = ("status of 401", "status of 409")
    browser.open("/login")
    browser.type("#username", person.username)
    browser.type("#password", "wrong password")
    browser.click("form button[type=submit]")
    browser.wait_until(lambda: "Wrong username or password" in browser.text(".form-error"))

    browser.open("/signup")
    browser.type("#username", person.username)
    browser.type("#displayName", "Someone Else")
    browser.type("#password", PASSWORD)
    browser.click("form button[type=submit]")
    browser.wait_until(lambda: "That username is taken" in browser.text(".form-error"))

    browser.log_in(person)
    browser.driver.refresh()
    browser.wait_for(".feed-header")
    token = browser.driver.execute_script("return localStorage.getItem('makestagram.token')")
    browser.click(f"a.nav-item[href='/u/{person.username}']")
    browser.wait_for(".profile-name")
    browser.click(".profile-actions .log-out")
    browser.wait_for("form[aria-label='Log in']")
    browser.driver.refresh()
    browser.wait_for("form[aria-label='Log in']")
    me = requests.get(f"{person.base}/api/v1/me", headers={"Authorization": f"Bearer {token}"}, timeout=10)
    assert me.status_code == 401, "logging out ended the browser's session on the server"


def test_a_like_in_one_browser_changes_the_count_in_another_live(browsers, sign_up):
    alice, bob = sign_up("alice"), sign_up("bob")
    post = alice.post_photo("chelsea.jpg", "Chelsea at the park")
    bob.api("PUT", f"/users/{alice.username}/follow")
    alice.api("PUT", f"/users/{bob.username}/follow")

    alices = browsers()
    alices.log_in(alice)
    card = alices.card(post["id"])
    assert alices.text(".liked-by", card) == "Be the first to like this"
    bobs = browsers()
    bobs.log_in(bob)
    bobs.click(f'article[data-post-id="{post["id"]}"] .like-button')
    assert bobs.find(f'article[data-post-id="{post["id"]}"] .like-button').get_attribute("aria-pressed") == "true"

    alices.wait_until(lambda: alices.text(".liked-by", card) == f"Liked by {bob.username}",
                      message="the like reaches alice live")
    assert not alices.find_all(".like-count", card), "one line says it: no count beside it"
    assert alices.find(".like-button", card).get_attribute("aria-pressed") == "false"

    # A comment typed by bob appears under alice's card.
    bobs.type(f'article[data-post-id="{post["id"]}"] .comment-input', "What a good cat")
    bobs.find(f'article[data-post-id="{post["id"]}"] .comment-input').send_keys(Keys.ENTER)
    alices.wait_until(lambda: "What a good cat" in alices.text(".comments", card), message="the comment arrives live")
    assert not alices.find_all(".comments .comment-meta", card), "a preview is the text alone: time and Delete are on the post's page"

    # Bob's new post is offered to alice by the "new posts" pill.
    newer = bob.post_photo("hubble.jpg", "Deep field")
    pill = alices.wait_for(".new-posts-pill")
    assert "1 new post" in pill.text
    alices.screenshot("feed-new-posts-pill")
    pill.click()
    alices.card(newer["id"])
    assert alices.find_all("article.card")[0].get_attribute("data-post-id") == str(newer["id"])


def test_an_edited_caption_changes_in_the_other_browser_live(browsers, sign_up):
    alice, bob = sign_up("alice"), sign_up("bob")
    post = alice.post_photo("rocket.jpg", "Launch day")
    bob.api("PUT", f"/users/{alice.username}/follow")
    selector = f'article[data-post-id="{post["id"]}"]'

    bobs = browsers()
    bobs.log_in(bob)
    bobs.card(post["id"])
    assert bobs.text(f"{selector} .caption-text") == "Launch day"
    assert not bobs.find_all(f"{selector} .edited")
    # Only the author is offered the edit.
    bobs.click(f"{selector} .more")
    assert "Edit caption" not in bobs.text("dialog .menu")
    bobs.click("dialog .dialog-header button")

    alices = browsers()
    alices.log_in(alice)
    alices.card(post["id"])
    alices.click(f"{selector} .more")
    edit = [item for item in alices.find_all("dialog .menu-item") if item.text == "Edit caption"]
    assert len(edit) == 1
    edit[0].click()
    field = alices.wait_for("#edit-caption")
    assert field.get_attribute("value") == "Launch day"
    field.clear()
    field.send_keys("Launch day, T+10 s")
    alices.screenshot("edit-caption")
    alices.click('dialog button[type="submit"]')
    alices.wait_until(lambda: alices.text(f"{selector} .caption-text") == "Launch day, T+10 s")

    bobs.wait_until(
        lambda: bobs.text(f"{selector} .caption-text") == "Launch day, T+10 s", message="the edit reaches bob live"
    )
    assert "edited" in bobs.text(f"{selector} .edited")


def test_alt_text_written_when_sharing_and_changed_later_reaches_the_other_browser(browsers, sign_up):
    alice, bob = sign_up("alice"), sign_up("bob")
    bob.api("PUT", f"/users/{alice.username}/follow")
    alices = browsers()
    alices.log_in(alice)
    alices.click("a.nav-item[href='/new']")
    alices.find("#photo-input").send_keys(str(PHOTOS / "rocket.jpg"))
    alices.wait_for(".preview-image")
    alices.type("#alt-text", "A white rocket on its pad at dawn")
    alices.type("#caption", "Launch day")
    alices.click("button[type=submit]")
    card = alices.wait_for("article.card")
    post_id = int(card.get_attribute("data-post-id"))
    selector = f'article[data-post-id="{post_id}"]'
    assert alices.find("img.photo", card).get_attribute("alt") == "A white rocket on its pad at dawn"

    # Another post without one says so, rather than repeating its caption.
    other = alice.post_photo("chelsea.jpg", "Chelsea at the park")
    bobs = browsers()
    bobs.log_in(bob)
    bobs.card(other["id"])
    assert bobs.find(f'article[data-post-id="{other["id"]}"] img.photo').get_attribute("alt") == \
        f"Photo by {alice.username}, no description"
    bobs.card(post_id)
    assert bobs.find(f"{selector} img.photo").get_attribute("alt") == "A white rocket on its pad at dawn"
    bobs.click(f"{selector} .more")
    assert "Edit alt text" not in bobs.text("dialog .menu"), "only the author is offered it"
    bobs.click("dialog .dialog-header button")

    alices.click(f"{selector} .more")
    [edit] = [item for item in alices.find_all("dialog .menu-item") if item.text == "Edit alt text"]
    edit.click()
    field = alices.wait_for("#edit-alt-text")
    assert field.get_attribute("value") == "A white rocket on its pad at dawn"
    field.clear()
    field.send_keys("A white rocket lifting off in smoke")
    alices.click('dialog button[type="submit"]')
    alices.wait_until(
        lambda: alices.find(f"{selector} img.photo").get_attribute("alt") == "A white rocket lifting off in smoke")
    bobs.wait_until(
        lambda: bobs.find(f"{selector} img.photo").get_attribute("alt") == "A white rocket lifting off in smoke",
        message="the new alt text reaches bob live")


def test_a_new_name_bio_and_avatar_show_on_old_posts_without_a_reload(browsers, sign_up):
    alice, bob = sign_up("alice"), sign_up("bob")
    post = alice.post_photo("chelsea.jpg", "Chelsea")
    alice.api("POST", f"/posts/{post['id']}/comments", json={"text": "my cat"})
    bob.api("PUT", f"/users/{alice.username}/follow")
    selector = f'article[data-post-id="{post["id"]}"]'

    bobs = browsers()
    bobs.log_in(bob)
    bobs.card(post["id"])
    assert not bobs.find_all(f"{selector} .card-header img.avatar"), "initials before"

    alices = browsers()
    alices.log_in(alice)
    alices.click(".nav-item[href^='/u/']")
    alices.click(".edit-profile")
    alices.type("#profile-name", "Alice Archer")
    alices.type("#profile-bio", "Cats, mostly")
    alices.find("#avatar-file").send_keys(str(PHOTOS / "phone-gps-rotated.jpg"))
    alices.wait_for("dialog .avatar-preview img.avatar")
    alices.screenshot("edit-profile")
    alices.click('dialog button[type="submit"]')
    alices.wait_until(lambda: alices.text(".profile-display-name") == "Alice Archer")
    assert alices.text(".profile-bio") == "Cats, mostly"
    assert alices.find(".profile-avatar img.avatar").get_attribute("src").endswith(".jpg")
    assert alices.find(".nav-item[href^='/u/'] img.avatar")
    alices.screenshot("profile-with-avatar")

    # Bob's open feed shows the new avatar on the old post without a reload.
    bobs.wait_until(
        lambda: bobs.find_all(f"{selector} .card-header img.avatar"), message="the new avatar reaches bob live"
    )
    bobs.driver.refresh()
    bobs.card(post["id"])
    assert bobs.find(f"{selector} .card-header img.avatar")

    # Removing the photo goes back to initials.
    alices.click(".edit-profile")
    [remove] = [button for button in alices.find_all("dialog .avatar-editor button") if button.text == "Remove photo"]
    remove.click()
    alices.wait_until(lambda: not alices.find_all("dialog .avatar-preview img.avatar"))
    bobs.wait_until(lambda: not bobs.find_all(f"{selector} .card-header img.avatar"), message="initials again")

    # A profile page open elsewhere follows a new bio without a reload.
    bobs.open(f"/u/{alice.username}")
    bobs.wait_until(lambda: bobs.text(".profile-bio") == "Cats, mostly")
    alice.api("PATCH", "/me", json={"bio": "Cats and coffee"})
    bobs.wait_until(lambda: bobs.text(".profile-bio") == "Cats and coffee", message="the new bio reaches bob live")


def test_infinite_scroll_loads_older_pages(browsers, sign_up):
    person = sign_up("prolific")
    ids = [person.post_photo("rocket.jpg", f"Launch {number}")["id"] for number in range(25)]
    browser = browsers()
    browser.log_in(person)
    browser.card(ids[-1])
    browser.wait_until(lambda: len(browser.find_all("article.card")) >= 20)
    assert len(browser.find_all("article.card")) == 20
    browser.driver.execute_script("window.scrollTo(0, document.body.scrollHeight)")
    browser.wait_until(lambda: len(browser.find_all("article.card")) == 25, message="the second page loads")
    browser.wait_for(".end")
    shown = [int(card.get_attribute("data-post-id")) for card in browser.find_all("article.card")]
    assert shown == sorted(ids, reverse=True)


def test_deleting_a_post_after_confirming(browsers, sign_up):
    person = sign_up("tidy")
    keep = person.post_photo("astronaut.jpg", "Keep me")
    doomed = person.post_photo("chelsea.jpg", "Delete me")
    browser = browsers()
    browser.log_in(person)
    card = browser.card(doomed["id"])
    browser.click(".more", card)
    browser.click("dialog .danger-text")
    browser.wait_for("dialog .button.danger")
    browser.screenshot("delete-confirmation")
    browser.click("dialog .button.danger")
    browser.wait_until(lambda: not browser.find_all(f'article[data-post-id="{doomed["id"]}"]'))
    browser.card(keep["id"])
    gone = requests.get(f"{person.base}/api/v1/posts/{doomed['id']}", headers=person.headers, timeout=10)
    assert gone.status_code == 404


def test_a_bad_upload_shows_a_clear_error(browsers, sign_up, tmp_path):
    person = sign_up("careless")
    browser = browsers()
    browser.allowed_errors = REFUSED_UPLOAD
    browser.log_in(person)
    browser.open("/new")
    # Text named .jpg: read by its first bytes as the server would, and refused at once, before any upload.
    browser.wait_present("#photo-input").send_keys(str(PHOTOS / "not-an-image.jpg"))
    browser.wait_until(lambda: "isn't a photo" in browser.text("#upload-error"))
    assert browser.find("button[type=submit]").get_attribute("disabled") is not None, "a refused file is let go"
    assert not browser.find_all(".preview-fallback"), "no word of a HEIC conversion for a file that is no photo"
    browser.screenshot("upload-error")

    browser.find("#photo-input").send_keys(str(PHOTOS / "truncated.jpg"))
    browser.click("button[type=submit]")
    browser.wait_until(lambda: "broken or incomplete" in browser.text("#upload-error"))

    # Over the server's limit (20 MiB): refused before a byte is sent.
    huge = tmp_path / "huge.jpg"
    huge.write_bytes((PHOTOS / "hubble.jpg").read_bytes() + bytes(21 * 1024 * 1024))
    browser.find("#photo-input").send_keys(str(huge))
    browser.wait_until(lambda: "too big to share" in browser.text("#upload-error"))
    assert "up to 20 MB" in browser.text("#upload-error")
    assert person.api("GET", f"/users/{person.username}")["postCount"] == 0


def test_double_click_likes_and_a_failed_like_rolls_back(browsers, sign_up):
    author, fan = sign_up("author"), sign_up("fan")
    post = author.post_photo("astronaut.jpg", "Spacewalk")
    fan.api("PUT", f"/users/{author.username}/follow")
    browser = browsers()
    browser.allowed_errors = ("net::ERR_INTERNET_DISCONNECTED", "WebSocket")
    browser.log_in(fan)
    card = browser.card(post["id"])
    ActionChains(browser.driver).double_click(browser.find(".photo-frame", card)).perform()
    browser.wait_until(lambda: browser.text(".liked-by", card) == "Liked by you")
    browser.wait_until(lambda: author.api("GET", f"/posts/{post['id']}")["likeCount"] == 1)

    # Offline, unliking fails: the heart turns red again and the reason is shown.
    browser.driver.execute_cdp_cmd("Network.enable", {})
    browser.driver.execute_cdp_cmd(
        "Network.emulateNetworkConditions",
        {"offline": True, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1},
    )
    browser.click(".like-button", card)
    browser.wait_until(lambda: "Couldn't unlike the post" in browser.text("#alerts"))
    assert browser.find(".like-button", card).get_attribute("aria-pressed") == "true"
    assert browser.text(".liked-by", card) == "Liked by you"
    browser.screenshot("like-rolled-back")

    # Back online, the stream reconnects and catches up with a like made meanwhile.
    other = sign_up("other")
    other.api("PUT", f"/posts/{post['id']}/like")
    browser.driver.execute_cdp_cmd(
        "Network.emulateNetworkConditions",
        {"offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1},
    )
    browser.wait_until(lambda: browser.text(".liked-by", card) == f"Liked by you and {other.username}", timeout=45,
                       message="the reconnected stream's snapshot brings the missed like")


def test_profile_post_page_and_keyboard(browsers, sign_up):
    author, reader = sign_up("painter"), sign_up("reader")
    post = author.post_photo("hubble.jpg", "Galaxies")
    author.api("POST", f"/posts/{post['id']}/comments", json={"text": "First light"})
    browser = browsers()
    browser.log_in(reader)
    browser.open(f"/u/{author.username}")
    browser.wait_for(".grid .tile")
    follow = browser.find(".profile-actions .button")
    assert follow.text == "Follow"
    follow.click()
    browser.wait_until(lambda: browser.find(".profile-actions .button").text == "Following")
    assert "1 follower" in browser.text(".counts")
    browser.screenshot("profile")

    browser.click(".grid .tile")
    browser.wait_for(".all-comments .comment")
    assert "First light" in browser.text(".all-comments")
    browser.type(".comment-input", "Beautiful")
    browser.find(".comment-input").send_keys(Keys.ENTER)
    browser.wait_until(lambda: "Beautiful" in browser.text(".all-comments"))
    assert "Delete" in browser.text(".all-comments .comment:last-child .comment-meta"), "the post page keeps them"
    browser.screenshot("post-page")

    # The heart is a real button: Tab reaches it and Space presses it.
    heart = browser.find(".like-button")
    browser.driver.execute_script("arguments[0].focus()", heart)
    heart.send_keys(Keys.SPACE)
    browser.wait_until(lambda: heart.get_attribute("aria-pressed") == "true")
    assert heart.get_attribute("aria-label") == "Like"
    # No alt text written: the photo says so, rather than repeating the caption read beside it.
    assert browser.find("img.photo").get_attribute("alt") == f"Photo by {author.username}, no description"

    # Report it.
    browser.click(".more")
    browser.click("dialog .danger-text")
    browser.type("dialog textarea", "Testing reports")
    browser.click("dialog button[type=submit]")
    browser.wait_until(lambda: "moderators" in browser.text("#toasts"))

    # On a wide screen the comments sit beside the photo, and Close goes back to the profile it was opened from.
    photo = browser.find(".card-detail .photo-frame").rect
    comments = browser.find(".card-detail .card-body").rect
    assert comments["x"] >= photo["x"] + photo["width"] - 1 and comments["y"] < photo["y"] + photo["height"]
    browser.click(".post-close")
    browser.wait_for(".profile-header")
    assert browser.driver.current_url.endswith(f"/u/{author.username}")


def test_phone_width_layout_and_search(browsers, sign_up):
    person, friend = sign_up("phone"), sign_up("friendly")
    friend.post_photo("chelsea.webp", "Webp cat")
    browser = browsers(width=390, height=844)
    browser.log_in(person)
    browser.click("a.nav-item[href='/search']")
    browser.type("#search", friend.username[:8])
    browser.wait_for(".search-results .user-row")
    assert friend.username in browser.text(".search-results")
    browser.screenshot("search-phone")
    browser.click(".search-results .user-row")
    browser.wait_for(".profile-name")
    browser.click(".profile-actions .button")
    browser.wait_until(lambda: browser.find(".profile-actions .button").text == "Following")
    browser.click("a.nav-item[href='/']")
    browser.wait_for("article.card")
    width = browser.driver.execute_script("return document.documentElement.scrollWidth")
    assert width <= 390, "nothing overflows a phone's width"
    browser.screenshot("feed-phone")


def test_hiding_a_like_count_changes_the_other_browser_live(browsers, sign_up):
    alice, bob, carol = sign_up("alice"), sign_up("bob"), sign_up("carol")
    post = alice.post_photo("rocket.jpg", "Launch day")
    bob.api("PUT", f"/users/{alice.username}/follow")
    carol.api("PUT", f"/posts/{post['id']}/like")
    selector = f'article[data-post-id="{post["id"]}"]'

    bobs = browsers()
    bobs.log_in(bob)
    bobs.card(post["id"])
    assert bobs.text(f"{selector} .liked-by") == f"Liked by {carol.username}"
    bobs.click(f"{selector} .more")
    assert "Hide like count" not in bobs.text("dialog .menu"), "only the author is offered the switch"
    bobs.click("dialog .dialog-header button")

    alices = browsers()
    alices.log_in(alice)
    alices.card(post["id"])
    alices.click(f"{selector} .more")
    alices.wait_until(lambda: any(item.text == "Hide like count" for item in alices.find_all("dialog .menu-item")))
    [hide] = [item for item in alices.find_all("dialog .menu-item") if item.text == "Hide like count"]
    hide.click()
    alices.wait_until(lambda: alices.text(f"{selector} .liked-by") == f"Liked by {carol.username} · only you see the number")

    bobs.wait_until(
        lambda: bobs.text(f"{selector} .liked-by") == f"Liked by {carol.username} and others",
        message="the count leaves bob's card live",
    )
    bobs.screenshot("like-count-hidden")
    bobs.click(f"{selector} .like-button")
    bobs.wait_until(lambda: bobs.text(f"{selector} .liked-by") == "Liked by you and others",
                    message="liking does not reveal the count")
    alices.wait_until(lambda: alices.text(f"{selector} .liked-by") ==
                      f"Liked by {bob.username} and {carol.username} · only you see the number")

    alices.click(f"{selector} .more")
    alices.wait_until(lambda: any(item.text == "Show like count" for item in alices.find_all("dialog .menu-item")))
    [show] = [item for item in alices.find_all("dialog .menu-item") if item.text == "Show like count"]
    show.click()
    bobs.wait_until(lambda: bobs.text(f"{selector} .liked-by") == f"Liked by you and {carol.username}",
                    message="shown again, live")

    # The profile's default: new posts hide their count from the start.
    alices.open(f"/u/{alice.username}")
    alices.wait_for(".edit-profile").click()
    alices.click("#profile-hide-like-counts")
    alices.click('dialog button[type="submit"]')
    alices.wait_until(lambda: not alices.find_all("dialog[open]"), message="the profile is saved")
    newer = alice.post_photo("hubble.jpg", "Deep field")
    assert newer["likeCountHidden"] is True
    bobs.wait_for(".new-posts-pill").click()
    bobs.card(newer["id"])
    assert bobs.text(f'article[data-post-id="{newer["id"]}"] .liked-by') == "Be the first to like this"


def test_cancel_stops_an_upload_half_way_and_nothing_is_published(browsers, sign_up):
    alice = sign_up("alice")
    browser = browsers()
    browser.log_in(alice)
    browser.open("/new")
    browser.wait_present("#photo-input").send_keys(str(PHOTOS / "phone-gps-rotated.jpg"))
    browser.wait_for(".preview-image")
    # A slow connection: about 40 KB a second up, so the 0.9 MB photo takes some twenty seconds.
    browser.driver.execute_cdp_cmd("Network.enable", {})
    browser.driver.execute_cdp_cmd(
        "Network.emulateNetworkConditions",
        {"offline": False, "latency": 20, "downloadThroughput": 1_000_000, "uploadThroughput": 40_000},
    )
    browser.click("button[type=submit]")
    browser.wait_until(lambda: "Uploading…" in browser.text(".upload-footer") and
                       0 < int(browser.find("progress.upload-progress").get_attribute("value")) < 60,
                       message="the upload is on its way")
    browser.click(".form-actions button.secondary")
    browser.wait_until(lambda: "nothing was shared" in browser.text(".upload-footer"))
    browser.driver.execute_cdp_cmd(
        "Network.emulateNetworkConditions",
        {"offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1},
    )
    browser.screenshot("upload-cancelled")
    time.sleep(1)
    assert alice.api("GET", f"/users/{alice.username}/posts")["items"] == [], "nothing was published"
    # The same photo can be shared after all.
    browser.click("button[type=submit]")
    browser.wait_for(".feed-header")
    assert len(alice.api("GET", f"/users/{alice.username}/posts")["items"]) == 1


def test_forms_focus_their_first_field_speak_for_themselves_and_log_out_says_it_once(browsers, sign_up):
    taken = sign_up("taken")
    browser = browsers()
    browser.allowed_errors = ("status of 409",)  # the taken username, refused on purpose
    active = lambda: browser.driver.switch_to.active_element.get_attribute("id")
    browser.open("/login")
    browser.wait_for("#username")
    assert active() == "username"

    browser.open("/signup")
    browser.wait_for("#username")
    assert active() == "username"
    browser.type("#username", "ab")
    browser.type("#displayName", "Ann")
    browser.type("#password", "correct horse")
    browser.click("form button[type=submit]")
    assert browser.text(".form-error") == "Username: 3–30 lower-case letters, digits, _ or ."
    assert active() == "username" and browser.find("#username").get_attribute("aria-invalid") == "true"
    browser.type("#username", taken.username)
    browser.click("form button[type=submit]")
    browser.wait_until(lambda: browser.text(".form-error") == "That username is taken. Try another one.")
    browser.find("#username").send_keys("x")
    assert browser.text(".form-error") == "", "the message goes as soon as the name changes"

    browser.log_in(taken)
    browser.open(f"/u/{taken.username}")
    browser.wait_for(".log-out").click()
    browser.wait_for("#username")
    time.sleep(1)  # the stream's own close, if it were still listened to, would add its message by now
    messages = [toast.text for toast in browser.find_all("#toasts .toast")]
    assert messages == ["You're logged out."]


def test_captions_link_people_and_pages_and_long_ones_fold(browsers, sign_up):
    alice, bob = sign_up("alice"), sign_up("bob")
    long_tail = " ".join(["and the light kept changing over the water"] * 4)
    caption = (f"Sunset with @{bob.username}. Trip notes at https://example.org/trip?day=2 #golden_hour "
               f"<b>not bold</b> {long_tail}")
    post = alice.post_photo("chelsea.jpg", caption)
    alice.api("POST", f"/posts/{post['id']}/comments", json={"text": f"@{alice.username} thanks!"})
    browser = browsers()
    browser.log_in(alice)
    card = browser.card(post["id"])
    mention = browser.find(".caption .mention", card)
    assert mention.text == f"@{bob.username}" and mention.get_attribute("href").endswith(f"/u/{bob.username}")
    link = browser.find(".caption .text-link", card)
    assert link.text == "https://example.org/trip?day=2"
    assert set(link.get_attribute("rel").split()) == {"nofollow", "noopener", "noreferrer"}
    assert browser.text(".caption .hashtag", card) == "#golden_hour"
    assert "<b>not bold</b>" in browser.text(".caption", card), "markup people type stays text"
    assert not browser.find_all(".caption b", card)
    assert long_tail not in browser.text(".caption", card), "the feed folds a long caption"
    browser.click(".caption-more", card)
    browser.wait_until(lambda: long_tail in browser.text(".caption", card))
    assert browser.find(".comments .mention", card).get_attribute("href").endswith(f"/u/{alice.username}")

    # A hashtag leads to its page: every post carrying it, newest first.
    other = bob.post_photo("rocket.jpg", "Launch at #Golden_Hour too")
    browser.click(".caption .hashtag", card)
    browser.wait_for(".tag-page .tile")
    assert browser.text(".tag-title") == "#golden_hour"
    browser.wait_until(lambda: [tile.get_attribute("href").rsplit("/", 1)[-1] for tile in
                                browser.find_all(".tag-page .tile")] == [str(other["id"]), str(post["id"])])
    browser.screenshot("tag-page")


def test_finding_people_by_part_of_a_name_and_following_from_lists(browsers, sign_up):
    newcomer, friend, target, other = sign_up("newcomer"), sign_up("friend"), sign_up("target"), sign_up("other")
    newcomer.api("PUT", f"/users/{friend.username}/follow")
    friend.api("PUT", f"/users/{target.username}/follow")
    marker = secrets.token_hex(3)
    other.api("PATCH", "/me", json={"displayName": f"Zoë Q{marker}field"})
    browser = browsers(width=390, height=844)
    browser.log_in(newcomer)

    # An empty feed suggests the people those you follow follow, with a Follow button each.
    browser.wait_for(".suggestions:not([hidden]) .user-item")
    first = browser.find(".suggestions .user-item")
    assert target.username in first.text
    browser.screenshot("suggestions-phone")
    browser.click(".suggestions .user-item button")
    browser.wait_until(lambda: browser.find(".suggestions .user-item button").text == "Following")
    assert newcomer.api("GET", f"/users/{target.username}")["viewerFollows"] is True

    # Part of a display name, in the middle of a word, with another case, finds them; follow from the results.
    browser.click("a.nav-item[href='/search']")
    browser.type("#search", marker.upper())
    browser.wait_for(".search-results .user-item")
    row = browser.find(".search-results .user-item")
    assert other.username in row.text and f"Zoë Q{marker}field" in row.text
    button = browser.find("button", within=row)
    assert button.text == "Follow" and button.get_attribute("aria-label") == f"Follow {other.username}"
    button.click()
    browser.wait_until(lambda: browser.find(".search-results .user-item button").text == "Following")
    assert newcomer.api("GET", f"/users/{other.username}")["viewerFollows"] is True
    browser.screenshot("search-phone-follow")

    # A profile suggests whom it follows; the followers list has Follow buttons too.
    browser.open(f"/u/{friend.username}")
    browser.wait_for(".profile-header")
    browser.click(".counts button")
    browser.wait_for("dialog .user-item")
    assert newcomer.username in browser.text("dialog .user-list")
    assert browser.find_all("dialog .user-item button") == [], "no Follow button on yourself"


def test_a_tall_photo_cut_to_4_5_is_shared_as_chosen_and_served_sharp(browsers, sign_up):
    person = sign_up("cropper")
    phone = browsers(width=390, height=844)
    phone.log_in(person)
    phone.click("a.nav-item[href='/new']")
    phone.find("#photo-input").send_keys(str(PHOTOS / "phone-gps-rotated.jpg"))
    phone.wait_for(".preview-frame img")
    assert phone.find(".crop-choices input[value=original]").is_selected()
    phone.click(".crop-choice:nth-of-type(3)")  # 4:5
    assert phone.find(".crop-choices input[value=portrait]").is_selected()
    frame = phone.find(".preview-frame")
    phone.wait_until(lambda: abs(frame.size["width"] / frame.size["height"] - 0.8) < 0.02)
    phone.screenshot("upload-crop-phone")
    phone.type("#caption", "Cut to four by five")
    phone.click("button[type=submit]")

    card = phone.wait_for("article.card")
    post_id = int(card.get_attribute("data-post-id"))
    post = person.api("GET", f"/posts/{post_id}")
    assert (post["image"]["width"], post["image"]["height"]) == (2688, 3360), "the server applied the crop"
    shown = phone.find(".photo-frame", card)
    assert abs(shown.size["width"] / shown.size["height"] - 0.8) < 0.02, "shown at its stored aspect, whole"
    image = phone.find("img.photo", card)
    phone.driver.execute_script("arguments[0].scrollIntoView()", image)
    phone.wait_until(lambda: phone.driver.execute_script("return arguments[0].complete && arguments[0].currentSrc", image))
    source, natural, density = phone.driver.execute_script(
        "return [arguments[0].currentSrc, arguments[0].naturalWidth, devicePixelRatio]", image)
    assert source.endswith(".webp"), "a responsive WebP variant is chosen"
    assert natural >= shown.size["width"] * density, "at least as many pixels as the screen shows"
    phone.screenshot("feed-cropped-phone")


def test_changing_the_password_logs_out_the_other_browser_and_sessions_can_be_ended(browsers, sign_up):
    person = sign_up("settler")
    here, there = browsers(), browsers(width=390, height=844)
    here.allowed_errors = ("status of 422",)  # the wrong current password, on purpose
    here.log_in(person)
    there.log_in(person)
    here.click(".nav-item[href^='/u/']")
    here.click("a.settings-link")
    here.wait_for(".session-list .session")
    here.wait_until(lambda: len(here.find_all(".session-list .session")) == 3)
    assert len(here.find_all(".session-current")) == 1
    here.screenshot("settings")

    # The session the test client made (python-requests) ends from the list: its token fails at once.
    scripted = next(row for row in here.find_all(".session-list .session") if "python-requests" in row.text)
    here.find("button", within=scripted).click()
    here.click("dialog .dialog-actions button:last-child")
    here.wait_until(lambda: len(here.find_all(".session-list .session")) == 2)
    assert requests.get(f"{person.base}/api/v1/me", headers=person.headers, timeout=10).status_code == 401

    # A wrong current password is explained; the right one logs the other browser out, with a message.
    here.type("#current-password", "not the password")
    here.type("#new-password", "a much better secret")
    here.click(".settings-form button[type=submit]")
    here.wait_until(lambda: "Current password" in here.text(".settings-form .form-error"))
    assert here.find("#current-password").get_attribute("aria-invalid") == "true"
    here.find("#current-password").clear()
    here.type("#current-password", PASSWORD)
    here.click(".settings-form button[type=submit]")
    there.wait_for("form[aria-label='Log in']")
    there.wait_until(lambda: "You were logged out" in there.driver.page_source)
    here.wait_until(lambda: len(here.find_all(".session-list .session")) == 1)
    assert here.find("#current-password").get_attribute("value") == ""
    answer = requests.post(f"{person.base}/api/v1/sessions", json={"username": person.username, "password": PASSWORD},
                           timeout=10)
    assert answer.status_code == 401, "the old password no longer works"

    here.click(".settings-section button.secondary:not(.compact)")
    here.wait_until(lambda: "Downloaded makestagram-" in here.driver.page_source, message="the archive downloads")
