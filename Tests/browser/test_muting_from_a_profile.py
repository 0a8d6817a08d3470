"""Muting in a real browser: from a profile, the person's posts leave the home feed and their likes the activity;
Settings lists whom you mute, and Unmute there brings them back."""


def test_mute_from_a_profile_and_unmute_in_settings(browsers, sign_up):
    alice, bob, carol = sign_up("alice"), sign_up("bob"), sign_up("carol")
    for person in (bob, carol):
        alice.api("PUT", f"/users/{person.username}/follow")
    bobs = bob.post_photo("rocket.jpg", "Bob's rocket")
    carols = carol.post_photo("chelsea.jpg", "Carol's cat")
    mine = alice.post_photo("hubble.jpg", "Mine")
    bob.api("PUT", f"/posts/{mine['id']}/like")
    carol.api("POST", f"/posts/{mine['id']}/comments", json={"text": "Stars!"})
    browser = browsers(width=390, height=844)
    browser.log_in(alice)
    browser.card(bobs["id"])

    browser.open(f"/u/{bob.username}")
    button = browser.wait_for(".mute-button")
    assert button.text == "Mute" and button.get_attribute("aria-label") == f"Mute {bob.username}"
    button.click()
    browser.wait_until(lambda: browser.find(".mute-button").text == "Unmute")
    assert browser.find(".mute-button").get_attribute("aria-label") == f"Unmute {bob.username}"
    browser.wait_until(lambda: "They are not told" in browser.driver.execute_script(
        "return document.getElementById('toasts').textContent"))
    assert browser.find(".follow-button, .profile-actions button").is_displayed(), "the follow stays"

    browser.click("a.nav-item[href='/']")
    browser.card(carols["id"])
    assert not browser.find_all(f'article[data-post-id="{bobs["id"]}"]'), "bob's post left the feed"
    browser.click("a.nav-item[href='/activity']")
    browser.wait_until(lambda: carol.username in browser.text(".activity-item"))
    assert bob.username not in browser.text("main"), "bob's like left the activity"

    browser.open("/settings")
    row = browser.wait_for(".mute-list li")
    assert bob.username in row.text
    found = browser.accessibility_violations()
    assert found == [], found
    browser.screenshot("settings-muted-accounts-phone")
    browser.click(f'button[aria-label="Unmute {bob.username}"]')
    browser.wait_until(lambda: "You mute nobody." in browser.text(".settings"))
    browser.click("a.nav-item[href='/']")
    browser.card(bobs["id"])
