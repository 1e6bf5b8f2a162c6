#!/usr/bin/python3
"""`hawala app` end to end in a real headless Chromium (Debian's chromium + chromedriver,
Debian's python3-selenium; Selenium downloads nothing).

Each scenario starts its own `hawala app --no-open --port 0` on a fresh HAWALA_HOME, reads the
one-time link from its first stdout line and drives the pages as a person would. With
`--screens DIR` it also saves screenshots of the main screens there (docs/screens).

Usage: scripts/app_e2e.py [--binary .build/debug/hawala] [--screens DIR]
Exit 0 when every scenario passed; one line per scenario.
"""
import argparse
import os
import re
import shutil
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
        self.process = subprocess.Popen([binary, "app", "--no-open", "--port", "0"], env=env,
                                        stdout=subprocess.PIPE, stderr=self.log, text=True)
        line = self.process.stdout.readline().strip()
        if not line.startswith("http://127.0.0.1:"):
            raise RuntimeError(f"hawala app printed {line!r} first")
        self.link = line
        self.base = line.split("/start")[0]

    def stop(self):
        stop_process(self.process)
        self.log.close()
        shutil.rmtree(self.folder, ignore_errors=True)


def stop_process(process):
    """SIGTERM (a graceful shutdown), SIGKILL after 10 s."""
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()


DOWNLOADS = tempfile.mkdtemp(prefix="hawala-e2e-downloads-")
BACKUP_PASSWORD = "orbit candle meadow thunder salmon"


def browser():
    options = webdriver.ChromeOptions()
    options.add_experimental_option("prefs", {"download.default_directory": DOWNLOADS, "download.prompt_for_download": False})
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1000,1000",
                 "--disable-gpu", "--no-first-run"):
        options.add_argument(flag)
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


