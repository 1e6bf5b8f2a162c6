#!/usr/bin/python3
"""`hawala app` end to end in a real headless Chromium (Debian's chromium + chromedriver,
Debian's python3-selenium; Selenium downloads nothing).

Each scenario starts its own `hawala app --no-open --port 0` on a fresh HAWALA_HOME, reads the
one-time link from its first stdout line and drives the pages as a person would — on a phone
(390 × 844, Chromium's mobile emulation). The layout sweep then opens every page at 1280 × 900
and at 390 × 844, light and dark: no page scrolls sideways, axe-core (.build/axe/axe.min.js,
scripts/install-axe.sh) finds no serious or critical violation. With `--screens DIR` it saves a
screenshot of every page at both sizes there (docs/screens).

Usage: scripts/app_e2e.py [--binary .build/debug/hawala] [--screens DIR]
Exit 0 when every scenario passed; one line per scenario.
"""
import argparse
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import traceback

from selenium import webdriver
from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException, TimeoutException, WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

PASSWORD = "correct horse battery"
ABANDON = ["abandon"] * 11 + ["about"]
# BIP84 testnet, m/84'/1'/0'/0/0 of "abandon … about", as bip-utils derives it.
ABANDON_TESTNET_BTC = "tb1q6rz28mcfaxtmd6v789l9rrlrusdprr9pqcpvkl"


class App:
    """One `hawala app` process on its own home."""

    def __init__(self, binary, name):
        self.folder = tempfile.mkdtemp(prefix=f"hawala-e2e-{name}-")
        env = dict(os.environ, HAWALA_HOME=os.path.join(self.folder, "home"), NO_COLOR="1")
        self.log = open(os.path.join(self.folder, "app.log"), "w+")
        self.process = subprocess.Popen([binary, "app", "--no-open", "--port", "0"], env=env, stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=self.log, text=True)
        line = self.process.stdout.readline().strip()
        if not line.startswith("http://127.0.0.1:"):
            raise RuntimeError(f"hawala app printed {line!r} first")
        self.link = line
        self.base = line.split("/start")[0]

    def fresh_link(self):
        """Enter in the app's terminal: a new one-time sign-in link on stdout."""
        self.process.stdin.write("\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline().strip()
        if not line.startswith(self.base + "/start?token="):
            raise RuntimeError(f"Enter printed {line!r}")
        return line

    def stop(self):
        """SIGINT, as Ctrl-C sends it: the app ends within 2 s, event streams open or not."""
        started = time.monotonic()
        self.process.send_signal(signal.SIGINT)
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            raise AssertionError("hawala app still ran 10 s after SIGINT")
        finally:
            self.log.close()
            shutil.rmtree(self.folder, ignore_errors=True)
        took = time.monotonic() - started
        if took > 2.5:
            raise AssertionError(f"hawala app took {took:.1f} s to stop after SIGINT")


def free_port():
    """A free port on 127.0.0.1 (bound by the kernel, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def stop_process(process):
    """SIGTERM (a graceful shutdown), SIGKILL after 10 s."""
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()


DOWNLOADS = tempfile.mkdtemp(prefix="hawala-e2e-downloads-")
BACKUP_PASSWORD = "orbit candle meadow thunder salmon"


PHONE = (390, 844)
LAPTOP = (1280, 900)
AXE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".build", "axe", "axe.min.js")


def browser(size=PHONE):
    """Headless Chromium: a phone (mobile emulation, touch) at PHONE, a window otherwise."""
    options = webdriver.ChromeOptions()
    options.add_experimental_option("prefs", {"download.default_directory": DOWNLOADS, "download.prompt_for_download": False})
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--no-first-run"):
        options.add_argument(flag)
    if size == PHONE:
        options.add_experimental_option("mobileEmulation", {"deviceMetrics": {"width": size[0], "height": size[1], "pixelRatio": 2, "touch": True}})
    else:
        options.add_argument(f"--window-size={size[0]},{size[1]}")
    options.binary_location = "/usr/bin/chromium"
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    driver.set_page_load_timeout(30)
    return driver


class Scenario:
    def __init__(self, driver, screens, binary=None):
        self.driver = driver
        self.screens = screens
        self.binary = binary

    def wait(self, condition, timeout=20):
        """Waits for `condition(driver)`; a page being replaced meanwhile is not an error (an
        element gone stale, or chromedriver's "node does not belong to the document")."""
        return WebDriverWait(self.driver, timeout, ignored_exceptions=(NoSuchElementException, StaleElementReferenceException,
                                                                        WebDriverException)).until(condition)

    def wait_for(self, css, timeout=20):
        return self.wait(lambda d: d.find_element(By.CSS_SELECTOR, css), timeout)

    def body(self):
        return self.wait(lambda d: d.find_element(By.TAG_NAME, "body").text)

    def wait_text(self, text, timeout=20):
        self.wait(lambda d: text in d.find_element(By.TAG_NAME, "body").text, timeout)

    def click(self, text):
        """Clicks the button or link with this text."""
        for element in self.driver.find_elements(By.CSS_SELECTOR, "button, a"):
            if element.text.strip() == text and element.is_displayed():
                element.click()
                return
        raise AssertionError(f"no button or link {text!r} on {self.driver.current_url}")

    def submit(self, css="form.stack button[type=submit]"):
        """Submits the form and waits for the answer (the page it was on gone): a text the
        page already shows, a hint written as one types, must not pass for the server's."""
        before = self.driver.current_url
        self.driver.find_element(By.CSS_SELECTOR, css).click()
        self.wait(lambda d: d.current_url != before and d.execute_script("return document.readyState") == "complete")

    def fill(self, field_id, text):
        field = self.driver.find_element(By.ID, field_id)
        field.clear()
        field.send_keys(text)

    def active(self):
        return self.driver.switch_to.active_element

    def shot(self, name):
        if self.screens:
            self.driver.save_screenshot(os.path.join(self.screens, f"{name}.png"))

    def check(self, condition, what):
        if not condition:
            raise AssertionError(what)

    def text_of(self, element_id):
        """An element's text, shown or not (inside a closed <details>)."""
        return self.driver.find_element(By.ID, element_id).get_attribute("textContent").strip()

    def no_sideways_scroll(self, where):
        widths = self.driver.execute_script("return [document.documentElement.scrollWidth, document.documentElement.clientWidth]")
        if widths[0] > widths[1]:
            # What sticks out, named, so the failure says where to look.
            wide = self.driver.execute_script("""const w = document.documentElement.clientWidth;
                return [...document.querySelectorAll('body *')].map(e => [e, e.getBoundingClientRect().right]).sort((a, b) => b[1] - a[1])
                  .slice(0, 3).map(([e, r]) => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + (e.className ? '.' + String(e.className).replace(/ /g, '.') : '') + ' ' + r.toFixed(1))
                  .concat([...document.querySelectorAll('body *')].filter(e => e.scrollWidth > e.clientWidth + 1 && e.clientWidth > 0).slice(-3)
                  .map(e => 'overflowing ' + e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + '.' + String(e.className) + ' ' + e.scrollWidth + '>' + e.clientWidth))""")
            self.check(False, f"{where} scrolls sideways: {widths[0]} px of content in {widths[1]} px ({', '.join(wide)})")

    def above_the_fold(self, css, where):
        bottom, height = self.driver.execute_script(
            "const r = document.querySelector(arguments[0]).getBoundingClientRect(); return [r.bottom, window.innerHeight]", css)
        self.check(bottom <= height, f"{where}: {css} ends at {bottom:.0f} px, below the fold ({height} px)")

    def axe(self, where):
        """axe-core on the page: the serious and critical violations, as a list (empty: clean)."""
        if not self.driver.execute_script("return !!window.axe"):
            with open(AXE, encoding="utf-8") as source:
                self.driver.execute_script(source.read())
        found = self.driver.execute_async_script("""
            const done = arguments[arguments.length - 1];
            axe.run(document, {resultTypes: ["violations"]}).then(r => done(r.violations
              .filter(v => v.impact === "serious" || v.impact === "critical")
              .map(v => v.id + " (" + v.impact + "): " + v.nodes.slice(0, 3).map(n => n.target.join(" ")).join(", "))))
              .catch(e => done(["axe failed: " + e]));
        """)
        self.check(not found, f"axe on {where}: {found}")

    def theme(self, dark):
        self.driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "dark" if dark else "light"}]})


