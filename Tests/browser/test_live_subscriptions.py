"""Screens stay true in ordinary use: a feed of 20 cards, a post opened from it, a long profile, and a server that
asks a client to slow down. Each screen's subscriptions follow what it shows, and a refusal is asked again."""
import requests
from selenium.webdriver.common.keys import Keys

from browser_support import Browser, Person
from makestagram_server import Server


def likes_and_comments_reach(browser: Browser, card_selector: str, post_id: int, liker: Person, text: str):
    liker.api("PUT", f"/posts/{post_id}/like")
    liker.api("POST", f"/posts/{post_id}/comments", json={"text": text})
    browser.wait_until(lambda: liker.username in browser.text(".liked-by", browser.find(card_selector)),
                       message=f"the like on post {post_id} arrives live")
    browser.wait_until(lambda: text in browser.text(card_selector), message=f"the comment on post {post_id} arrives")


def refusals(browser: Browser) -> list[str]:
    """Live-stream refusals the page logged (the app warns on every error message from the server)."""
    browser.console += browser.driver.get_log("browser")
    return [entry["message"] for entry in browser.console if "event stream" in entry["message"]]


def post_many(person: Person, count: int, caption: str) -> list[int]:
    return [person.post_photo("rocket.jpg", f"{caption} {number}")["id"] for number in range(count)]


def test_a_post_opened_from_a_full_feed_and_the_feed_after_it_stay_live(browsers, sign_up):
    author, reader, friend = sign_up("author"), sign_up("reader"), sign_up("friend")
    ids = post_many(author, 22, "Feed")
    reader.api("PUT", f"/users/{author.username}/follow")
    browser = browsers()
    browser.log_in(reader)
    browser.wait_until(lambda: len(browser.find_all("article.card")) == 20)

    opened = ids[-3]
    browser.click(f'article[data-post-id="{opened}"] .post-time')
    browser.wait_for(".card-detail")
    likes_and_comments_reach(browser, ".card-detail", opened, friend, "Seen from the post page")

    browser.driver.back()
    browser.wait_until(lambda: len(browser.find_all("article.card")) >= 20)
    twentieth = ids[-20]
    likes_and_comments_reach(browser, f'article[data-post-id="{twentieth}"]', twentieth, friend, "Twentieth")
    assert refusals(browser) == [], "no subscribe or unsubscribe was refused"


def test_a_long_profile_stays_live_from_its_first_tile_to_its_last(browsers, sign_up):
    author, reader, friend = sign_up("prolific"), sign_up("visitor"), sign_up("liker")
    ids = post_many(author, 30, "Profile")
    browser = browsers()
    browser.log_in(reader)
    browser.open(f"/u/{author.username}")
    browser.wait_for(".grid .tile")
    browser.driver.execute_script("window.scrollTo(0, document.body.scrollHeight)")
    browser.wait_until(lambda: len(browser.find_all(".grid .tile")) == 30, message="every tile loads")
    for post_id in (ids[0], ids[-1]):
        friend.api("PUT", f"/posts/{post_id}/like")
        tile = f'.grid a[href="/p/{post_id}"]'
        browser.wait_until(lambda: "1 like" in browser.find(tile).get_attribute("aria-label"),
                           message=f"the like on tile {post_id} arrives live")
    assert refusals(browser) == []


def test_a_refused_subscription_is_asked_again_when_the_server_says(sign_up, server):
    # A server whose connections may ask for little work: the feed's first subscribe uses it all, so the messages of
    # the post page opened next are refused and must be sent again after the time the server names.
    tight = Server("--rate-limit", "live-work=21/60s")
    browser = Browser(tight.base)
    try:
        def person(name: str) -> Person:
            return Person(tight.base, name, tight.sign_up(name))

        author, reader, stranger = person("author"), person("reader"), person("stranger")
        post_many(author, 20, "Tight")
        elsewhere = stranger.post_photo("hubble.jpg", "Not in the feed")["id"]
        reader.api("PUT", f"/users/{author.username}/follow")
        browser.log_in(reader)
        browser.wait_until(lambda: len(browser.find_all("article.card")) == 20)
        # A link followed inside the app (the stream stays open): a post the feed did not show.
        browser.driver.execute_script(
            f"history.pushState({{inApp: true}}, '', '/p/{elsewhere}'); dispatchEvent(new PopStateEvent('popstate'))")
        browser.wait_for(".card-detail")
        browser.wait_until(lambda: any("Try again" in message for message in refusals(browser)),
                           message="the server refuses the post page's messages at first")
        likes_and_comments_reach(browser, ".card-detail", elsewhere, author, "After a refusal")
        # Subscribed now: a later comment arrives as an event.
        author.api("POST", f"/posts/{elsewhere}/comments", json={"text": "A later one"})
        browser.wait_until(lambda: "A later one" in browser.text(".card-detail"))
    finally:
        browser.quit()
        tight.stop()
