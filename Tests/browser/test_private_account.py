"""A private account in a real browser: switched on in Edit profile; a stranger's profile view says it is private
and its Follow becomes Requested; the owner approves from the activity view (the request arrived live, with the
unread badge); the new follower then sees the photos."""
from selenium.common.exceptions import StaleElementReferenceException


def test_go_private_ask_to_follow_and_approve_from_activity(browsers, sign_up):
    alice, bob = sign_up("alice"), sign_up("bob")
    mine = alice.post_photo("hubble.jpg", "Only for friends")

    owner = browsers(width=390, height=844)
    owner.log_in(alice)
    owner.open(f"/u/{alice.username}")
    owner.wait_for(".edit-profile").click()
    owner.wait_for("#profile-private")
    owner.click("label[for='profile-private']")
    owner.click("dialog[open] button[type='submit']")
    owner.wait_until(lambda: not owner.find_all("dialog[open]"))
    assert alice.api("GET", f"/users/{alice.username}")["isPrivate"] is True

    stranger = browsers(width=1280, height=900)
    # What a stranger asks for of a private account's photo answers 404, as for one that does not exist.
    stranger.allowed_errors = (f"/api/v1/posts/{mine['id']} - Failed to load resource",)
    stranger.log_in(bob)
    stranger.open(f"/u/{alice.username}")
    stranger.wait_until(lambda: "This account is private" in stranger.text("main"))
    assert not stranger.find_all(".grid .tile")
    stranger.click(f'button[aria-label="Follow {alice.username}"]')
    stranger.wait_until(lambda: stranger.find(".profile-actions button").text == "Requested")

    # The request reaches the owner's badge live, and her activity with Approve and Decline.
    owner.wait_until(lambda: owner.driver.execute_script(
        "return document.querySelector('.nav-item[href=\"/activity\"]')?.textContent ?? ''").strip() != "",
        message="the unread badge shows the request")
    owner.click("a.nav-item[href='/activity']")
    owner.wait_until(lambda: "asked to follow you" in owner.text(".activity-list"))
    found = owner.accessibility_violations()
    assert found == [], found
    owner.screenshot("activity-follow-request-phone")

    def approve() -> bool:
        # The view reads its list again once it marked it read: a button may be replaced under the click.
        try:
            owner.click(f'button[aria-label="Approve {bob.username}"]')
            return True
        except StaleElementReferenceException:
            return False
    owner.wait_until(approve)
    owner.wait_until(lambda: "asked to follow you" not in owner.text(".activity-list"))

    stranger.open(f"/u/{alice.username}")
    stranger.wait_until(lambda: stranger.find_all(f'.grid a[href="/p/{mine["id"]}"]'))
    assert stranger.find(".profile-actions button").text == "Following"

    # The owner removes him from her followers: the row and the count go, and his view is a stranger's again.
    owner.open(f"/u/{alice.username}")
    owner.wait_until(lambda: "1 follower" in owner.text(".counts"))
    owner.click(".counts li:nth-child(2) button")
    remove = owner.wait_for(f'dialog[open] button[aria-label="Remove {bob.username} from your followers"]')
    found = owner.accessibility_violations()
    assert found == [], found
    owner.screenshot("followers-remove-phone")
    remove.click()
    owner.wait_until(lambda: not owner.find_all(f'dialog[open] a[href="/u/{bob.username}"]'))
    owner.wait_until(lambda: "0 followers" in owner.text(".counts"))
    assert alice.api("GET", f"/users/{alice.username}")["followerCount"] == 0
    stranger.open(f"/u/{alice.username}")
    stranger.wait_until(lambda: "This account is private" in stranger.text("main"))
    assert stranger.find(".profile-actions button").text == "Follow"