def create_and_pass_the_quiz(s: Scenario, app: App):
    """Onboarding on a fresh home: create, see the words, a wrong answer, then the quiz passed by
    keyboard only (Enter verifies, Esc clears, Tab order); the badge goes away."""
    d = s.driver
    d.get(app.link)
    s.wait_text("Welcome to Hawala")
    s.check("/start" not in d.current_url, "the token stays out of the address bar")
    s.click("Create a new wallet")
    s.wait_for("#password")
    s.fill("name", "Savings")
    s.fill("password", PASSWORD)
    s.fill("repeat", PASSWORD + "x")
    s.submit()
    s.wait_text("The two passwords differ")
    s.fill("password", PASSWORD)
    s.fill("repeat", PASSWORD)
    s.submit()
    s.wait_text("Your wallet is its words.")
    s.active().send_keys(Keys.ENTER)  # "Show my words" has the focus
    listing = s.wait_for("ol.words")
    s.check("Never share your words." in s.body(), "the words page warns never to share them")
    s.check(not any(w.is_displayed() for w in listing.find_elements(By.CSS_SELECTOR, ".word")), "the words are hidden until revealed")
    words = []
    for summary in listing.find_elements(By.CSS_SELECTOR, "summary"):
        summary.click()
        shown = [w.text for w in listing.find_elements(By.CSS_SELECTOR, ".word") if w.is_displayed()]
        s.check(len(shown) == 1, f"one word shows at a time, not {len(shown)}")
        words.append(shown[0] if shown else "")
    s.check(len(words) == 12 and all(re.fullmatch("[a-z]+", w) for w in words), f"12 words shown as text, one at a time: {words}")
    s.no_sideways_scroll("the words on a phone")
    s.axe("the words")
    s.click("I wrote them down — check me")
    answer = s.wait_for("#answer")
    s.check(s.active() == answer, "the answer field has the focus")
    s.check(answer.get_attribute("autocomplete") == "off" and answer.get_attribute("spellcheck") == "false", "no autocomplete, no spellcheck")
    s.axe("the quiz")
    # Tab order: the answer, Verify, See the words again, Back up later.
    order = []
    for _ in range(3):
        s.active().send_keys(Keys.TAB)
        order.append(s.active().text)
    s.check(order == ["Verify", "See the words again", "Back up later"], f"Tab order {order}")
    s.wait_for("#answer").click()
    label = d.find_element(By.CSS_SELECTOR, "label[for=answer]").text
    position = int(re.search(r"Word #(\d+)", label).group(1))
    wrong = "zoo" if words[position - 1] != "zoo" else "abandon"
    s.active().send_keys(wrong)
    s.active().send_keys(Keys.ESCAPE)
    s.check(d.find_element(By.ID, "answer").get_attribute("value") == "", "Esc clears the answer")
    s.active().send_keys(wrong + Keys.ENTER)
    s.wait_text(f"That is not word #{position}.")
    s.check(s.active().get_attribute("id") == "answer", "a typo is typed again in place, the focus on the answer")
    questions = 0
    while True:
        try:
            field = s.wait_for("#answer", timeout=5)
        except TimeoutException:
            break
        label = d.find_element(By.CSS_SELECTOR, "label[for=answer]").text
        position = int(re.search(r"Word #(\d+)", label).group(1))
        s.check(s.active() == field, "the focus is on the answer")
        field.send_keys(words[position - 1] + Keys.ENTER)
        questions += 1
        s.wait(lambda d: d.find_element(By.ID, "answer") != field if d.find_elements(By.ID, "answer") else True, 10)
        if "Every word was right" in s.body():
            break
    s.check(3 <= questions <= 5, f"3 to 5 questions, asked {questions}")
    s.wait_text("Every word was right")
    s.active().send_keys(Keys.ENTER)  # "I keep the words safe"
    s.wait_for("form.setup")  # the home: the wallet is ready, Lightning to choose
    body = s.body()
    s.check("“Savings” is ready" in body and "Back up “Savings”" not in body, "backed up: no reminder left")
    app.words = words
    return words


class Vault:
    """A `hawala-vault serve` on a free loopback port, SQLite in a temporary folder, one user."""

    def __init__(self, binary):
        self.folder = tempfile.mkdtemp(prefix="hawala-e2e-vault-")
        env = dict(os.environ, HAWALA_HOME=self.folder, NO_COLOR="1")
        database = "sqlite:" + os.path.join(self.folder, "vault.sqlite")
        self.token = subprocess.run([binary, "user", "add", "alice", "--db", database], env=env, capture_output=True,
                                    text=True, timeout=60, check=True).stdout.strip()
        self.process = subprocess.Popen([binary, "serve", "--port", "0", "--db", database], env=env,
                                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        line = self.process.stdout.readline().strip()
        match = re.search(r"vault listening on (http://127\.0\.0\.1:\d+)", line)
        if not match:
            raise RuntimeError(f"hawala-vault printed {line!r} first")
        self.url = match.group(1)

    def stop(self):
        stop_process(self.process)
        shutil.rmtree(self.folder, ignore_errors=True)


def vault_shares_and_paper(s: Scenario, app: App):
    """The vault: log in, back up now, turn automatic backups on; the wallet's Shamir shares on a
    page that prints one share a sheet without the app's header; a paper sheet downloaded."""
    d = s.driver
    vault = Vault(s.binary + "-vault")
    try:
        d.get(app.base + "/vault")
        s.fill("vault-url", vault.url)
        s.fill("vault-token", vault.token)
        s.click("Log in")
        s.wait_text("Logged in to " + vault.url)
        s.check(vault.token not in d.page_source, "the token is never shown")
        s.check("now log in to this vault too" in s.body() and "Your words log in to this vault too" in s.body(), "the login binds the words")
        d.find_element(By.XPATH, "//summary[text()='Back up now…']").click()
        s.fill("vault-backup-password", BACKUP_PASSWORD)
        s.fill("vault-backup-repeat", BACKUP_PASSWORD)
        s.fill("vault-wallet-password", PASSWORD)
        s.click("Upload a backup")
        s.wait_text("Uploaded backup")
        s.check(len(d.find_elements(By.CSS_SELECTOR, "ul.backups li")) == 1, "one backup listed")
        d.find_element(By.NAME, "autoBackupEnabled").click()
        s.click("Save the schedule")
        s.wait_text("The schedule is saved.")
        s.check(d.find_element(By.NAME, "autoBackupEnabled").is_selected(), "automatic backups on")
        lose_the_device_keep_the_words(s, app, vault)
    finally:
        vault.stop()

    d.get(app.base + "/backups")
    s.fill("shamir-password", PASSWORD)
    s.click("Make the shares")
    s.wait_text("2 of these 3 shares recover the wallet")
    sheets = d.find_elements(By.CSS_SELECTOR, "section.share-sheet")
    s.check(len(sheets) == 3 and all(len(x.find_elements(By.CSS_SELECTOR, ".word")) == 20 for x in sheets), "3 shares of 20 words")
    s.no_sideways_scroll("the shares on a phone")
    d.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "print"})
    try:
        s.check(not d.find_element(By.CSS_SELECTOR, "header.bar").is_displayed(), "printed without the app's header")
        s.check(d.find_element(By.CSS_SELECTOR, "section.share-sheet").value_of_css_property("break-after") == "page", "one share a sheet")
    finally:
        d.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": ""})

    d.get(app.base + "/backups")
    s.click("Download the sheet (PDF)")
    s.wait(lambda _: [f for f in os.listdir(DOWNLOADS) if f == "hawala-paper-lines.pdf"], 30)
    text = subprocess.run(["pdftotext", os.path.join(DOWNLOADS, "hawala-paper-lines.pdf"), "-"], capture_output=True,
                          text=True, timeout=30).stdout
    s.check("Savings" in text and "12." in text, "the sheet names the wallet and has 12 lines")


