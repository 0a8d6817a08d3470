"""Albums in a real browser: the composer takes several photos, reorders and removes them, gives each its alt text
and its own progress, and Cancel publishes nothing; a card shows an album as a carousel (buttons, arrow keys, dots,
swipe), each photo with its own alt text, a double tap likes from any photo, and grids mark albums in words."""
import time

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys

from browser_support import PHOTOS


def names(browser) -> list[str]:
    return [element.text.split(" · ")[0] for element in browser.find_all(".photo-item .photo-name")]


def current_dot(browser, card) -> int:
    dots = browser.find_all(".carousel-dot", card)
    return [index for index, dot in enumerate(dots) if "current" in dot.get_attribute("class")][0]


def test_an_album_made_in_the_composer_reads_back_and_its_carousel_works(browsers, sign_up):
    alice, bob = sign_up("alice"), sign_up("bob")
    bob.api("PUT", f"/users/{alice.username}/follow")
    single = alice.post_photo("chelsea.jpg", "Just one")
    alices = browsers()
    alices.log_in(alice)
    alices.click("a.nav-item[href='/new']")
    alices.find("#photo-input").send_keys("\n".join(str(PHOTOS / name) for name in
                                                   ("rocket.jpg", "chelsea.jpg", "hubble.jpg")))
    alices.wait_until(lambda: len(alices.find_all(".photo-item")) == 3)
    assert [label.text for label in alices.find_all(".photo-item label")] == \
        ["Alt text for photo 1", "Alt text for photo 2", "Alt text for photo 3"]
    assert alices.find('button[aria-label="Move photo 1 earlier"]').get_attribute("disabled") is not None

    # Reorder and remove with the buttons; the focus stays where the hand is.
    alices.click('button[aria-label="Move photo 3 earlier"]')
    assert names(alices) == ["rocket.jpg", "hubble.jpg", "chelsea.jpg"]
    assert alices.driver.switch_to.active_element.get_attribute("aria-label") == "Move photo 2 earlier"
    alices.click('button[aria-label="Remove photo 1"]')
    assert names(alices) == ["hubble.jpg", "chelsea.jpg"]
    alices.find("#photo-input").send_keys(str(PHOTOS / "astronaut.jpg"))
    alices.wait_until(lambda: names(alices) == ["hubble.jpg", "chelsea.jpg", "astronaut.jpg"])
    alices.type("#alt-text", "A field of galaxies")
    alices.type("#alt-text-3", "An astronaut above the Earth")
    alices.click(".crop-choice:nth-of-type(2)")  # square, for the whole post
    alices.type("#caption", "Three squares")
    alices.screenshot("composer-album")
    alices.click("button[type=submit]")

    card = alices.wait_for("article.card")
    post_id = int(card.get_attribute("data-post-id"))
    post = alice.api("GET", f"/posts/{post_id}")
    assert [photo.get("altText") for photo in post["photos"]] == \
        ["A field of galaxies", None, "An astronaut above the Earth"]
    assert all(photo["width"] == photo["height"] for photo in post["photos"]), "one crop for the whole post"

    # The carousel: its own alt text on each photo, buttons with names, dots, arrow keys.
    selector = f'article[data-post-id="{post_id}"]'
    track = alices.find(f"{selector} .carousel-track")
    assert track.get_attribute("aria-label") == f"3 photos by {alice.username}"
    assert [image.get_attribute("alt") for image in alices.find_all(f"{selector} img.photo")] == \
        ["A field of galaxies", f"Photo 2 of 3 by {alice.username}, no description", "An astronaut above the Earth"]
    assert not alices.find(f"{selector} .carousel-button.previous").is_displayed()
    alices.click(f"{selector} .carousel-button.next")
    alices.wait_until(lambda: current_dot(alices, card) == 1)
    alices.driver.execute_script("arguments[0].focus()", track)
    track.send_keys(Keys.ARROW_RIGHT)
    alices.wait_until(lambda: current_dot(alices, card) == 2)
    alices.wait_until(lambda: not alices.find(f"{selector} .carousel-button.next").is_displayed())
    alices.wait_until(lambda: alices.driver.execute_script(
        "const t = arguments[0]; return Math.abs(t.scrollLeft - 2 * t.clientWidth) < 2", track))
    alices.screenshot("carousel-third-photo")
    track.send_keys(Keys.HOME)
    alices.wait_until(lambda: current_dot(alices, card) == 0)
    # A double click on any photo likes the post.
    alices.click(f"{selector} .carousel-button.next")
    alices.wait_until(lambda: current_dot(alices, card) == 1)
    ActionChains(alices.driver).double_click(alices.find_all(f"{selector} img.photo")[1]).perform()
    alices.wait_until(lambda: alice.api("GET", f"/posts/{post_id}")["viewerHasLiked"] is True)

    # Bob watches; Alice describes the photo she is looking at (the second), and his screen follows.
    bobs = browsers(width=390, height=844)
    bobs.log_in(bob)
    bobs.card(post_id)
    alices.click(f"{selector} .more")
    [edit] = [item for item in alices.find_all("dialog .menu-item") if item.text == "Edit alt text"]
    edit.click()
    field = alices.wait_for("#edit-alt-text")
    assert "photo 2" in alices.text("dialog h2")
    field.send_keys("A grey cat asleep")
    alices.click('dialog button[type="submit"]')
    bobs.wait_until(lambda: bobs.find_all(f"{selector} img.photo")[1].get_attribute("alt") == "A grey cat asleep",
                    message="the new alt text reaches bob live")
    assert bobs.find_all(f"{selector} img.photo")[0].get_attribute("alt") == "A field of galaxies"
    # On a phone, a swipe moves to the next photo.
    bob_track = bobs.find(f"{selector} .carousel-track")
    bobs.driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", bob_track)
    bobs.driver.execute_script("arguments[0].scrollBy({left: arguments[0].clientWidth})", bob_track)
    bobs.wait_until(lambda: current_dot(bobs, bobs.find(selector)) == 1)

    # Grids say "3 photos" for the album, nothing for a single photo.
    bobs.open(f"/u/{alice.username}")
    bobs.wait_for(".grid .tile")
    album_tile = bobs.find(f'.grid a.tile[href="/p/{post_id}"]')
    single_tile = bobs.find(f'.grid a.tile[href="/p/{single["id"]}"]')
    assert "3 photos" in album_tile.get_attribute("aria-label") and bobs.find_all(".album-mark", album_tile)
    assert "photos" not in single_tile.get_attribute("aria-label") and not bobs.find_all(".album-mark", single_tile)