def create_and_pass_the_quiz(s: Scenario, app: App):
    """Onboarding on a fresh home: create, see the words, a wrong answer, then the quiz passed by
    keyboard only (Enter verifies, Esc clears, Tab order); the badge goes away."""
    d = s.driver
    d.get(app.link)
    s.wait_text("No wallet on this machine yet.")
    s.check("/start" not in d.current_url, "the token stays out of the address bar")
    s.shot("01-welcome")
    s.click("Create a new wallet")
    s.wait_for("#password")
    s.fill("name", "Savings")
    s.fill("password", PASSWORD)
    s.fill("repeat", PASSWORD + "x")
    d.find_element(By.CSS_SELECTOR, "form.stack button[type=submit]").click()
    s.wait_text("The two passwords differ")
    s.fill("password", PASSWORD)
    s.fill("repeat", PASSWORD)
    s.shot("02-create")
    d.find_element(By.CSS_SELECTOR, "form.stack button[type=submit]").click()
    s.wait_text("Your wallet is its words.")
    s.check("Not backed up" in s.body(), "the not-backed-up badge shows at once")
    s.active().send_keys(Keys.ENTER)  # "Show my words" has the focus
    words = [w.text for w in s.wait_for("ol.words").find_elements(By.CSS_SELECTOR, ".word")]
    s.check(len(words) == 12 and all(re.fullmatch("[a-z]+", w) for w in words), f"12 words shown as text: {words}")
    s.shot("03-words")
    s.active().send_keys(Keys.ENTER)  # "I wrote them down — check me"
    answer = s.wait_for("#answer")
    s.check(s.active() == answer, "the answer field has the focus")
    s.check(answer.get_attribute("autocomplete") == "off" and answer.get_attribute("spellcheck") == "false", "no autocomplete, no spellcheck")
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
    s.shot("04-quiz-wrong")
    s.active().send_keys(Keys.ENTER)  # "Try word #N again" has the focus
    questions = 0
    while True:
        try:
            field = s.wait_for("#answer", timeout=5)
        except TimeoutException:
            break
        label = d.find_element(By.CSS_SELECTOR, "label[for=answer]").text
        position = int(re.search(r"Word #(\d+)", label).group(1))
        if questions == 0:
            s.shot("05-quiz")
        s.check(s.active() == field, "the focus is on the answer")
        field.send_keys(words[position - 1] + Keys.ENTER)
        questions += 1
        s.wait(lambda d: d.find_element(By.ID, "answer") != field if d.find_elements(By.ID, "answer") else True, 10)
        if "Every word was right" in s.body():
            break
    s.check(3 <= questions <= 5, f"3 to 5 questions, asked {questions}")
    s.wait_text("Every word was right")
    s.active().send_keys(Keys.ENTER)  # "I keep the words safe"
    s.wait_for("table.wallets")  # the wallets page itself ("Wallets" is in every page's menu)
    body = s.body()
    s.check("Savings" in body and "Not backed up" not in body, "backed up: no badge left")
    s.shot("06-wallets")
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
        d.find_element(By.XPATH, "//summary[text()='Back up now…']").click()
        s.fill("vault-backup-password", BACKUP_PASSWORD)
        s.fill("vault-backup-repeat", BACKUP_PASSWORD)
        s.fill("vault-wallet-password", PASSWORD)
        s.click("Upload a backup")
        s.wait_text("Uploaded backup")
        s.check(len(d.find_elements(By.CSS_SELECTOR, "table.backups tbody tr")) == 1, "one backup listed")
        d.find_element(By.NAME, "autoBackupEnabled").click()
        s.click("Save the schedule")
        s.wait_text("The schedule is saved.")
        s.check(d.find_element(By.NAME, "autoBackupEnabled").is_selected(), "automatic backups on")
        s.shot("16-vault")
    finally:
        vault.stop()

    d.get(app.base + "/backups")
    s.fill("shamir-password", PASSWORD)
    s.click("Make the shares")
    s.wait_text("2 of these 3 shares recover the wallet")
    sheets = d.find_elements(By.CSS_SELECTOR, "section.share-sheet")
    s.check(len(sheets) == 3 and all(len(x.find_elements(By.CSS_SELECTOR, ".word")) == 20 for x in sheets), "3 shares of 20 words")
    s.shot("17-shares")
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


def restore_word_by_word_with_a_typo(s: Scenario, app: App):
    """Restore "abandon … about" on testnet, word by word with 4-letter prefixes and one typo
    corrected through a suggestion; the addresses shown are the right ones."""
    d = s.driver
    d.get(app.link)
    s.wait_text("No wallet on this machine yet.")
    s.click("Restore from words")
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
            s.shot("07-restore-typo")
            d.find_element(By.CSS_SELECTOR, "form.suggestions button[value=abandon]").click()
        else:
            s.active().send_keys(word[:4] + Keys.ENTER)
        s.wait(lambda d: len(d.find_elements(By.CSS_SELECTOR, "ol.entered li")) == i + 1)
    s.wait_for("#passphrase").send_keys(Keys.ENTER)
    s.wait_text("Are these the first addresses of your wallet?")
    s.check(ABANDON_TESTNET_BTC in s.body(), "the first testnet address of abandon…about")
    s.shot("08-restore-addresses")
    s.click("They match")
    s.wait_for("#name").send_keys("Restored")
    s.fill("password", PASSWORD)
    s.fill("repeat", PASSWORD)
    s.click("Save the wallet")
    s.wait_text("Restored")
    s.check("Not backed up" not in s.body(), "a restored wallet counts as backed up")


