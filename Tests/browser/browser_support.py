"""Helpers for the browser tests: headless Chromium driven by Selenium (Debian's chromium and chromium-driver),
people with accounts, and screenshots of what the tests see."""
import json
import pathlib
import shutil

import pytest
import requests
from axe_playwright_python.base import AXE_SCRIPT
from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

ROOT = pathlib.Path(__file__).resolve().parents[2]
PHOTOS = ROOT / "Tests" / "TestFixtures" / "photos"
SCREENSHOTS = ROOT / "Tests" / "browser" / "screenshots"
PASSWORD = "correct horse"


def chromium_paths() -> tuple[str, str]:
    browser = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    driver = shutil.which("chromedriver") or "/usr/bin/chromedriver"
    if not browser or not pathlib.Path(driver).exists():
        pytest.fail("Chromium and chromedriver are missing: run scripts/install-deps.sh --test")
    return browser, driver


class Person:
    """Someone with an account, reachable through the API and, once opened, through a browser."""

    def __init__(self, base: str, username: str, token: str):
        self.base, self.username, self.token = base, username, token

    @property
    def headers(self) -> dict:
        return {"Authorization": f"Bearer {self.token}"}

    def api(self, method: str, path: str, **kwargs):
        response = requests.request(method, f"{self.base}/api/v1{path}", headers=self.headers, timeout=30, **kwargs)
        response.raise_for_status()
        return response.json() if response.content else None

    def post_photo(self, name: str = "chelsea.jpg", caption: str = "") -> dict:
        with open(PHOTOS / name, "rb") as photo:
            return self.api("POST", "/posts", files={"image": photo}, data={"caption": caption})

    def post_album(self, names: list[str], caption: str = "", alt_texts: list[str | None] = ()) -> dict:
        """Posts an album of `names`, in order, each uploaded first with its alt text (None or absent: none)."""
        uploads = []
        for index, name in enumerate(names):
            fields = {"altText": alt_texts[index]} if index < len(alt_texts) and alt_texts[index] else {}
            with open(PHOTOS / name, "rb") as photo:
                uploads.append(self.api("POST", "/uploads", files={"image": photo}, data=fields)["id"])
        return self.api("POST", "/posts", json={"caption": caption, "uploads": uploads})


class Browser:
    """One Chromium window with its own storage (so its own session)."""

    def __init__(self, base: str, width: int = 1280, height: int = 900, scheme: str = "light"):
        browser, driver = chromium_paths()
        options = webdriver.ChromeOptions()
        options.binary_location = browser
        for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                         f"--window-size={width},{height}", "--hide-scrollbars", "--force-device-scale-factor=1"):
            options.add_argument(argument)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        self.driver = webdriver.Chrome(options=options, service=Service(executable_path=driver))
        if width < 500:
            # Desktop windows have a minimum width; a phone's screen (and touch) is emulated instead.
            self.driver.execute_cdp_cmd(
                "Emulation.setDeviceMetricsOverride",
                {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": True},
            )
            self.driver.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 5})
        # The system's colour scheme, as the page's media queries see it.
        self.driver.execute_cdp_cmd(
            "Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": scheme}]})
        self.base = base
        self.console: list[dict] = []

    def open(self, path: str = "/"):
        self.driver.get(self.base + path)

    def log_in(self, person: Person):
        self.open("/login")
        self.type("#username", person.username)
        self.type("#password", PASSWORD)
        self.click("form button[type=submit]")
        self.wait_for(".feed-header")

    def find(self, selector: str, within=None):
        return (within or self.driver).find_element(By.CSS_SELECTOR, selector)

    def find_all(self, selector: str, within=None):
        return (within or self.driver).find_elements(By.CSS_SELECTOR, selector)

    def wait_for(self, selector: str, timeout: float = 15):
        return WebDriverWait(self.driver, timeout).until(EC.visibility_of_element_located((By.CSS_SELECTOR, selector)))

    def wait_present(self, selector: str, timeout: float = 15):
        """Waits for an element to be in the page, shown or not (a file input is hidden behind its label)."""
        return WebDriverWait(self.driver, timeout).until(EC.presence_of_element_located((By.CSS_SELECTOR, selector)))

    def wait_until(self, condition, timeout: float = 15, message: str = ""):
        """Waits for `condition`; an element it read that the page has just redrawn (a live update replacing it)
        counts as "not yet", not as a failure."""
        wait = WebDriverWait(self.driver, timeout, ignored_exceptions=(StaleElementReferenceException,))
        return wait.until(lambda _: condition(), message)

    def click(self, selector: str, within=None):
        # The element may be on its way (a page still rendering after the click before): waited for, as `type` does.
        element = WebDriverWait(self.driver, 15).until(lambda _: self.find(selector, within))
        self.driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
        WebDriverWait(self.driver, 10).until(EC.element_to_be_clickable(element))
        element.click()
        return element

    def type(self, selector: str, text: str):
        element = self.wait_for(selector)
        element.clear()
        element.send_keys(text)
        return element

    def card(self, post_id: int):
        return self.wait_for(f'article.card[data-post-id="{post_id}"]')

    def text(self, selector: str, within=None) -> str:
        return self.find(selector, within).text

    def screenshot(self, name: str):
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        self.driver.save_screenshot(str(SCREENSHOTS / f"{name}.png"))

    def accessibility_violations(self) -> list[str]:
        """What axe-core (from the axe-playwright-python package, 4.12) finds against WCAG 2.1 A and AA on the page as it
        is now: one line per rule and element."""
        self.driver.execute_script(AXE_SCRIPT)
        self.driver.set_script_timeout(60)
        # Only the findings come back: the whole result holds DOM references that take minutes to serialise.
        violations = json.loads(self.driver.execute_async_script(
            """
            const done = arguments[arguments.length - 1];
            axe.run(document, {runOnly: {type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]}})
              .then((results) => done(JSON.stringify(results.violations.map((violation) => ({
                id: violation.id, impact: violation.impact,
                nodes: violation.nodes.map((node) => ({target: node.target, summary: node.failureSummary})),
              })))), (error) => done(JSON.stringify([{id: "axe-error", impact: String(error), nodes: []}])));
            """))
        return [
            f"{violation['id']} ({violation['impact']}): {node['target']} {node['summary']}"
            for violation in violations
            for node in violation["nodes"] or [{"target": "", "summary": ""}]
        ]

    def console_errors(self, allow: tuple[str, ...] = ()) -> list[str]:
        """Severe console messages since the last call, except those containing an allowed text."""
        self.console += self.driver.get_log("browser")
        errors = [entry["message"] for entry in self.console if entry["level"] == "SEVERE"]
        self.console = []
        return [message for message in errors if not any(text in message for text in allow)]

    def quit(self):
        self.driver.quit()
