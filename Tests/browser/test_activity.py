"""Activity in the browser: the unread badge on the heart changes live, and the activity view reads the way people
talk ("carol and bob liked your photo") with the post's thumbnail, marks what it shows as read, and follows new
actions and withdrawn ones without a reload."""
from selenium.common.exceptions import StaleElementReferenceException


def lines(browser) -> list[str]:
    """The list's lines as shown now; empty while the list is being replaced (it loads again on each change)."""
    try:
        return [browser.text(".activity-text", item) for item in browser.find_all(".activity-item")]
    except StaleElementReferenceException:
        return []


def badge(browser) -> str:
    """The badge's count ("" when it is hidden); None while the navigation bar is being drawn again."""
    try:
        element = browser.find(".nav-item[href='/activity'] .badge")
        return element.text if element.is_displayed() else ""
    except StaleElementReferenceException:
        return None


def test_the_badge_goes_up_live_and_the_activity_view_reads_like_people_talk(browsers, sign_up):
    alice, bob, carol, dave = sign_up("alice"), sign_up("bob"), sign_up("carol"), sign_up("dave")
    post = alice.post_photo("chelsea.jpg", "Chelsea at the park")

    alices = browsers()
    alices.log_in(alice)
    assert badge(alices) == ""
    alice.api("PUT", f"/posts/{post['id']}/like")  # your own like never notifies you
    bob.api("PUT", f"/posts/{post['id']}/like")
    alices.wait_until(lambda: badge(alices) == "1", message="bob's like raises the badge live")
    carol.api("PUT", f"/posts/{post['id']}/like")
    carol.api("POST", f"/posts/{post['id']}/comments", json={"text": "Lovely light"})
    alices.wait_until(lambda: badge(alices) == "3", message="carol's like and comment raise it again")
    link = alices.find(".nav-item[href='/activity']")
    assert link.get_attribute("aria-label") == "Activity, 3 unread"
    alices.screenshot("activity-badge")

    alices.click(".nav-item[href='/activity']")
    alices.wait_for(".activity-item")
    alices.wait_until(lambda: badge(alices) == "", message="what the view shows is marked as read")
    assert alice.api("GET", "/activity/unread") == {"unreadCount": 0}
    # The list is loaded again once the count changes; read it after that, not from elements it replaced.
    alices.wait_until(lambda: not alices.find_all(".activity-item.unread"))
    expected = [
        f"{carol.username} commented: “Lovely light” just now",
        f"{carol.username} and {bob.username} liked your photo. just now",
    ]
    alices.wait_until(lambda: lines(alices) == expected, message=f"{lines(alices)} reads as {expected}")
    thumbnail = alices.find(".activity-item:nth-child(2) .activity-thumb img")
    assert thumbnail.get_attribute("src").endswith(".jpg") or thumbnail.get_attribute("src").endswith(".webp")
    assert alices.find(".activity-item:nth-child(2) .activity-thumb").get_attribute("href").endswith(f"/p/{post['id']}")
    alices.screenshot("activity-view")

    # New and withdrawn actions change the open view without a reload.
    dave.api("PUT", f"/users/{alice.username}/follow")
    alices.wait_until(
        lambda: lines(alices)[0].startswith(f"{dave.username} started following you."),
        message="dave's follow appears at the top",
    )
    bob.api("DELETE", f"/posts/{post['id']}/like")
    alices.wait_until(
        lambda: f"{carol.username} liked your photo. just now" in lines(alices),
        message="bob's unlike leaves carol alone in the like group",
    )
    alices.wait_until(lambda: badge(alices) == "")

    # Mentions: a caption and a comment that name her appear live; the comment's leaves with it.
    dave.post_photo("rocket.jpg", f"Launch day with @{alice.username}")
    alices.wait_until(lambda: lines(alices)[0] == f"{dave.username} mentioned you in a post. just now",
                      message="dave's caption names her")
    bobs = bob.post_photo("chelsea.jpg", "Mine")
    comment = carol.api("POST", f"/posts/{bobs['id']}/comments", json={"text": f"@{alice.username} look"})
    alices.wait_until(
        lambda: lines(alices)[0] == f"{carol.username} mentioned you in a comment: “@{alice.username} look” just now",
        message="carol's comment on bob's post names her")
    carol.api("DELETE", f"/comments/{comment['id']}")
    alices.wait_until(lambda: lines(alices)[0] == f"{dave.username} mentioned you in a post. just now",
                      message="the deleted comment takes its mention away")

    # At phone width the heart and its badge stay in the bar.
    phone = browsers(width=390, height=844)
    phone.log_in(alice)
    carol.api("DELETE", f"/posts/{post['id']}/like")
    carol.api("PUT", f"/posts/{post['id']}/like")
    phone.wait_until(lambda: badge(phone) == "1", message="a like after the view was read is unread on the phone")
    phone.click(".nav-item[href='/activity']")
    phone.wait_for(".activity-item")
    phone.screenshot("activity-view-phone")
    phone.wait_until(lambda: badge(phone) == "")
