"""What a new user met on a phone and in forms: a profile wider than the screen, a photo column squeezed to nothing,
log-in and account deletion that answered the wrong question first."""
import requests

from browser_support import PASSWORD, PHOTOS


def overflow(browser) -> int:
    return browser.driver.execute_script("return document.documentElement.scrollWidth")


def test_your_own_profile_fits_a_phone_with_every_button_in_reach(browsers, sign_up):
    person = sign_up("phoneowner")
    person.api("PATCH", "/me", json={
        "displayName": "Someone With A Rather Long Name Too",
        "bio": "Photographs cats, rockets and galaxies; writes a bio long enough to wrap over several lines here.",
    })
    with open(PHOTOS / "astronaut.jpg", "rb") as photo:
        person.api("PUT", "/me/avatar", files={"image": photo})
    person.post_photo("chelsea.jpg", "Cat")
    for width, height in ((390, 844), (1280, 900)):
        browser = browsers(width=width, height=height)
        browser.log_in(person)
        browser.open(f"/u/{person.username}")
        browser.wait_for(".profile-avatar .avatar")
        assert overflow(browser) <= width, f"the page is {overflow(browser)} px wide at {width} px"
        for selector in (".settings-link", ".log-out", ".edit-profile"):
            box = browser.find(selector).rect
            assert box["x"] >= 0 and box["x"] + box["width"] <= width, f"{selector} is on screen at {width} px"
        avatar = browser.find(".profile-avatar").rect
        assert avatar["width"] >= 60, f"the profile photo keeps its size at {width} px ({avatar['width']} px)"
        browser.screenshot(f"own-profile-{width}")
        browser.click(".settings-link")
        browser.wait_for("#delete-password")


def test_a_short_wrong_password_is_just_wrong(browsers, sign_up):
    person = sign_up("forgetful")
    browser = browsers()
    browser.allowed_errors = ("status of 401",)
    browser.open("/login")
    for password in ("wrong", "x" * 80):
        browser.type("#username", person.username)
        browser.type("#password", password)
        browser.click("form button[type=submit]")
        browser.wait_until(lambda: "Wrong username or password" in browser.text(".form-error"))
        assert "bytes" not in browser.text(".form-error")
    answer = requests.post(f"{person.base}/api/v1/sessions", timeout=10,
                           json={"username": person.username, "password": "wrong"})
    assert answer.status_code == 401 and answer.json()["code"] == "invalid_credentials"


def test_deleting_your_account_checks_the_password_before_asking_for_good(browsers, sign_up):
    person = sign_up("leaving")
    browser = browsers()
    browser.allowed_errors = ("status of 422",)
    browser.log_in(person)
    browser.open("/settings")
    browser.type("#delete-password", "not my password")
    browser.click(".danger-zone button[type=submit]")
    browser.wait_until(lambda: "not your password" in browser.text(".danger-zone .form-error"))
    assert not browser.find_all("dialog[open]"), "no confirmation is asked for a wrong password"
    browser.type("#delete-password", "short")
    browser.click(".danger-zone button[type=submit]")
    browser.wait_until(lambda: "not your password" in browser.text(".danger-zone .form-error"))
    assert not browser.find_all("dialog[open]")

    browser.type("#delete-password", PASSWORD)
    browser.click(".danger-zone button[type=submit]")
    browser.wait_for("dialog[open] .button.danger")
    assert "for good" in browser.text("dialog[open]")
    browser.click("dialog[open] .button.danger")
    browser.wait_for("form[aria-label='Log in']")
    assert requests.get(f"{person.base}/api/v1/me", headers=person.headers, timeout=10).status_code == 401


def test_the_composer_fits_a_phone_with_its_alt_text_field(browsers, sign_up):
    person = sign_up("phonesharer")
    phone = browsers(width=390, height=844)
    phone.log_in(person)
    phone.click("a.nav-item[href='/new']")
    phone.find("#photo-input").send_keys(str(PHOTOS / "rocket.jpg"))
    phone.wait_for(".preview-image")
    field = phone.type("#alt-text", "A white rocket on its pad")
    assert overflow(phone) <= 390, f"the page is {overflow(phone)} px wide at 390 px"
    box = field.rect
    assert box["x"] >= 0 and box["x"] + box["width"] <= 390, "the alt text field is on screen"
    assert phone.find("label[for='alt-text']").text == "Alt text"
    assert "no description" in phone.text("#alt-text-help"), "the field says what happens without it"
    phone.wait_until(lambda: "25 / 1500" in phone.text(".counter"), message="the alt text counts its characters")
    phone.screenshot("composer-alt-text-phone")