def lose_the_device_keep_the_words(s: Scenario, app: App, vault):
    """The phone is lost with its vault token; a new one has only the words: restored from them,
    they log in to the vault (the lost phone logged out) and bring its backup back."""
    d = s.driver
    old_cookies = d.get_cookies()
    fresh = App(s.binary, "lost")
    try:
        d.delete_all_cookies()
        d.get(fresh.link)
        s.click("From its 12 or 24 words")
        s.wait_for("#network")
        d.find_element(By.CSS_SELECTOR, "#network option[value=testnet]").click()  # as "Savings" was made
        s.click("Next")
        s.wait_for("#phrase").send_keys(" ".join(app.words))
        s.click("Use these words")
        s.wait_for("#passphrase").send_keys(Keys.ENTER)
        s.wait_text("Are these the first addresses of your wallet?")
        s.click("They match")
        s.wait_for("#name").send_keys("Savings")
        s.fill("password", PASSWORD)
        s.fill("repeat", PASSWORD)
        s.click("Save the wallet")
        s.wait_text("“Savings” is ready", timeout=60)
        d.get(fresh.base + "/vault")
        offered = d.find_element(By.XPATH, "//summary[contains(., 'Log in with your words')]")
        s.check(offered.is_displayed(), "the words login is offered")
        offered.click()
        s.fill("words-vault-url", vault.url)
        s.check(d.find_element(By.NAME, "revokeOthers").is_selected(), "logging the lost device out is the default")
        s.click("Log in with my words")
        s.wait_text("with the words of")
        s.check("1 other login stopped working" in s.body(), "the lost phone's login stopped")
        s.no_sideways_scroll("the vault after a login with the words")
        s.axe("the vault after a login with the words")
        s.fill("restore-password", BACKUP_PASSWORD)
        s.click("Open the backup")
        s.wait_text("Import 1 wallet?")
        s.check('already here as "Savings"' in s.body(), "the backup's wallet is the one restored from the words")
    finally:
        fresh.stop()
    d.delete_all_cookies()
    d.get(app.base + "/")
    for cookie in old_cookies:
        d.add_cookie(cookie)
    d.get(app.base + "/vault")
    s.wait_text("does not accept this token")


def restore_word_by_word_with_a_typo(s: Scenario, app: App):
    """Restore "abandon … about" on testnet, word by word with 4-letter prefixes and one typo
    corrected through a suggestion; the addresses shown are the right ones."""
    d = s.driver
    d.get(app.link)
    s.wait_text("Welcome to Hawala")
    s.click("From its 12 or 24 words")
    s.wait_for("#network")
    d.find_element(By.CSS_SELECTOR, "#network option[value=testnet]").click()
    s.click("Next")
    s.wait_for("#words")
    s.click("Type them one by one")
    for i, word in enumerate(ABANDON):
        field = s.wait_for("#word")
        s.check(d.find_element(By.CSS_SELECTOR, "label[for=word]").text == f"Word #{i + 1} of 12", "the position")
        if i == 3:
            field.send_keys("abandn" + Keys.ENTER)  # the typo
            s.wait_text("word 4 is not in the word list")
            s.check("abandn" not in s.body(), "the typo is not written back into the page")
            s.axe("a word with suggestions")
            d.find_element(By.CSS_SELECTOR, "form.suggestions button[value=abandon]").click()
        else:
            s.active().send_keys(word[:4] + Keys.ENTER)
        s.wait(lambda d: len(d.find_elements(By.CSS_SELECTOR, "ol.entered li")) == i + 1)
    s.wait_for("#passphrase").send_keys(Keys.ENTER)
    s.wait_text("Are these the first addresses of your wallet?")
    s.check(ABANDON_TESTNET_BTC in s.body(), "the first testnet address of abandon…about")
    s.no_sideways_scroll("the addresses to compare")
    s.click("They match")
    s.wait_for("#name").send_keys("Restored")
    s.fill("password", PASSWORD)
    s.fill("repeat", PASSWORD)
    s.click("Save the wallet")
    s.wait_text("“Restored” is ready")
    s.check("Back up “Restored”" not in s.body(), "a restored wallet counts as backed up")


def receive_shows_a_readable_qr(s: Scenario, app: App):
    """The receive page's QR code, screenshotted and decoded with zbarimg, is the address shown."""
    d = s.driver
    d.get(app.base + "/receive")
    figure = s.wait_for("figure.qr")
    address = d.find_element(By.ID, "address").text
    s.check(address == ABANDON_TESTNET_BTC, f"address #0 is {address}")
    s.above_the_fold("figure.qr svg", "the address's QR code on a phone")
    path = os.path.join(app.folder, "qr.png")
    figure.find_element(By.TAG_NAME, "svg").screenshot(path)
    decoded = subprocess.run(["zbarimg", "--quiet", "--raw", path], capture_output=True, text=True, timeout=30).stdout.strip()
    s.check(decoded.lower() in (address, f"bitcoin:{address}"), f"zbarimg read {decoded!r}")
    s.check(not d.find_elements(By.CSS_SELECTOR, "img"), "no images, the QR is inline SVG")
    s.click("New address")
    s.wait(lambda d: d.find_element(By.ID, "address").text != address, 10)
    s.check("address #1" in d.page_source, "the next address")


def export_then_import_into_a_fresh_home(s: Scenario, app: App):
    """Export a .hawala file (a download), open it again in the same home (the conflict is
    shown), then import it into a fresh home: a wrong password, the preview with the first
    address, the wallet password set there, the wallet back."""
    d = s.driver
    d.get(app.base + "/backups")
    s.fill("backup-password", BACKUP_PASSWORD)
    s.fill("backup-repeat", BACKUP_PASSWORD)
    s.fill("export-password", PASSWORD)
    # Seconds of Argon2id: said the moment it is sent, the button waiting (the submit handler runs
    # within requestSubmit, before the page leaves).
    said = d.execute_script("const f = document.querySelector('form[action=\"/backups/export\"]'); f.requestSubmit();"
                            " const b = f.querySelector('button[type=submit]');"
                            " return [f.querySelector('.working-status') && f.querySelector('.working-status').textContent, b.getAttribute('aria-disabled')];")
    s.check(said[0] and "a few seconds" in said[0] and said[1] == "true", f"the export says it is working: {said}")
    s.wait_text("Your backup is ready")
    s.check(not d.find_elements(By.ID, "backup-password"), "the form and its passwords are gone")
    s.wait(lambda _: [f for f in os.listdir(DOWNLOADS) if f.endswith(".hawala")], 60)
    s.check(os.path.basename([f for f in os.listdir(DOWNLOADS) if f.endswith(".hawala")][0]) in s.body(), "the confirmation names the file")
    backup = os.path.join(DOWNLOADS, [f for f in os.listdir(DOWNLOADS) if f.endswith(".hawala")][0])
    s.check(re.fullmatch(r"hawala-backup-\d{4}-\d\d-\d\d\.hawala", os.path.basename(backup)), f"the suggested name: {backup}")

    def open_backup(password):
        d.find_element(By.ID, "import-file").send_keys(backup)
        s.fill("import-password", password)
        s.click("Open the backup")

    d.get(app.base + "/backups")
    open_backup(BACKUP_PASSWORD)
    s.wait_text("Import 1 wallet?")
    s.check('already here as "Restored"' in s.body(), "the same wallet is shown as a conflict")
    s.check(len(d.find_elements(By.CSS_SELECTOR, "input[type=radio]")) == 2, "skip or replace, not keep both")
    s.no_sideways_scroll("the import's preview")
    s.axe("the import's preview")
    s.click("Cancel")
    s.wait_text("Import a .hawala file")

    fresh = App(s.binary, "import")
    try:
        d.delete_all_cookies()
        d.get(fresh.link)
        s.click("From a .hawala backup file")
        s.wait_for("#import-file")
        open_backup("not the password")
        s.wait_text("Wrong password, or the file was changed.")
        open_backup(BACKUP_PASSWORD)
        s.wait_text("Import 1 wallet?")
        s.check(ABANDON_TESTNET_BTC in s.body(), "the preview shows the first address")
        s.fill("password", PASSWORD)
        s.fill("repeat", PASSWORD)
        s.click("Import")
        s.wait_text("Imported")
        s.check('Imported "Restored"' in s.body(), s.body())
        d.get(fresh.base + "/")
        s.wait_text("Restored")
        s.check("Unlock" not in d.title, "the import logged in")
    finally:
        fresh.stop()


def new_wallet(s: Scenario, app: App, name):
    """A wallet made through the create page, its backup left for later."""
    s.driver.get(app.link)
    s.wait_text("Welcome to Hawala")
    s.click("Create a new wallet")
    s.wait_for("#password")
    s.fill("name", name)
    s.fill("password", PASSWORD)
    s.fill("repeat", PASSWORD)
    s.submit()
    s.wait_text("Your wallet is its words.")
    s.click("Back up later")
    s.wait_for("form.setup")