def receive_shows_a_readable_qr(s: Scenario, app: App):
    """The receive page's QR code, screenshotted and decoded with zbarimg, is the address shown."""
    d = s.driver
    d.get(app.base + "/receive")
    figure = s.wait_for("figure.qr")
    address = d.find_element(By.ID, "address").text
    s.check(address == ABANDON_TESTNET_BTC, f"address #0 is {address}")
    s.shot("09-receive")
    path = os.path.join(app.folder, "qr.png")
    figure.find_element(By.TAG_NAME, "svg").screenshot(path)
    decoded = subprocess.run(["zbarimg", "--quiet", "--raw", path], capture_output=True, text=True, timeout=30).stdout.strip()
    s.check(decoded.lower() in (address, f"bitcoin:{address}"), f"zbarimg read {decoded!r}")
    s.check(not d.find_elements(By.CSS_SELECTOR, "img"), "no images, the QR is inline SVG")
    s.click("New address")
    s.wait(lambda d: d.find_element(By.ID, "address").text != address, 10)
    s.check("address #1" in s.body(), "the next address")


def export_then_import_into_a_fresh_home(s: Scenario, app: App):
    """Export a .hawala file (a download), open it again in the same home (the conflict is
    shown), then import it into a fresh home: a wrong password, the preview with the first
    address, the wallet password set there, the wallet back."""
    d = s.driver
    d.get(app.base + "/backups")
    s.fill("backup-password", BACKUP_PASSWORD)
    s.fill("backup-repeat", BACKUP_PASSWORD)
    s.fill("export-password", PASSWORD)
    s.click("Download the backup")
    s.wait(lambda _: [f for f in os.listdir(DOWNLOADS) if f.endswith(".hawala")], 60)
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
    s.shot("15-import-conflict")
    s.click("Cancel")
    s.wait_text("Import a .hawala file")

    fresh = App(s.binary, "import")
    try:
        d.delete_all_cookies()
        d.get(fresh.link)
        s.click("Import a .hawala backup")
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
    s.wait_text("No wallet on this machine yet.")
    s.click("Create a new wallet")
    s.wait_for("#password")
    s.fill("name", name)
    s.fill("password", PASSWORD)
    s.fill("repeat", PASSWORD)
    s.driver.find_element(By.CSS_SELECTOR, "form.stack button[type=submit]").click()
    s.wait_text("Your wallet is its words.")
    s.click("Back up later")
    s.wait_for("table.wallets")


def use_devnet(s: Scenario, app: App, ledger):
    """Lightning settings: the shared devnet ledger as the backend."""
    s.driver.get(app.base + "/lightning")
    s.fill("settings-backend", f"devnet:{ledger}")
    s.click("Save the settings")
    s.wait_text("Saved.")


