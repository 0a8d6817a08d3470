"""Every page of the web client, checked by axe-core (WCAG 2.1 A and AA rules, and its best practices) as an outside
auditor would, at a desktop and a phone width and in the light and dark colour schemes, on pages that show real
content: a post with a mention, a hashtag, likes and comments, avatars with initials, the activity list."""

from browser_support import PHOTOS

# axe-core leaves initials to a person ("content too short to tell if it is text"): their contrast is measured here.
AVATAR_CONTRASTS = """
const channel = (value) => {
  const c = value / 255;
  return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
};
const luminance = (colour) => {
  const [r, g, b] = colour.match(/\\d+(\\.\\d+)?/g).map(Number);
  return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
};
return [...document.querySelectorAll("span.avatar")].map((element) => {
  const style = getComputedStyle(element);
  const [a, b] = [luminance(style.color), luminance(style.backgroundColor)].sort((x, y) => y - x);
  return [element.textContent, (a + 0.05) / (b + 0.05)];
});
"""


def test_no_page_has_an_accessibility_violation(browsers, sign_up):
    def cast():
        alice, bob, newcomer, quiet = sign_up("alice"), sign_up("bob"), sign_up("newcomer"), sign_up("quiet")
        # The newcomer follows someone who posts nothing: an empty feed, with suggestions (whom quiet follows).
        newcomer.api("PUT", f"/users/{quiet.username}/follow")
        quiet.api("PUT", f"/users/{alice.username}/follow")
        post = alice.post_photo("chelsea.jpg", f"Chelsea at the #park with @{bob.username}, see https://example.org")
        bob.api("PUT", f"/users/{alice.username}/follow")
        alice.api("PUT", f"/users/{bob.username}/follow")
        bob.api("PUT", f"/posts/{post['id']}/like")
        bob.api("POST", f"/posts/{post['id']}/comments", json={"text": f"Lovely light #golden @{alice.username}"})
        bob.post_photo("rocket.jpg", "Launch day")
        # Albums: in the feed (a carousel), on a profile and a hashtag page (a marked tile).
        bob.post_album(["astronaut.jpg", "hubble.jpg", "rocket.jpg"], "Space #park", ["An astronaut", None, "A rocket"])
        alice.post_album(["chelsea.jpg", "hubble.jpg"], "Two")
        return alice, bob, newcomer, post

    # A cast of its own per pass: each page opened is a page load, and one person's event-stream tickets are limited.
    for width, height, scheme in ((1280, 900, "light"), (390, 844, "light"), (1280, 900, "dark"), (390, 844, "dark")):
        alice, bob, newcomer, post = cast()
        browser = browsers(width=width, height=height, scheme=scheme)
        browser.allowed_errors = ("/no/such/page - Failed to load resource",)  # the 404 page's own status
        found: dict[str, list[str]] = {}

        def check(page: str, path: str, ready: str):
            browser.open(path)
            browser.wait_for(ready)
            browser.screenshot(f"page-{page.replace(' ', '-')}-{width}-{scheme}")
            found[page] = browser.accessibility_violations() + [
                f"avatar initials {text!r} at {ratio:.2f} : 1 (WCAG AA needs 4.5)"
                for text, ratio in browser.driver.execute_script(AVATAR_CONTRASTS)
                if ratio < 4.5
            ]

        check("login", "/login", "#username")
        check("sign-up", "/signup", "#username")
        browser.log_in(alice)
        check("feed", "/", f'article.card[data-post-id="{post["id"]}"] .comments li')
        browser.wait_for(".carousel-track")
        browser.click(".carousel-button.next")
        found["feed, an album's second photo"] = browser.accessibility_violations()
        check("post", f"/p/{post['id']}", "article.card")
        check("profile", f"/u/{alice.username}", ".profile-header")
        check("other profile", f"/u/{bob.username}", ".profile-header")
        check("upload", "/new", "#caption")
        browser.find("#photo-input").send_keys(str(PHOTOS / "phone-gps-rotated.jpg") + "\n" + str(PHOTOS / "rocket.jpg"))
        browser.wait_for(".crop-choices:not([hidden])")
        browser.wait_for("#alt-text-2")
        browser.click(".crop-choice:nth-of-type(3)")
        found["upload, crop step"] = browser.accessibility_violations()
        browser.screenshot(f"page-upload-crop-{width}-{scheme}")
        check("activity", "/activity", ".activity-item")
        check("settings", "/settings", ".session-list .session")
        check("hashtag", "/t/park", ".tag-page .tile")
        check("not found", "/no/such/page", ".empty")
        browser.open("/search")
        browser.type("#search", bob.username[:3])
        browser.wait_for(".search-results li")
        found["search"] = browser.accessibility_violations()
        browser.open(f"/u/{alice.username}")
        browser.wait_for(".edit-profile")
        browser.click(".edit-profile")
        browser.wait_for("dialog #profile-name")
        found["edit profile"] = browser.accessibility_violations()

        fresh = browsers(width=width, height=height, scheme=scheme)
        fresh.log_in(newcomer)
        fresh.wait_for(".suggestions:not([hidden]) .user-item button")
        found["empty feed, suggestions"] = fresh.accessibility_violations()
        fresh.screenshot(f"page-empty-feed-{width}-{scheme}")
        fresh.open("/search")
        fresh.wait_for(".suggestions:not([hidden]) .user-item")
        found["search, suggestions"] = fresh.accessibility_violations()

        violations = {page: lines for page, lines in found.items() if lines}
        assert violations == {}, f"at {width} px, {scheme}:\n" + "\n".join(
            f"{page}: {line}" for page, lines in violations.items() for line in lines
        )