def use_devnet(s: Scenario, app: App, ledger):
    """Lightning by choosing, on the home: devnet (preselected), its ledger shared by the two
    homes (under "Details"); the home then shows the balance."""
    d = s.driver
    d.get(app.base + "/")
    s.check(d.find_element(By.CSS_SELECTOR, "input[value=devnet]").is_selected(), "devnet is the preselected choice")
    # These wallets are testnet wallets (the create page's first choice): real bitcoin is not
    # offered to them, nor its API key (decision 0018).
    s.check(not d.find_elements(By.CSS_SELECTOR, "input[value='spark:mainnet']") and not d.find_elements(By.ID, "settings-api-key"),
            "no real bitcoin, and no API key field, for a testnet wallet")
    d.find_element(By.XPATH, "//summary[text()=\"Details: devnet's ledger\"]").click()
    s.fill("settings-ledger", ledger)
    s.click("Use Lightning")
    s.wait(lambda d: d.find_element(By.ID, "balance").text == "0 sat", 15)


def pay_an_invoice_between_two_wallets(receiver: Scenario, r_app: App, payer: Scenario, p_app: App):
    """Two homes, two app servers, two browsers on one devnet: the receiver makes an invoice, the
    payer previews it, confirms with the password, and the receiver's page says "Paid" without a
    reload (server-sent events)."""
    ledger = os.path.join(r_app.folder, "devnet-ledger")
    new_wallet(receiver, r_app, "Shop")
    new_wallet(payer, p_app, "Buyer")
    use_devnet(receiver, r_app, ledger)
    use_devnet(payer, p_app, ledger)
    p = payer.driver
    p.get(p_app.base + "/lightning")
    payer.fill("fund-amount", "50,000")
    payer.click("Add test money")
    payer.wait_text("Added 50,000 sat of test money.")
    p.get(p_app.base + "/")
    payer.wait(lambda d: d.find_element(By.ID, "balance").text == "50,000 sat", 10)

    r = receiver.driver
    r.get(r_app.base + "/")
    receiver.click("Receive")
    receiver.fill("invoice-amount", "1,234")
    receiver.fill("invoice-description", 'coffee "><script>alert(1)</script>')
    # A phone's share sheet (the Web Share API), stood in for: the page offers Share beside Copy.
    r.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": (
        "Object.defineProperty(navigator, 'share', {configurable: true, value: (data) => { window.hawalaShared = data; return Promise.resolve(); }});")})
    receiver.click("Create the invoice")
    receiver.wait_text("Waiting for the payment")
    r.execute_script("window.hawalaSamePage = true")
    invoice = receiver.text_of("invoice-text")
    share = r.find_element(By.CSS_SELECTOR, "button[data-share=invoice-text]")
    receiver.check(share.is_displayed(), "Share shows where the browser can share")
    share.click()
    shared = receiver.wait(lambda d: d.execute_script("return window.hawalaShared"), 5)
    receiver.check(shared and shared.get("text") == invoice, f"Share hands over the invoice: {shared!r:.60}")
    receiver.check(invoice.startswith("lnbcrt"), f"a regtest invoice: {invoice[:20]}")
    receiver.check("<script>alert(1)</script>" in receiver.body(), "the hostile description is shown as text")
    receiver.wait(lambda d: re.search(r"\(\d+:\d\d left\)", d.find_element(By.ID, "countdown").text), 5)
    receiver.check(r.find_element(By.ID, "invoice-amount").text == "1,234 sat", "the amount, grouped")
    receiver.above_the_fold("#invoice-amount", "the invoice's amount on a phone")
    receiver.above_the_fold("figure.qr svg", "the invoice's QR code on a phone")
    path = os.path.join(r_app.folder, "invoice-qr.png")
    r.find_element(By.CSS_SELECTOR, "figure.qr svg").screenshot(path)
    decoded = subprocess.run(["zbarimg", "--quiet", "--raw", path], capture_output=True, text=True, timeout=30).stdout.strip()
    receiver.check(decoded.lower() == invoice.lower(), f"the QR holds the invoice (zbarimg read {decoded[:24]!r}…)")

    # The send, keyboard only: the box has the focus; Tab to the amount, Enter reviews; the
    # password field has the focus; Enter pays.
    p.get(p_app.base + "/send")
    box = payer.wait_for("#send-input")
    payer.check(payer.active() == box, "the send box has the focus")
    box.send_keys(invoice)
    payer.active().send_keys(Keys.TAB)
    payer.check(payer.active().get_attribute("id") == "send-amount", "Tab: the amount")
    payer.active().send_keys(Keys.ENTER)
    payer.wait_text("Confirm the payment")
    body = payer.body()
    payer.check("1,234 sat" in body and "<script>alert(1)</script>" in body, "the preview shows the amount and the description as text")
    payer.check(payer.active().get_attribute("id") == "pay-password", "the password has the focus")
    payer.no_sideways_scroll("the payment's preview")
    payer.axe("the payment's preview")
    payer.shot("send-preview-390")
    payer.active().send_keys("wrong password" + Keys.ENTER)
    payer.wait_text("Wrong password.")
    payer.check(re.search(r"\d more tr(y|ies) before a wait", payer.body()), "a wrong password says how many tries are left")
    payer.check("Confirm the payment" in payer.body(), "a wrong password keeps the preview")
    payer.fill("pay-password", PASSWORD)
    payer.active().send_keys(Keys.ENTER)
    payer.wait(lambda d: d.find_element(By.ID, "payment-headline").text == "Paid", 20)
    payer.check(re.search(r"Total\s+1,23\d sat", payer.body()), "the receipt's total in whole sats")
    payer.axe("the receipt")
    payer.shot("paid-390")

    receiver.wait(lambda d: d.find_element(By.ID, "invoice-status").text.startswith("Paid"), 20)
    receiver.check(r.execute_script("return window.hawalaSamePage === true"), "Paid arrived without a reload")
    receiver.check("1,234 sat" in r.find_element(By.ID, "invoice-status").text, "the amount received")
    receiver.axe("the invoice, paid")
    receiver.shot("invoice-paid-390")

    # The receipt is a page of its own (POST, then redirect, then GET): a reload shows it again
    # and pays nothing; a form's address opened as a page gets a styled page with the way home.
    receipt = p.current_url
    p.refresh()
    payer.wait(lambda d: d.find_element(By.ID, "payment-headline").text == "Paid", 10)
    payer.check(p.current_url == receipt and "/answer/" in receipt, f"the receipt has an address: {receipt}")
    p.get(p_app.base + "/lightning/pay")
    payer.wait_text("This address is where a form is sent, not a page to open.")
    payer.check(p.find_elements(By.CSS_SELECTOR, "link[rel=stylesheet]") and p.find_elements(By.XPATH, "//a[@href='/']"), "styled, with the way home")

    # The home updates itself when money arrives: the receiver's home is open while the payer
    # pays a second invoice; the balance and the latest payments change without a reload.
    r.get(r_app.base + "/receive")
    receiver.fill("invoice-amount", "2,000")
    receiver.fill("invoice-description", "second round")
    receiver.click("Create the invoice")
    receiver.wait_text("Waiting for the payment")
    second = receiver.text_of("invoice-text")
    r.get(r_app.base + "/")
    receiver.wait_for("#balance")
    before = r.find_element(By.ID, "balance").text
    r.execute_script("window.hawalaSamePage = true")
    time.sleep(1)  # the page's event stream is open
    p.get(p_app.base + "/send")
    payer.wait_for("#send-input").send_keys(second)
    payer.click("Review the payment")
    payer.wait_for("#pay-password").send_keys(PASSWORD + Keys.ENTER)
    payer.wait(lambda d: d.find_element(By.ID, "payment-headline").text == "Paid", 20)
    receiver.wait(lambda d: d.find_element(By.ID, "balance").text != before, 20)
    receiver.check(r.execute_script("return window.hawalaSamePage === true"), "the home updated in place")
    receiver.check(r.find_element(By.ID, "balance").text == "3,234 sat", f"the new balance: {r.find_element(By.ID, 'balance').text}")
    receiver.wait_text("second round")

    # The largest amounts into an any-amount invoice: a sentence by the field, the app alive.
    r.get(r_app.base + "/receive")
    receiver.click("Create the invoice")
    receiver.wait_text("Waiting for the payment")
    any_amount = receiver.text_of("invoice-text")
    for huge in ("99,999,999,999,999", "18446744073709551615", "9007199254740993"):
        p.get(p_app.base + "/send")
        payer.wait_for("#send-input").send_keys(any_amount)
        payer.fill("send-amount", huge)
        payer.click("Review the payment")
        problem = payer.wait_for("#send-amount-problem").text
        payer.check(problem and "Confirm the payment" not in payer.body(), f"{huge}: said by the amount ({problem})")
    p.get(p_app.base + "/")
    payer.wait_for("#balance")

    # The Lock button keeps what was typed: unlocked again, the send form holds it.
    p.get(p_app.base + "/send")
    payer.wait_for("#send-input").send_keys("half typed")
    payer.click("Lock")
    payer.wait_for("#password").send_keys(PASSWORD + Keys.ENTER)
    payer.wait(lambda d: d.find_element(By.ID, "send-input").get_attribute("value") == "half typed", 20)

    # The history: both sides, a filter, a search, the detail and the CSV download.
    p.get(p_app.base + "/history?type=send")
    payer.wait_text("coffee")
    payer.check(re.search(r"−1,23\d sat", payer.body()), "the payer's history shows the payment sent (with its fee)")
    p.get(p_app.base + "/history?type=receive&q=coffee")
    payer.wait_text("No payments match.")
    r.get(r_app.base + "/history?q=COFFEE")
    receiver.wait_text("+1,234 sat")
    r.find_element(By.CSS_SELECTOR, "ul.payments a").click()
    receiver.wait(lambda d: "Payment hash" in d.page_source)
    csv = r.execute_script("""
        const answer = await fetch("/history/export?format=csv");
        return [answer.status, answer.headers.get("content-disposition"), await answer.text()];
    """)
    receiver.check(csv[0] == 200 and "hawala-payments.csv" in csv[1] and "received,completed,1234," in csv[2], f"the CSV download: {csv[:2]}")