def pay_an_invoice_between_two_wallets(receiver: Scenario, r_app: App, payer: Scenario, p_app: App):
    """Two homes, two app servers, two browsers on one devnet: the receiver makes an invoice, the
    payer previews it, confirms with the password, and the receiver's page says "Paid" without a
    reload (server-sent events)."""
    ledger = os.path.join(r_app.folder, "devnet-ledger")
    new_wallet(receiver, r_app, "Shop")
    new_wallet(payer, p_app, "Buyer")
    use_devnet(receiver, r_app, ledger)
    use_devnet(payer, p_app, ledger)
    payer.fill("fund-amount", "50000")
    payer.click("Add test funds")
    payer.wait(lambda d: d.find_element(By.ID, "balance").text == "50,000 sat", 10)
    payer.shot("10-lightning")

    r = receiver.driver
    receiver.fill("invoice-amount", "1234")
    receiver.fill("invoice-description", 'coffee "><script>alert(1)</script>')
    receiver.click("Create invoice")
    receiver.wait_text("Waiting for the payment")
    r.execute_script("window.hawalaSamePage = true")
    invoice = r.find_element(By.ID, "invoice-text").text
    receiver.check(invoice.startswith("lnbcrt"), f"a regtest invoice: {invoice[:20]}")
    receiver.check("<script>alert(1)</script>" in receiver.body(), "the hostile description is shown as text")
    receiver.check(re.search(r"\(in \d+:\d\d\)", receiver.body()), "the expiry countdown runs")
    path = os.path.join(r_app.folder, "invoice-qr.png")
    r.find_element(By.CSS_SELECTOR, "figure.qr svg").screenshot(path)
    decoded = subprocess.run(["zbarimg", "--quiet", "--raw", path], capture_output=True, text=True, timeout=30).stdout.strip()
    receiver.check(decoded.lower() == invoice.lower(), f"the QR holds the invoice (zbarimg read {decoded[:24]!r}…)")
    receiver.shot("11-invoice")

    p = payer.driver
    payer.fill("send-input", invoice)
    payer.click("Preview the payment")
    payer.wait_text("Confirm the payment")
    body = payer.body()
    payer.check("1,234 sat" in body and "<script>alert(1)</script>" in body, "the preview shows the amount and the description as text")
    payer.shot("12-send-preview")
    payer.fill("pay-password", "wrong password")
    payer.active().send_keys(Keys.ENTER)
    payer.wait_text("Wrong password.")
    payer.check("Confirm the payment" in payer.body(), "a wrong password keeps the preview")
    payer.fill("pay-password", PASSWORD)
    payer.active().send_keys(Keys.ENTER)
    payer.wait(lambda d: d.find_element(By.ID, "payment-headline").text == "Paid", 20)
    payer.shot("13-paid")

    receiver.wait(lambda d: d.find_element(By.ID, "invoice-status").text.startswith("Paid"), 20)
    receiver.check(r.execute_script("return window.hawalaSamePage === true"), "Paid arrived without a reload")
    receiver.check("1,234 sat" in r.find_element(By.ID, "invoice-status").text, "the amount received")

    # The history: both sides, a filter, a search, the detail and the CSV download.
    p.get(p_app.base + "/history?type=send")
    payer.wait_text("coffee")
    payer.check("−1,234 sat" in payer.body(), "the payer's history shows the payment sent")
    p.get(p_app.base + "/history?type=receive&q=coffee")
    payer.wait_text("No payments match.")
    r.get(r_app.base + "/history?q=COFFEE")
    receiver.wait_text("+1,234 sat")
    receiver.shot("14-history")
    r.find_element(By.CSS_SELECTOR, "table.payments a").click()
    receiver.wait_text("Payment hash")
    csv = r.execute_script("""
        const answer = await fetch("/history/export?format=csv");
        return [answer.status, answer.headers.get("content-disposition"), await answer.text()];
    """)
    receiver.check(csv[0] == 200 and "hawala-payments.csv" in csv[1] and "received,completed,1234," in csv[2], f"the CSV download: {csv[:2]}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", default=".build/debug/hawala")
    parser.add_argument("--screens", help="save screenshots of the main screens in this folder")
    args = parser.parse_args()
    if args.screens:
        os.makedirs(args.screens, exist_ok=True)
    failed = 0
    driver = browser()
    try:
        scenarios = [("create a wallet and pass the quiz (keyboard only); vault, shares, paper", "create",
                      [create_and_pass_the_quiz, vault_shares_and_paper]),
                     ("restore word by word with a typo, receive with a QR, export and import a .hawala", "restore",
                      [restore_word_by_word_with_a_typo, receive_shows_a_readable_qr, export_then_import_into_a_fresh_home])]
        for title, name, steps in scenarios:
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
                print(f"      at {driver.current_url}: {driver.page_source[:1500]!r}")
                app.log.seek(0)
                print("      app log:", app.log.read()[-2000:])
            finally:
                app.stop()
        failed += two_app_scenario("devnet: one wallet pays the other's invoice; Paid appears live", pay_an_invoice_between_two_wallets,
                                   driver, args)
    finally:
        driver.quit()
        shutil.rmtree(DOWNLOADS, ignore_errors=True)
    sys.exit(1 if failed else 0)


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
                print(f"      at {d.current_url}: {d.page_source[:1500]!r}")
        for app in apps:
            app.log.seek(0)
            print("      app log:", app.log.read()[-2000:])
        return 1
    finally:
        if second:
            second.quit()
        for app in apps:
            app.stop()


if __name__ == "__main__":
    main()