def test_cancel_stops_an_album_half_way_and_nothing_is_published(browsers, sign_up):
    alice = sign_up("alice")
    browser = browsers()
    browser.log_in(alice)
    browser.open("/new")
    browser.wait_present("#photo-input").send_keys(str(PHOTOS / "rocket.jpg") + "\n" + str(PHOTOS / "phone-gps-rotated.jpg"))
    browser.wait_until(lambda: len(browser.find_all(".photo-item")) == 2)
    # A slow connection: the second photo (0.9 MB) takes some twenty seconds.
    browser.driver.execute_cdp_cmd("Network.enable", {})
    browser.driver.execute_cdp_cmd(
        "Network.emulateNetworkConditions",
        {"offline": False, "latency": 20, "downloadThroughput": 1_000_000, "uploadThroughput": 40_000},
    )
    browser.click("button[type=submit]")
    # Each photo shows its own progress: the first done, the second on its way.
    browser.wait_until(lambda: "Uploaded" in browser.find_all(".photo-state")[0].text and
                       0 < int(browser.find_all("progress.photo-progress")[1].get_attribute("value")) < 60,
                       timeout=30, message="the second photo is on its way")
    assert "photo 2 of 2" in browser.text(".upload-footer")
    browser.screenshot("composer-album-progress")
    browser.click(".form-actions button.secondary")
    browser.wait_until(lambda: "nothing was shared" in browser.text(".upload-footer"))
    browser.driver.execute_cdp_cmd(
        "Network.emulateNetworkConditions",
        {"offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1},
    )
    time.sleep(1)
    assert alice.api("GET", f"/users/{alice.username}/posts")["items"] == [], "nothing was published"
    assert len(browser.find_all(".photo-item")) == 2, "the photos stay chosen, to share after all"
    browser.click("button[type=submit]")
    browser.wait_for(".feed-header")
    [post] = alice.api("GET", f"/users/{alice.username}/posts")["items"]
    assert len(post["photos"]) == 2