SWEPT = [("home", "/"), ("send", "/send"), ("receive", "/receive"), ("receive-address", "/receive?chain=bitcoin"),
         ("history", "/history"), ("wallets", "/wallets"), ("backups", "/backups"), ("vault", "/vault"), ("settings", "/settings"),
         ("lightning", "/lightning"), ("exit", "/lightning/exit"), ("create", "/create"), ("restore", "/restore"), ("restore-shares", "/restore/shares"),
         ("connections", "/connections")]


def sweep(s: Scenario, name, size):
    """The page as it is: no sideways scrolling, axe clean in light and dark, its screenshot."""
    where = f"{name} at {size[0]} px"
    s.no_sideways_scroll(where)
    for dark in (False, True):
        s.theme(dark)
        s.axe(where + (" (dark)" if dark else ""))
    s.theme(False)
    s.shot(f"{name}-{size[0]}")


def every_page_at_both_sizes(phone: Scenario, app: App, laptop: Scenario):
    """Every page reachable from the menu, and the welcome, unlock, invoice and payment pages, at
    390 × 844 and 1280 × 900: no sideways scrolling, axe clean in both themes; a second browser
    signs in with the fresh link Enter prints."""
    p, l = phone.driver, laptop.driver
    p.get(app.link)
    phone.wait_text("Welcome to Hawala")
    sweep(phone, "welcome", PHONE)
    l.get(app.fresh_link())
    laptop.wait_text("Welcome to Hawala")
    sweep(laptop, "welcome", LAPTOP)
    new_wallet_here(phone, app, "Everyday")
    phone.click("Use Lightning")  # devnet, its ledger under the home
    phone.wait(lambda d: d.find_element(By.ID, "balance").text == "0 sat", 15)
    l.get(app.base + "/")
    laptop.wait_for("#password")
    sweep(laptop, "unlock", LAPTOP)
    laptop.fill("password", PASSWORD)
    laptop.active().send_keys(Keys.ENTER)
    laptop.wait_for("#balance")
    p.get(app.base + "/lightning")
    phone.fill("fund-amount", "1 000 000")
    phone.click("Add test money")
    phone.wait_text("Added 1,000,000 sat of test money.")
    # Devnet's LNURL server on the home's ledger: a Lightning address of one's own (its card on
    # the receive page, swept below) and a voucher pasted in the send box (its page swept here).
    home = os.path.join(app.folder, "home")
    server = subprocess.Popen([phone.binary, "ln", "devnet", "serve", "--port", str(free_port())], env=dict(os.environ, HAWALA_HOME=home),
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        phone.check(server.stdout.readline().startswith("devnet LNURL server on http://127.0.0.1:"), "the devnet LNURL server runs")
        p.get(app.base + "/lightning")
        phone.fill("address-name", "everyday")
        phone.click("Get this address")
        phone.wait_text("Your Lightning address is everyday@127.0.0.1:")
        voucher = subprocess.run([phone.binary, "ln", "devnet", "voucher", "--amount", "5000"], env=dict(os.environ, HAWALA_HOME=home),
                                 capture_output=True, text=True, check=True).stdout.strip()
        p.get(app.base + "/send")
        phone.fill("send-input", voucher)
        phone.click("Review the payment")
        phone.wait_text("Receive 1 sat to 5,000 sat from 127.0.0.1")
        sweep(phone, "withdraw", PHONE)
        phone.click("Receive")
        phone.wait_text("Received 5,000 sat.")
    finally:
        stop_process(server)
    # A withdrawal to a Bitcoin address: each speed priced, the medium one chosen, the password.
    p.get(app.base + "/send")
    phone.fill("send-input", "bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080")
    phone.fill("send-amount", "20 000")
    phone.click("Review the payment")
    phone.wait_text("Send bitcoin on-chain")
    phone.check("20,000 sat arrives · fee 705 sat" in phone.body(), "the medium speed's figures")
    sweep(phone, "send-onchain", PHONE)
    phone.fill("onchain-password", PASSWORD)
    phone.click("Send")
    phone.wait_text("Sent: waiting for confirmation")
    p.get(app.base + "/receive")
    phone.wait_text("everyday@127.0.0.1:")
    phone.check("Bitcoin into Lightning" in phone.body(), "the deposit address card")
    phone.fill("invoice-amount", "21000")
    phone.fill("invoice-description", "Lunch")
    phone.click("Create the invoice")
    phone.wait_text("Waiting for the payment")
    invoice_path = p.current_url.split(app.base, 1)[1]
    connection_made_and_revoked(phone, app)
    for scenario, size in ((phone, PHONE), (laptop, LAPTOP)):
        d = scenario.driver
        for name, path in SWEPT + [("invoice", invoice_path)]:
            d.get(app.base + path)
            scenario.wait_for("main")
            sweep(scenario, name, size)
            if name == "history":
                d.find_element(By.CSS_SELECTOR, "ul.payments a").click()
                scenario.wait_for("#payment-headline")
                sweep(scenario, "payment", size)
        # The menu: behind one button on the phone, in the bar on the laptop; the page marked.
        d.get(app.base + "/history")
        menu = d.find_element(By.CSS_SELECTOR, "details.menu summary")
        current = d.find_element(By.CSS_SELECTOR, "nav a[aria-current=page]")
        scenario.check(current.get_attribute("textContent") == "History", "the current page is marked in the menu")
        visible = lambda element: d.execute_script("return arguments[0].checkVisibility()", element)
        if size == PHONE:
            scenario.check(visible(menu) and not visible(current), "the menu waits behind its button")
            menu.click()
            scenario.check(visible(current), "the menu opens")
            scenario.shot("menu-390")
        else:
            scenario.check(not visible(menu) and visible(current), "the menu is in the bar")
    # Dark, for the record.
    phone.theme(True)
    p.get(app.base + "/")
    phone.wait_for("#balance")
    phone.shot("home-dark-390")
    phone.theme(False)


def connection_made_and_revoked(s: Scenario, app: App):
    """A program's connection on the phone: a wrong budget sent back with what was typed, then
    made (the password again); its URI shown once as text and as a QR code zbarimg reads; the
    CLI lists it; revoked from its card, the CLI says so too."""
    d = s.driver
    d.get(app.base + "/connections")
    s.wait_text("Programs that pay with")
    s.check(not d.find_elements(By.ID, "service-status"), "no word of the NWC service while no connection needs it")
    s.fill("connection-name", "compute-agent")
    s.fill("connection-budget", "lots")
    s.fill("connection-relays", "ws://127.0.0.1:7447")
    s.fill("connection-password", PASSWORD)
    s.click("Make the connection")
    s.wait_text("budget is sats or an amount of a currency")
    s.check(d.find_element(By.ID, "connection-name").get_attribute("value") == "compute-agent", "the name typed is kept")
    s.fill("connection-budget", "5 000")
    s.fill("connection-max", "2000")
    s.fill("connection-password", PASSWORD)
    s.click("Make the connection")
    s.wait_text("“compute-agent” is ready")
    sweep(s, "connection-new", PHONE)
    uri = d.find_element(By.ID, "connection-uri").get_attribute("textContent")
    s.check(uri.startswith("nostr+walletconnect://") and "secret=" in uri and "relay=ws%3A%2F%2F127.0.0.1%3A7447" in uri, f"the URI: {uri[:40]}…")
    path = os.path.join(app.folder, "connection-qr.png")
    d.find_element(By.CSS_SELECTOR, "figure.qr svg").screenshot(path)
    decoded = subprocess.run(["zbarimg", "--quiet", "--raw", path], capture_output=True, text=True, timeout=30).stdout.strip()
    s.check(decoded == uri, f"the QR holds the URI (zbarimg read {decoded[:30]!r}…)")
    home = dict(os.environ, HAWALA_HOME=os.path.join(app.folder, "home"))
    listed = json.loads(subprocess.run([s.binary, "connect", "list", "--json"], env=home, capture_output=True, text=True, check=True).stdout)
    s.check([(c["name"], c["state"], c["budgetSats"], c["maxPaymentSats"]) for c in listed] == [("compute-agent", "live", 5000, 2000)], f"the CLI lists it: {listed}")
    s.check(uri.split("secret=")[1][:64] not in json.dumps(listed), "the secret is not kept")
    s.click("Done")
    s.wait_text("Spent 0 of 5,000 sat, renews")
    s.wait_text("Service: Not running")
    s.check(d.find_elements(By.CSS_SELECTOR, ".connection meter"), "the spent/budget bar")
    s.check("nostr+walletconnect" not in d.page_source, "the URI is not on the list")
    d.find_element(By.XPATH, "//summary[text()='Revoke…']").click()
    s.click("Revoke “compute-agent”")
    s.wait_text("Revoked “compute-agent”: its next request is refused.")
    listed = json.loads(subprocess.run([s.binary, "connect", "list", "--json"], env=home, capture_output=True, text=True, check=True).stdout)
    s.check(listed[0]["state"] == "revoked", "revoked for the CLI too")
    s.check(not d.find_elements(By.ID, "service-status"), "no word of the service once no live connection needs it")
    # For an AI agent: MCP only — no URI, no relay, the MCP client's configuration instead.
    d.find_element(By.XPATH, "//summary[text()='New connection']").click()
    s.fill("connection-name", "gpu-agent")
    d.find_element(By.NAME, "for-nwc").click()
    d.find_element(By.NAME, "for-mcp").click()
    s.fill("connection-password", PASSWORD)
    s.click("Make the connection")
    s.wait_text("For an AI agent (MCP)")
    configuration = d.find_element(By.ID, "mcp-configuration").text
    s.check('"args":["mcp","--connection","gpu-agent"' in configuration and not d.find_elements(By.ID, "connection-uri"), f"MCP only: {configuration}")
    sweep(s, "connection-mcp", PHONE)


NOSTR_PYTHON = os.path.abspath(".build/nostr-venv/bin/python")
LEGAL = "legal winner thank year wave sausage worth useful legal winner thank yellow"


def approvals_while_a_program_waits(s: Scenario, app: App):
    """A program pays over Nostr Wallet Connect (rust-nostr's client, through a real relay and
    `connect serve`) above its connection's threshold: the notice reaches the open page at once;
    on Approvals (phone, axe clean) one payment is approved and paid, one declined (RESTRICTED,
    nothing paid), one left unanswered (RESTRICTED after the connection's wait, nothing paid)."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "nostr"))
    from test_relay import Relay
    d = s.driver
    folder = app.folder
    ledger = os.path.join(folder, "ledger.sqlite")
    new_wallet(s, app, "buyer")
    use_devnet(s, app, ledger)
    buyer = dict(os.environ, HAWALA_HOME=os.path.join(folder, "home"), NO_COLOR="1")
    password = os.path.join(folder, "password")
    open(password, "w").write(PASSWORD + "\n")
    seller = dict(os.environ, HAWALA_HOME=os.path.join(folder, "seller"), NO_COLOR="1")
    words = os.path.join(folder, "words")
    open(words, "w").write(LEGAL + "\n")

    def hawala(env, *args):
        done = subprocess.run([s.binary, *args], env=env, capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            raise AssertionError(f"hawala {' '.join(args[:3])}: {done.stderr.strip()[:300]}")
        return done.stdout

    hawala(seller, "wallet", "restore", "--name", "seller", "--network", "testnet", "--mnemonic-file", words, "--password-file", password, "--yes")
    hawala(seller, "ln", "config", "--backend", "devnet:" + ledger)
    hawala(buyer, "ln", "devnet", "fund", "50000", "--password-file", password)
    relay = Relay(folder)
    serve = None
    try:
        made = json.loads(hawala(buyer, "connect", "new", "render-agent", "--methods", "pay", "--budget", "20000/daily", "--approve-above", "2000",
                                 "--approval-wait", "15s", "--relay", relay.url, "--json", "--password-file", password))
        log_path = os.path.join(folder, "serve.log")
        serve = subprocess.Popen([s.binary, "connect", "serve", "--password-file", password], env=buyer, stdout=open(log_path, "w"), stderr=subprocess.STDOUT)
        deadline = time.time() + 30
        while "serving" not in open(log_path).read():
            if time.time() > deadline or serve.poll() is not None:
                raise AssertionError("connect serve did not start: " + open(log_path).read()[-500:])
            time.sleep(0.2)
        time.sleep(1.5)  # subscribed on the relay

        def program_pays(sats, description):
            invoice = json.loads(hawala(seller, "ln", "invoice", "--amount", str(sats), "--description", description, "--json", "--password-file", password))["invoice"]
            return subprocess.Popen([NOSTR_PYTHON, os.path.join("scripts", "nostr", "nwc_pay.py"), made["uri"], invoice, "60"],
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

        def answer(program):
            out, err = program.communicate(timeout=90)
            try:
                return json.loads(out.strip().splitlines()[-1])
            except (IndexError, json.JSONDecodeError):
                raise AssertionError(f"the NWC client printed {out[-300:]!r} {err[-300:]!r}")

        def balance():
            return json.loads(hawala(buyer, "ln", "balance", "--json"))["balanceMsat"]

        # The page is open on the home: the notice arrives without a reload.
        d.get(app.base + "/")
        s.wait(lambda d: d.find_element(By.ID, "balance").text == "50,000 sat", 15)
        first = program_pays(3000, "render job 1")
        s.wait_text("A program asks you to approve a payment.", 20)
        s.check(d.find_elements(By.ID, "approvals-banner"), "the notice, on the page already open")
        d.find_element(By.LINK_TEXT, "Review it").click()
        s.wait_text("render-agent asks to pay")
        s.check("3,000 sat" in s.body() and "render job 1" in s.body() and "node " in s.body(), "payee, amount and the payee's words")
        sweep(s, "approvals", PHONE)
        laptop = Scenario(browser(LAPTOP), s.screens, s.binary)
        try:
            laptop.driver.get(app.fresh_link())
            laptop.wait_for("#password")
            laptop.fill("password", PASSWORD)
            laptop.active().send_keys(Keys.ENTER)
            laptop.wait_for("#balance")
            laptop.driver.get(app.base + "/approvals")
            laptop.wait_text("render-agent asks to pay")
            sweep(laptop, "approvals", LAPTOP)
        finally:
            laptop.driver.quit()
        s.click("Approve")
        s.wait_text("Approved: render-agent’s payment of")
        paid = answer(first)
        s.check("preimage" in paid and len(paid["preimage"]) == 64, f"the program is paid: {paid}")

        before = balance()
        second = program_pays(4000, "render job 2")
        d.get(app.base + "/approvals")
        s.wait(lambda d: d.find_elements(By.CSS_SELECTOR, "button[value=decline]"), 20)
        s.click("Decline")
        s.wait_text("Declined: render-agent’s payment of")
        refused = answer(second)
        s.check("error" in refused and ("RESTRICTED" in refused["error"] or "declined" in refused["error"]), f"declined: {refused}")
        s.check(balance() == before, "nothing paid when declined")

        started = time.monotonic()
        third = answer(program_pays(5000, "render job 3"))
        s.check("error" in third and "no answer within 15 seconds" in third["error"], f"timed out: {third}")
        s.check(time.monotonic() - started >= 14, "it waited the connection's 15 s")
        s.check(balance() == before, "nothing paid when no one answered")
        log = open(log_path).read()
        s.check("a payment waits for your approval" in log and "hawala connect approve" in log, "connect serve's terminal says so too")

        # Pay on delivery, from the page: a hold invoice made here, paid by the seller, held, settled.
        hawala(seller, "ln", "devnet", "fund", "10000", "--password-file", password)
        held = json.loads(hawala(buyer, "ln", "invoice", "--hold", "--amount", "1500", "--description", "render job 4", "--json",
                                 "--password-file", password).splitlines()[0])
        paying = subprocess.run([s.binary, "ln", "pay", held["invoice"], "--yes", "--password-file", password], env=seller, capture_output=True, text=True, timeout=120)
        s.check(paying.returncode == 3, f"the seller's payment is held, not final: {paying.returncode} {paying.stderr[-200:]}")
        hawala(buyer, "ln", "balance")  # a sync: the held payment recorded
        mine = [p for p in json.loads(hawala(buyer, "ln", "history", "--json")) if p.get("paymentHash") == held["paymentHash"] and p["type"] == "received"]
        s.check(mine, "the held payment is in the history")
        d.get(app.base + "/history/payment?id=" + mine[0]["id"])
        s.wait_text("Held — settle or cancel.")
        sweep(s, "payment-held", PHONE)
        s.click("Settle")
        s.wait(lambda d: "Held — settle" not in s.body() and "1,500 sat" in s.body(), 15)

        # A program's request to connect, pasted: what it asks, to lower and accept.
        d.get(app.base + "/connections")
        d.find_element(By.XPATH, "//summary[text()='A program asks to connect?']").click()
        program = "cd" * 32
        s.fill("connection-request-text", f"nostr+walletauth://{program}?relay=ws%3A%2F%2F127.0.0.1%3A7447&name=job-runner&request_methods=pay_invoice&max_amount=8000&budget_renewal=weekly")
        s.click("Show what it asks")
        s.wait_text("“job-runner” asks to connect")
        sweep(s, "connection-request", PHONE)
    finally:
        if serve:
            serve.terminate()
            serve.wait(timeout=10)
        relay.stop()


class LitecoinNode:
    """Debian's litecoind on regtest in a temp folder, on a loopback port with a cookie; a node
    wallet "miner" funds and mines. Stopped (SIGKILL) by `stop`."""

    BINARY = "/usr/lib/litecoin/litecoind"

    def __init__(self, folder):
        self.folder = os.path.join(folder, "litecoin")
        os.makedirs(self.folder)
        self.port = free_port()
        self.process = subprocess.Popen([self.BINARY, "-regtest", f"-datadir={self.folder}", f"-rpcport={self.port}", "-rpcbind=127.0.0.1",
                                         "-rpcallowip=127.0.0.1", "-listen=0", "-server", "-printtoconsole=0", "-fallbackfee=0.0001",
                                         "-mempoolreplacement=1", "-keypool=1", "-vbparams=mweb:4000000000:4000000001"],
                                        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.url = f"http://127.0.0.1:{self.port}"
        self.cookie = os.path.join(self.folder, "regtest", ".cookie")
        deadline = time.monotonic() + 60
        while True:
            try:
                self.call("getblockchaininfo")
                break
            except Exception:
                if time.monotonic() > deadline or self.process.poll() is not None:
                    raise RuntimeError("litecoind did not start within 60 s")
                time.sleep(0.2)
        self.call("createwallet", ["miner"])
        self.mine(101)

    def call(self, method, params=None):
        import base64, json, urllib.request
        with open(self.cookie) as f:
            auth = base64.b64encode(f.read().strip().encode()).decode()
        body = json.dumps({"jsonrpc": "1.0", "id": 1, "method": method, "params": params or []}).encode()
        request = urllib.request.Request(self.url, data=body, headers={"Authorization": "Basic " + auth, "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                reply = json.load(answer)
        except urllib.error.HTTPError as error:
            reply = json.load(error)
        if reply.get("error"):
            raise RuntimeError(f"{method}: {reply['error']}")
        return reply["result"]

    def mine(self, count):
        return self.call("generatetoaddress", [count, self.call("getnewaddress", ["", "bech32"])])

    def stop(self):
        self.process.kill()
        self.process.wait(timeout=10)


def litecoin_from_a_node(s: Scenario, app: App):
    """A testnet wallet's Litecoin account read from a regtest litecoind: the node connected on
    the chain page, coins received (unconfirmed, then confirmed), a payment with its fee shown
    first, sped up (a child, Litecoin's surer way), a coin frozen; the pages at 390 and 1280 px."""
    d = s.driver
    node = LitecoinNode(app.folder)
    try:
        new_wallet(s, app, "Coins")
        d.get(app.base + "/chain/litecoin")
        s.wait_text("Connect your Litecoin node")
        sweep(s, "chain-connect", PHONE)
        s.fill("node-url", node.url)
        s.fill("node-cookie", "/nowhere/.cookie")
        s.click("Connect")
        s.wait_text("cookie")
        s.check(d.find_element(By.ID, "node-url").get_attribute("value") == node.url, "the address typed is kept after a refusal")
        s.fill("node-cookie", node.cookie)
        s.click("Connect")
        s.wait_text("Litecoin is read from your node now.")
        address = d.find_element(By.ID, "chain-address").text
        s.check(address.startswith("rltc1"), f"a regtest Litecoin address: {address}")
        node.call("sendtoaddress", [address, 0.5])
        d.get(app.base + "/chain/litecoin")
        s.wait(lambda d: "unconfirmed" in d.find_element(By.CSS_SELECTOR, "main").text)
        s.check(d.find_element(By.ID, "chain-incoming").text == "+ 50,000,000 litoshi unconfirmed", "the coins arriving, unconfirmed")
        node.mine(1)
        d.get(app.base + "/chain/litecoin")
        s.wait(lambda d: d.find_element(By.ID, "chain-balance").text == "50,000,000 litoshi")
        s.check(d.find_element(By.ID, "chain-address").text != address, "a paid address is not offered again")
        d.get(app.base + "/")
        s.wait_text("On-chain")
        s.check("50,000,000 litoshi" in s.body(), "the home shows the chain's balance beside Lightning")
        # A payment: the fee shown before the password; a wrong address refused in words, what was typed kept.
        d.get(app.base + "/chain/litecoin")
        s.fill("chain-to", "bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080")
        s.fill("chain-amount", "10 000 000")
        s.click("Review the payment")
        s.wait_text("is a Bitcoin regtest address; this account is on Litecoin regtest")
        s.check(d.find_element(By.ID, "chain-amount").get_attribute("value") == "10 000 000", "the amount typed is kept")
        payee = node.call("getnewaddress", ["", "bech32"])
        s.fill("chain-to", payee)
        s.click("Review the payment")
        s.wait_text("Review the payment")
        s.check("10,000,000 litoshi" in s.body() and "Fee" in s.body() and "back to this wallet" in s.body(), "the preview: amount, fee, change")
        sweep(s, "chain-review", PHONE)
        s.fill("chain-password", "wrong password")
        d.find_element(By.CSS_SELECTOR, "form.stack button[type=submit]").click()
        s.wait(lambda d: d.find_elements(By.ID, "chain-password-problem"))
        s.fill("chain-password", PASSWORD)
        d.find_element(By.CSS_SELECTOR, "form.stack button[type=submit]").click()
        s.wait_text("Sent: payment")
        s.check(len(node.call("getrawmempool")) == 1, "the payment is in the node's mempool")
        # Speed it up: on Litecoin a child first.
        s.click("Speed it up")
        s.wait_text("Speed up the payment")
        s.check("child back to this wallet" in s.body(), "a child pays for the payment")
        s.fill("chain-password", PASSWORD)
        s.click("Speed it up")
        s.wait_text("Sped up: payment")
        s.check(len(node.call("getrawmempool")) == 2, "the child joins its parent in the mempool")
        node.mine(1)
        d.get(app.base + "/chain/litecoin")
        s.wait(lambda d: "Speed it up" not in d.find_element(By.CSS_SELECTOR, "main").text)
        sweep(s, "chain", PHONE)
        laptop = browser(LAPTOP)
        try:
            l = Scenario(laptop, s.screens, s.binary)
            laptop.get(app.fresh_link())
            l.wait_for("#password")
            l.fill("password", PASSWORD)
            l.active().send_keys(Keys.ENTER)
            l.wait_for("main h1")
            laptop.get(app.base + "/chain/litecoin")
            l.wait_for("#chain-balance")
            sweep(l, "chain", LAPTOP)
        finally:
            laptop.quit()
        d.find_element(By.CSS_SELECTOR, "#chain-details summary").click()
        d.find_element(By.CSS_SELECTOR, ".chain-coins button").click()
        s.wait_text("Frozen: that coin stays unspent.")
        # A watch-only wallet of the same key, made by the CLI on the same home: its home says
        # so and offers no Lightning; its chain page sees the coins and offers no send.
        env = dict(os.environ, HAWALA_HOME=os.path.join(app.folder, "home"), NO_COLOR="1")
        password_file = os.path.join(app.folder, "password")
        with open(password_file, "w") as f:
            f.write(PASSWORD + "\n")
        exported = json.loads(subprocess.run([s.binary, "wallet", "export-watch-only", "--wallet", "Coins", "--json"], env=env,
                                             capture_output=True, text=True, check=True).stdout)
        subprocess.run([s.binary, "wallet", "import-watch-only", "--name", "Watching", "--chain", "litecoin", "--descriptor",
                        exported[0]["multipathDescriptor"], "--password-file", password_file], env=env, capture_output=True, text=True, check=True)
        subprocess.run([s.binary, "onchain", "node", "--chain", "litecoin", "--url", node.url, "--cookie-file", node.cookie], env=env,
                       capture_output=True, text=True, check=True)
        d.get(app.base + "/")
        s.wait_text("“Watching” is watch-only")
        s.check("Use Lightning" not in s.body(), "no Lightning offered to a watch-only wallet")
        sweep(s, "home-watch-only", PHONE)
        d.get(app.base + "/chain/litecoin")
        s.wait(lambda d: d.find_element(By.ID, "chain-balance").text.endswith("litoshi") and d.find_element(By.ID, "chain-balance").text != "0 litoshi")
        s.check(not d.find_elements(By.ID, "chain-to") and "watch-only" in s.body(), "no send form on a watch-only wallet")
    finally:
        node.stop()


def new_wallet_here(s: Scenario, app: App, name):
    """A wallet made on this app's create page (the session signed in already)."""
    s.driver.get(app.base + "/create")
    s.wait_for("#password")
    s.fill("name", name)
    s.fill("password", PASSWORD)
    s.fill("repeat", PASSWORD)
    s.submit()
    s.wait_text("Your wallet is its words.")
    s.click("Back up later")
    s.wait_for("form.setup")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", default=".build/debug/hawala")
    parser.add_argument("--screens", help="save screenshots of the main screens in this folder")
    parser.add_argument("--only", help="run only the scenarios whose title contains this text")
    args = parser.parse_args()
    if args.screens:
        os.makedirs(args.screens, exist_ok=True)
    failed = 0
    if not os.path.exists(AXE):
        sys.exit(f"{AXE} is missing: run scripts/install-axe.sh (make test does)")
    driver = browser(PHONE)
    try:
        scenarios = [("create a wallet and pass the quiz (keyboard only); vault, then the device lost: the words alone bring it back; shares, paper", "create",
                      [create_and_pass_the_quiz, vault_shares_and_paper]),
                     ("restore word by word with a typo, receive with a QR, export and import a .hawala", "restore",
                      [restore_word_by_word_with_a_typo, receive_shows_a_readable_qr, export_then_import_into_a_fresh_home]),
                     ("Litecoin from a regtest node: connect, receive, send with the fee first, speed it up, freeze a coin", "litecoin",
                      [litecoin_from_a_node]),
                     ("a program's payments over NWC wait for approval: approved from the notice, declined, and left to time out (nothing paid)", "approvals",
                      [approvals_while_a_program_waits])]
        for title, name, steps in scenarios:
            if args.only and args.only not in title:
                continue
            started = time.monotonic()
            app = App(args.binary, name)
            try:
                driver.delete_all_cookies()
                for step in steps:
                    step(Scenario(driver, args.screens, args.binary), app)
                print(f"ok    {title} ({time.monotonic() - started:.1f} s)")
            except Exception as error:  # one failed line per scenario, the details after it
                failed += 1
                print(f"FAIL  {title}: {error}")
                traceback.print_exc(limit=3, file=sys.stdout)
                print(f"      at {driver.current_url}: {driver.find_element(By.TAG_NAME, 'body').text[-1500:]!r}")
                app.log.seek(0)
                print("      app log:", app.log.read()[-2000:])
            finally:
                failed += stopped(app, title)
        if args.only:
            sys.exit(1 if failed else 0)
        failed += two_app_scenario("devnet: one wallet pays the other's invoice; Paid and the home update live; reload, huge amounts, Lock keeps the form",
                                   pay_an_invoice_between_two_wallets,
                                   driver, args)
        failed += two_browser_scenario("every page at 390 and 1280 px: no sideways scrolling, axe clean in light and dark",
                                       every_page_at_both_sizes, driver, args)
    finally:
        driver.quit()
        shutil.rmtree(DOWNLOADS, ignore_errors=True)
    sys.exit(1 if failed else 0)


def stopped(app, title):
    """Stops `app` by SIGINT; 1 (a failure, said) when it did not stop within 2 s."""
    try:
        app.stop()
        return 0
    except AssertionError as error:
        print(f"FAIL  {title}: {error}")
        return 1


def two_browser_scenario(title, step, driver, args):
    """One app, a phone and a laptop. Returns 1 when it failed."""
    started = time.monotonic()
    app, laptop = None, None
    try:
        app = App(args.binary, "layout")
        laptop = browser(LAPTOP)
        driver.delete_all_cookies()
        step(Scenario(driver, args.screens, args.binary), app, Scenario(laptop, args.screens, args.binary))
        print(f"ok    {title} ({time.monotonic() - started:.1f} s)")
        return 0
    except Exception as error:
        print(f"FAIL  {title}: {error}")
        traceback.print_exc(limit=3, file=sys.stdout)
        for d in (driver, laptop):
            if d:
                print(f"      at {d.current_url}: {d.find_element(By.TAG_NAME, 'body').text[-1500:]!r}")
        if app:
            app.log.seek(0)
            print("      app log:", app.log.read()[-2000:])
        return 1
    finally:
        if laptop:
            laptop.quit()
        if app and stopped(app, title):
            return 1


def two_app_scenario(title, step, driver, args):
    """A scenario with two homes, two app servers and two browsers (one cookie jar each: cookies
    do not tell ports apart). Returns 1 when it failed."""
    started = time.monotonic()
    apps, second = [], None
    try:
        apps = [App(args.binary, "receiver"), App(args.binary, "payer")]
        second = browser()
        driver.delete_all_cookies()
        step(Scenario(driver, args.screens), apps[0], Scenario(second, args.screens), apps[1])
        print(f"ok    {title} ({time.monotonic() - started:.1f} s)")
        return 0
    except Exception as error:
        print(f"FAIL  {title}: {error}")
        traceback.print_exc(limit=3, file=sys.stdout)
        for d in (driver, second):
            if d:
                print(f"      at {d.current_url}: {d.find_element(By.TAG_NAME, 'body').text[-1500:]!r}")
        for app in apps:
            app.log.seek(0)
            print("      app log:", app.log.read()[-2000:])
        return 1
    finally:
        if second:
            second.quit()
        if sum(stopped(app, title) for app in apps):
            return 1


if __name__ == "__main__":
    main()
