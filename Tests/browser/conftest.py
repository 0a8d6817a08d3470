"""Browser fixtures: people signed up through the API and browsers that are closed (and checked for console
errors) after each test."""
import secrets

import pytest
import requests

from browser_support import PASSWORD, Browser, Person

@pytest.fixture
def sign_up(server):
    """Creates people with fresh usernames: sign_up("alice") → Person named alice_<random>."""

    def create(name: str) -> Person:
        username = f"{name}_{secrets.token_hex(3)}"
        body = {"username": username, "password": PASSWORD, "displayName": name.title()}
        answer = requests.post(f"{server}/api/v1/accounts", json=body, timeout=30)
        answer.raise_for_status()
        return Person(server, username, answer.json()["token"])

    return create


@pytest.fixture
def browsers(server):
    """Opens browsers on demand: browsers() or browsers(width=390, height=844, scheme="dark"); all are closed afterwards, and a
    test fails if any of them logged an unexpected console error (tests that expect some check them themselves)."""
    opened: list[Browser] = []

    def open_browser(**size) -> Browser:
        browser = Browser(server, **size)
        opened.append(browser)
        return browser

    yield open_browser
    try:
        for browser in opened:
            errors = browser.console_errors(allow=getattr(browser, "allowed_errors", ()))
            assert errors == [], f"console errors: {errors}"
    finally:
        for browser in opened:
            browser.quit()
