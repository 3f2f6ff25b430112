"""The live dashboard in a real headless Chromium.

The test starts the server, opens /dashboard in Chromium (Debian's `chromium` package) driven over the DevTools
protocol with the `websockets` client, drives a call with scripted clients, and reads the page's DOM until the
roster shows what the call did. A screenshot goes to test-artifacts/ (ignored by git).
"""

import asyncio
import base64
import json
import os
import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pytest
from websockets.asyncio.client import connect

from test_call_end_to_end import PROJECT_ROOT, ROOM, Client, mint, rollcall  # noqa: F401 (the fixture)

ARTIFACTS = PROJECT_ROOT / "test-artifacts"
BROWSER_TIMEOUT = 20.0


def chromium_binary():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    raise AssertionError("Chromium is not installed: scripts/test.sh installs Debian's chromium package")


class Browser:
    """A headless Chromium with one page, spoken to over the DevTools protocol."""

    def __init__(self):
        self.profile = tempfile.mkdtemp(prefix="rollcall-chromium-")
        self.process = subprocess.Popen(
            [chromium_binary(), "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
             "--remote-debugging-port=0", "--remote-debugging-address=127.0.0.1", f"--user-data-dir={self.profile}",
             "--window-size=1400,900", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        )
        self.endpoint = self._read_endpoint()
        self.socket = None
        self.session = None
        self.next_id = 0

    def _read_endpoint(self):
        deadline = time.monotonic() + BROWSER_TIMEOUT
        seen = b""
        while time.monotonic() < deadline:
            line = self.process.stderr.readline()
            if not line:
                break
            seen += line
            match = re.search(rb"DevTools listening on (ws://\S+)", line)
            if match:
                return match.group(1).decode()
        raise AssertionError(f"Chromium did not start: {seen.decode(errors='replace')}")

    async def open(self, url):
        self.socket = await connect(self.endpoint, max_size=None, proxy=None)
        target = await self.call("Target.createTarget", {"url": "about:blank"})
        attached = await self.call("Target.attachToTarget", {"targetId": target["targetId"], "flatten": True})
        self.session = attached["sessionId"]
        await self.call("Page.enable", session=True)
        await self.call("Page.navigate", {"url": url}, session=True)

    async def call(self, method, params=None, session=False):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = self.session
        await self.socket.send(json.dumps(message))
        while True:
            answer = json.loads(await asyncio.wait_for(self.socket.recv(), BROWSER_TIMEOUT))
            if answer.get("id") == self.next_id:
                assert "error" not in answer, answer
                return answer["result"]

    async def evaluate(self, expression):
        result = await self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True}, session=True)
        return result["result"].get("value")

    async def wait_for(self, expression, expected, what):
        """Polls `expression` in the page until it equals `expected` (bounded)."""
        deadline = time.monotonic() + BROWSER_TIMEOUT
        value = None
        while time.monotonic() < deadline:
            value = await self.evaluate(expression)
            if value == expected:
                return
            await asyncio.sleep(0.1)
        raise AssertionError(f"{what}: the page shows {value!r}, wanted {expected!r}")

    async def screenshot(self, path):
        result = await self.call("Page.captureScreenshot", {"format": "png"}, session=True)
        path.parent.mkdir(exist_ok=True)
        path.write_bytes(base64.b64decode(result["data"]))

    def close(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=5)
        shutil.rmtree(self.profile, ignore_errors=True)


def cell(uid, field):
    return f"(document.querySelector('tr[data-uid=\"{uid}\"] td[data-field=\"{field}\"]') || {{}}).textContent"


def test_dashboard_shows_the_roster_live(rollcall):
    server = rollcall(**{"rooms.patch_window_ms": 20})
    http = server.url.replace("ws://", "http://").rsplit("/v1/ws", 1)[0]
    observer = mint("ops", name="Operator", rooms=[ROOM], role="admin")
    alice_token = mint("alice", name="Alice", rooms=[ROOM], role="moderator")
    bob_token = mint("bob", name="Bob", groups=[ROOM])
    browser = Browser()

    async def scenario():
        try:
            await browser.open(f"{http}/dashboard?room={ROOM}#token={observer}")
            await browser.wait_for("document.getElementById('status').textContent", "connected as Operator",
                                   "the dashboard's connection")
            await browser.wait_for(f"document.querySelector('#room-list li[data-room=\"{ROOM}\"]') !== null", True,
                                   "the room list")
            alice = await Client.connect("alice", server.url, alice_token)
            bob = await Client.connect("bob", server.url, bob_token)
            await alice.join(device="web")
            await bob.join(device="phone")
            await browser.wait_for(cell("bob", "name"), "Bob", "Bob in the roster")
            await browser.wait_for(cell("alice", "role"), "moderator", "Alice's role")
            await browser.wait_for(cell("bob", "muted"), "", "Bob unmuted at first")

            await bob.request({"type": "state", "room": ROOM, "audioMuted": True, "handRaised": True})
            await alice.request({"type": "state", "room": ROOM, "presenting": True, "videoPaused": True})
            await bob.request({"type": "speaker", "room": ROOM, "uid": "bob"})
            await browser.wait_for(cell("bob", "muted"), "●", "Bob muted")
            await browser.wait_for(cell("bob", "hand"), "●", "Bob's hand")
            await browser.wait_for(cell("alice", "sharing"), "●", "Alice sharing")
            await browser.wait_for(cell("alice", "video-off"), "●", "Alice's video off")
            await browser.wait_for(cell("bob", "speaking"), "●", "Bob speaking")
            await browser.wait_for("document.querySelectorAll('#events li').length >= 5", True, "recent events")
            await browser.screenshot(ARTIFACTS / "dashboard.png")

            await bob.request({"type": "leave", "room": ROOM})
            await browser.wait_for("document.querySelector('tr[data-uid=\"bob\"]') === null", True, "Bob gone")
            await alice.close()
            await bob.close()
        finally:
            if browser.socket is not None:
                await browser.socket.close()

    try:
        asyncio.run(asyncio.wait_for(scenario(), 60))
    finally:
        browser.close()


def test_dashboard_can_be_switched_off(rollcall):
    server = rollcall(**{"dashboard.enabled": "false"})
    http = server.url.replace("ws://", "http://").rsplit("/v1/ws", 1)[0]
    import urllib.error
    import urllib.request
    with pytest.raises(urllib.error.HTTPError) as failure:
        urllib.request.urlopen(f"{http}/dashboard", timeout=5)
    assert failure.value.code == 404
