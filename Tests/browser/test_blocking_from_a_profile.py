"""Blocking in a real browser: from a profile, after a confirmation that says what it does; the blocked person's
open screen loads again at once and finds nothing of the blocker; Settings lists whom you block, with Unblock."""


def test_block_from_a_profile_reaches_the_blocked_screen_and_unblock_in_settings(browsers, sign_up):
    alice, bob, carol = sign_up("alice"), sign_up("bob"), sign_up("carol")
    alice.api("PUT", f"/users/{bob.username}/follow")
    bob.api("PUT", f"/users/{alice.username}/follow")
    carol.api("PUT", f"/users/{alice.username}/follow")
    mine = alice.post_photo("hubble.jpg", "Mine")
    bob.api("PUT", f"/posts/{mine['id']}/like")
    carol.api("PUT", f"/posts/{mine['id']}/like")
    bob.api("POST", f"/posts/{mine['id']}/comments", json={"text": "Bob says hi"})

    # Bob is looking at alice's post when she blocks him.
    bobs = browsers(width=1280, height=900)
    # What bob asks for of alice's after the block answers 404, as for something that does not exist.
    bobs.allowed_errors = (f"/api/v1/posts/{mine['id']} - Failed to load resource",
                           f"/api/v1/users/{alice.username} - Failed to load resource")
    bobs.log_in(bob)
    bobs.open(f"/p/{mine['id']}")
    bobs.wait_until(lambda: "Bob says hi" in bobs.text("main"))

    browser = browsers(width=390, height=844)
    browser.log_in(alice)
    browser.open(f"/u/{bob.username}")
    button = browser.wait_for(".block-button")
    assert button.text == "Block" and button.get_attribute("aria-label") == f"Block {bob.username}"
    button.click()
    browser.wait_for("dialog[open] .button.danger")
    assert "They are not told" in browser.text("dialog[open]")
    browser.click("dialog[open] .button.danger")
    browser.wait_until(lambda: browser.find_all(".blocked-note"))
    assert browser.find(".block-button").text == "Unblock"
    assert not browser.find_all(".mute-button"), "nothing else to do with someone you block"
    browser.wait_until(lambda: "They are not told" in browser.driver.execute_script(
        "return document.getElementById('toasts').textContent"))

    # Bob's screen loaded again: the post is gone for him.
    bobs.wait_until(lambda: "Bob says hi" not in bobs.text("main"), timeout=10)
    bobs.open(f"/u/{alice.username}")
    bobs.wait_until(lambda: "No such user" in bobs.text("main"))

    # Alice's post: bob's like and comment are gone, carol's like stays.
    browser.open(f"/p/{mine['id']}")
    browser.wait_until(lambda: carol.username in browser.text("main"))
    assert "Bob says hi" not in browser.text("main")

    browser.open("/settings")
    row = browser.wait_for(".block-list li")
    assert bob.username in row.text
    found = browser.accessibility_violations()
    assert found == [], found
    browser.screenshot("settings-blocked-accounts-phone")
    browser.click(f'button[aria-label="Unblock {bob.username}"]')
    browser.wait_until(lambda: "You block nobody." in browser.text(".settings"))
    bobs.open(f"/u/{alice.username}")
    bobs.wait_until(lambda: bobs.find_all(".follow-button, .profile-actions button"))
