"""Federation in the web client: on mk-b, bea finds alice of mk-a by her handle, opens her profile, follows her (the
button says Requested until mk-a accepts), and her post arrives in bea's feed with its alt text, shown from mk-b; bea
reports it to mk-a too, and it lands in mk-a's moderators' queue."""
import pathlib
import sys

import requests

from federation_support import eventually

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "browser"))
from browser_support import Browser, Person  # noqa: E402

PHOTOS = pathlib.Path(__file__).resolve().parents[1] / "TestFixtures" / "photos"


def test_following_someone_on_another_server_from_the_web_client(pair):
    mk_a, mk_b = pair
    alice = mk_a.sign_up("alice")
    bea = Person(mk_b.base, "bea", mk_b.sign_up("bea")["Authorization"].split(" ")[1])
    browser = Browser(mk_b.base, width=1280, height=900)
    try:
        browser.log_in(bea)
        browser.open("/search")
        browser.type("#search", "@alice@mk-a.test")
        assert eventually(lambda: "alice@mk-a.test" in browser.text("main"), timeout=20), (
            browser.text("main"), browser.console_errors(), mk_b.log_path.read_text()[-3000:])
        browser.click(".search-results .user-row")
        browser.wait_until(lambda: browser.driver.current_url.endswith("/u/alice@mk-a.test"))
        follow = 'main button[aria-label$="alice@mk-a.test"][aria-pressed]'
        button = browser.wait_for(follow)
        assert button.text == "Follow"
        button.click()
        # Until mk-a answers, it is a request; then a follow.
        browser.wait_until(lambda: browser.find(follow).text in ("Requested", "Following"))
        assert eventually(lambda: requests.get(mk_a.base + "/api/v1/users/alice", headers=alice,
                                               timeout=10).json()["followerCount"] == 1)
        browser.open("/u/alice@mk-a.test")
        browser.wait_until(lambda: browser.find(follow).text == "Following")

        with open(PHOTOS / "chelsea.jpg", "rb") as photo:
            upload = requests.post(mk_a.base + "/api/v1/uploads", headers=alice, files={"image": photo},
                                   data={"altText": "A cat on a sofa"}, timeout=60).json()["id"]
        assert requests.post(mk_a.base + "/api/v1/posts", headers=alice, timeout=60,
                             json={"caption": "From mk-a", "uploads": [upload]}).status_code == 201
        browser.open("/")

        def card_image():
            browser.open("/")
            images = [image for image in browser.find_all("article img")
                      if image.get_attribute("alt") == "A cat on a sofa"]
            return images[0] if images else None
        image = eventually(card_image, timeout=20, step=1)
        assert image is not None, browser.text("main")
        assert image.get_attribute("src").startswith(mk_b.base + "/media/")
        assert "alice@mk-a.test" in browser.text("main") and "From mk-a" in browser.text("main")
        browser.screenshot("federated-post-in-feed")
        # Its card's menu links to the original on mk-a.
        browser.click("article .more")
        link = browser.wait_for("dialog a.original-link")
        assert link.text == "See the original on mk-a.test"
        assert link.get_attribute("href").startswith("http://mk-a.test/p/")
        assert link.get_attribute("target") == "_blank" and "noopener" in link.get_attribute("rel")
        # Its page here links to the original on mk-a.
        timeline = requests.get(mk_b.base + "/api/v1/timeline", headers={"Authorization": "Bearer " + bea.token},
                                timeout=10).json()["items"]
        browser.open(f"/p/{timeline[0]['id']}")
        link = browser.wait_for("p.original a")
        assert link.text == "See the original on mk-a.test"
        assert link.get_attribute("href").startswith("http://mk-a.test/p/")

        # Reported to mk-a too (the box is offered, and ticked, for a post from elsewhere).
        browser.click(".more")
        browser.click("dialog .danger-text")
        browser.type("dialog textarea", "Not her photo")
        forward = browser.find("#report-forward")
        assert forward.is_selected() and "Also report it to mk-a.test" in browser.text("dialog")
        browser.click("dialog button[type=submit]")
        browser.wait_until(lambda: "moderators" in browser.text("#toasts"))
        warden = mk_a.moderator("warden")

        def queued():
            items = requests.get(mk_a.base + "/api/v1/moderation/reports", headers=warden, timeout=10).json()["items"]
            return [(r["reporter"]["username"], r["reason"]) for item in items for r in item["reports"]]
        assert eventually(queued, timeout=30) == [("mk-b.test@mk-b.test", "Not her photo (reported from mk-b.test)")]
        assert browser.console_errors() == []
    finally:
        browser.quit()
