# SPDX-License-Identifier: MIT
"""webdriver.py: a W3C WebDriver client for headless Chromium through
Debian's chromium-driver, with Python's standard library only (urllib +
json), for the HTML page's browser tests (tests/cli/html_browser.py) and
the README's screenshot (tools/html_screenshot.py)."""
import base64
import json
import os
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request

ELEMENT = "element-6066-11e4-a52e-4f735466cecf"


class WebDriverError(Exception):
    pass


def find_browser():
    """(chromium, chromedriver) paths; raises with the fix when missing."""
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    if not chromium or not driver:
        raise WebDriverError("chromium and chromedriver are needed: run `make deps` "
                             "(Debian packages chromium, chromium-driver)")
    return chromium, driver


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Browser:
    """One chromedriver and one headless Chromium session."""

    def __init__(self, width=1400, height=1000):
        chromium, driver = find_browser()
        self.port = free_port()
        self.profile = tempfile.mkdtemp(prefix="rooflint-chromium.")
        self.proc = subprocess.Popen([driver, "--port=%d" % self.port],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.base = "http://127.0.0.1:%d" % self.port
        deadline = time.time() + 20
        while True:
            try:
                if self._call("GET", "/status")["ready"]:
                    break
            except (OSError, WebDriverError):
                pass
            if time.time() > deadline:
                self.close()
                raise WebDriverError("chromedriver did not start on port %d" % self.port)
            time.sleep(0.05)
        # --no-sandbox: CI containers run as root, where the sandbox refuses.
        caps = {"browserName": "chrome",
                "goog:chromeOptions": {
                    "binary": chromium,
                    "args": ["--headless=new", "--no-sandbox", "--disable-gpu",
                             "--disable-dev-shm-usage", "--hide-scrollbars",
                             "--force-device-scale-factor=1",
                             "--user-data-dir=" + self.profile,
                             "--window-size=%d,%d" % (width, height)]},
                "goog:loggingPrefs": {"browser": "ALL"}}
        try:
            r = self._call("POST", "/session", {"capabilities": {"alwaysMatch": caps}})
        except WebDriverError:
            self.close()
            raise
        self.session = "/session/" + r["sessionId"]

    def _call(self, method, path, body=None):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.base + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=60) as resp:
                return json.load(resp)["value"]
        except urllib.error.HTTPError as e:
            raise WebDriverError("%s %s: %s" % (method, path, e.read().decode()[:500]))

    def cmd(self, method, path, body=None):
        return self._call(method, self.session + path, body)

    def open(self, path):
        self.cmd("POST", "/url", {"url": "file://" + os.path.abspath(path)})

    def js(self, script, *args):
        return self.cmd("POST", "/execute/sync", {"script": script, "args": list(args)})

    def find(self, css):
        return self.cmd("POST", "/element", {"using": "css selector", "value": css})[ELEMENT]

    def click(self, elem):
        self.cmd("POST", "/element/%s/click" % elem, {})

    def type(self, elem, text):
        self.cmd("POST", "/element/%s/value" % elem, {"text": text})

    def hover(self, elem):
        self.cmd("POST", "/actions", {"actions": [{
            "type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"},
            "actions": [{"type": "pointerMove", "duration": 0, "x": 0, "y": 0,
                         "origin": {ELEMENT: elem}}]}]})

    def logs(self):
        """The browser console since the last call (chromedriver's log)."""
        return self.cmd("POST", "/se/log", {"type": "browser"})

    def screenshot(self, png_path):
        with open(png_path, "wb") as f:
            f.write(base64.b64decode(self.cmd("GET", "/screenshot")))

    def resize(self, width, height):
        self.cmd("POST", "/window/rect", {"width": width, "height": height})

    def close(self):
        try:
            if hasattr(self, "session"):
                self.cmd("DELETE", "")
        except (OSError, WebDriverError):
            pass
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        shutil.rmtree(self.profile, ignore_errors=True)
