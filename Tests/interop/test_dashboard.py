"""The live dashboard in a real headless Chromium.

The test starts the server, opens /dashboard in Chromium (Debian's `chromium` package) driven over the DevTools
protocol with the `websockets` client, drives calls with scripted clients, and reads the page's DOM until every
room's roster shows what the calls did; it acts as a moderator from the page, cuts the page's connection, and
restarts the gateway. Screenshots go to test-artifacts/ (ignored by git).
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

from rollcall import ConnectionClosed
from test_call_end_to_end import BINARY, CONFIG, PROJECT_ROOT, ROOM, Client, mint, rollcall  # noqa: F401 (the fixture)

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


def cell(uid, field, room=ROOM):
    return (f"(document.querySelector('section.room[data-room=\"{room}\"] tr[data-uid=\"{uid}\"] "
            f"td[data-field=\"{field}\"]') || {{}}).textContent")


def room_field(field, room=ROOM):
    return f"(document.querySelector('section.room[data-room=\"{room}\"] [data-field=\"{field}\"]') || {{}}).textContent"


def click(uid, action, room=ROOM):
    return (f"document.querySelector('section.room[data-room=\"{room}\"] tr[data-uid=\"{uid}\"] "
            f"button[data-action=\"{action}\"]').click()")


def waiting_row(uid, room=ROOM):
    return f"section.room[data-room=\"{room}\"] tr[data-waiting=\"{uid}\"]"


def mint_guest(uid, name, groups, **attributes):
    """A participant's token with attributes (`rollcall token --attr`), as a guest link's backend would mint it."""
    arguments = [str(BINARY), "token", "--config", str(CONFIG), "--uid", uid, "--name", name]
    for group in groups:
        arguments += ["--group", group]
    for key, value in attributes.items():
        arguments += ["--attr", f"{key}={value}"]
    result = subprocess.run(arguments, cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=10, check=True)
    return result.stdout.strip()


async def answer_to(client, request_id, skip=("waiting",)):
    """The next message answering `request_id`, past those of the types in `skip` (a wait's position updates)."""
    for _ in range(50):
        message = await client.recv()
        if message.get("id") == request_id and message.get("type") not in skip:
            return message
    raise AssertionError(f"{client.name}: no answer to {request_id}")


async def closed_with(client, code):
    """Reads what is still on the way (the events of the removal) until the close, which must carry `code`."""
    for _ in range(20):
        try:
            await client.recv()
        except ConnectionClosed as closed:
            assert closed.code == code, f"{client.name}: closed with {closed}"
            return
    raise AssertionError(f"{client.name}: not closed")


async def wait_until(browser, expression, what, timeout=BROWSER_TIMEOUT):
    """Polls a boolean expression in the page until it is true (bounded)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if await browser.evaluate(expression) is True:
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"{what}: still false after {timeout} s: {expression}")


def test_dashboard_shows_every_room_live_and_survives_drops_and_restarts(rollcall):
    from browser_support import TcpProxy

    server = rollcall(**{"rooms.patch_window_ms": 20, "rooms.reconnect_grace_ms": 30000})
    http = server.url.replace("ws://", "http://").rsplit("/v1/ws", 1)[0]
    listen = http.split("//", 1)[1]
    servers = [server]
    observer = mint("ops", name="Operator", rooms=[ROOM, "design"], role="admin")
    alice_token = mint("alice", name="Alice", rooms=[ROOM], role="moderator")
    bob_token = mint("bob", name="Bob", groups=[ROOM])
    carol_token = mint("carol", name="Carol", rooms=["design"])
    browser = Browser()

    async def scenario():
        proxy = TcpProxy(int(listen.rsplit(":", 1)[1]))
        await proxy.start()
        try:
            # Through the proxy, so the test can cut the page's connection; the token in the fragment only.
            await browser.open(f"http://127.0.0.1:{proxy.port}/dashboard#token={observer}")
            await browser.wait_for("document.getElementById('status').textContent", "connected as Operator",
                                   "the dashboard's connection")
            assert observer not in await browser.evaluate("location.href"), "the token stays out of the address"
            assert observer not in await browser.evaluate("document.documentElement.outerHTML")
            assert await browser.evaluate("document.getElementById('token').type") == "password"
            for room in (ROOM, "design"):
                await browser.wait_for(f"document.querySelector('#room-list li[data-room=\"{room}\"]') !== null",
                                       True, f"{room} in the room list")
                await browser.wait_for(f"document.querySelector('section.room[data-room=\"{room}\"]') !== null",
                                       True, f"{room}'s card")
            alice = await Client.connect("alice", server.url, alice_token)
            bob = await Client.connect("bob", server.url, bob_token)
            carol = await Client.connect("carol", server.url, carol_token)
            await alice.join(device="web")
            await bob.join(device="phone")
            await carol.join(room="design", device="web")
            await browser.wait_for(cell("bob", "name"), "Bob", "Bob in the roster")
            await browser.wait_for(cell("alice", "role"), "moderator", "Alice's role")
            await browser.wait_for(cell("carol", "name", room="design"), "Carol", "Carol in the other room")
            await browser.wait_for(cell("bob", "muted"), "", "Bob unmuted at first")
            await wait_until(browser, f"{room_field('checksum')}.startsWith('checksum ✓ ')", "the verified checksum")

            # A change shows within a second.
            await bob.request({"type": "state", "room": ROOM, "handRaised": True})
            await wait_until(browser, f"{cell('bob', 'hand')} === '●'", "Bob's hand within a second", timeout=1.0)
            await bob.request({"type": "state", "room": ROOM, "audioMuted": True})
            await alice.request({"type": "state", "room": ROOM, "presenting": True, "videoPaused": True})
            await bob.request({"type": "speaker", "room": ROOM, "uid": "bob"})
            await browser.wait_for(cell("bob", "muted"), "●", "Bob muted")
            await browser.wait_for(cell("alice", "sharing"), "●", "Alice sharing")
            await browser.wait_for(cell("alice", "video-off"), "●", "Alice's video off")
            await browser.wait_for(cell("bob", "speaking"), "●", "Bob speaking")
            await wait_until(browser, f"{room_field('summary')}.includes('1 hand raised')", "the room's raised hands")

            # The operator reads the attendance: everyone who joined, Bob's one raised hand, a click away.
            attendance = f"section.room[data-room=\"{ROOM}\"] [data-field=\"attendance\"]"
            await browser.wait_for(f"document.querySelector('{attendance}').hidden", False, "the attendance button")
            await browser.evaluate(f"document.querySelector('{attendance} button[data-action=\"attendance\"]').click()")
            bob_hands = f"(document.querySelector('{attendance} tr[data-attendee=\"bob\"] td[data-field=\"hands\"]') || {{}}).textContent"
            await browser.wait_for(bob_hands, "1", "Bob's raised hands in the attendance")
            await browser.wait_for(
                f"[...document.querySelectorAll('{attendance} tbody tr')].map((row) => row.dataset.attendee).join(',')",
                "alice,bob", "the attendance in join order")
            await browser.wait_for(
                f"(document.querySelector('{attendance} tr[data-attendee=\"alice\"] td[data-field=\"left\"]') || {{}}).textContent",
                "in the call", "Alice still in the call")

            # A meeting message and the dashboard's own moderator actions, with the gateway's answers.
            await alice.request({"type": "meeting", "group": ROOM, "sessionId": "call-1", "text": "Daily standup"})
            await wait_until(browser, "[...document.querySelectorAll('section.room li.notable')]"
                                      ".some((item) => item.textContent.includes('meeting on: Daily standup'))",
                             "the meeting message")
            await browser.evaluate(click("bob", "lower_hand"))
            await wait_until(browser, f"{room_field('answer')}.startsWith('lower_hand bob: ok, changed')",
                             "the answer to lower hand")
            await browser.wait_for(cell("bob", "hand"), "", "Bob's hand lowered")
            await browser.evaluate(click("alice", "mute"))
            await wait_until(browser, f"{room_field('answer')}.startsWith('mute alice: ok')", "the answer to mute")
            await wait_until(browser, "[...document.querySelectorAll('section.room li.notable')]"
                                      ".some((item) => item.textContent.includes('moderation.muted alice by ops'))",
                             "the moderation event")
            await browser.screenshot(ARTIFACTS / "dashboard.png")

            # A dropped connection: the page says so, and catches up when it is back.
            proxy.accepting = False
            proxy.cut()
            await wait_until(browser, "document.getElementById('status').textContent.startsWith('reconnecting')",
                             "the reconnecting state")
            assert await browser.evaluate("document.getElementById('banner').hidden") is False
            await browser.screenshot(ARTIFACTS / "dashboard-reconnecting.png")
            await bob.request({"type": "state", "room": ROOM, "presenting": True})
            proxy.accepting = True
            await browser.wait_for("document.getElementById('status').textContent", "connected as Operator",
                                   "connected again")
            await browser.wait_for(cell("bob", "sharing"), "●", "the change made while disconnected")

            # A gateway restart: a new process on the same address, which starts with empty rooms.
            await alice.close()
            await bob.close()
            await carol.close()
            assert server.stop() == 0
            servers.remove(server)
            await wait_until(browser, "document.getElementById('status').textContent.startsWith('reconnecting')",
                             "reconnecting while the gateway is down")
            restarted = rollcall(listen, **{"rooms.patch_window_ms": 20})
            servers.append(restarted)
            dave = await Client.connect("dave", restarted.url, mint("dave", name="Dave", groups=[ROOM]))
            await dave.join(device="web")
            await browser.wait_for("document.getElementById('status').textContent", "connected as Operator",
                                   "connected to the new process")
            await browser.wait_for(cell("dave", "name"), "Dave", "the new process's roster")
            await browser.wait_for(f"document.querySelector('section.room[data-room=\"{ROOM}\"] tr[data-uid=\"bob\"]')"
                                   " === null", True, "the old roster gone")

            # Removing from the dashboard closes the target's connection for good.
            await browser.evaluate(click("dave", "remove"))
            await wait_until(browser, f"{room_field('answer')}.startsWith('remove dave: ok')", "the answer to remove")
            await closed_with(dave, 4003)
            await browser.wait_for(f"document.querySelector('section.room[data-room=\"{ROOM}\"] tr[data-uid=\"dave\"]')"
                                   " === null", True, "Dave removed")
        finally:
            await proxy.close()
            if browser.socket is not None:
                await browser.socket.close()

    try:
        asyncio.run(asyncio.wait_for(scenario(), 90))
    finally:
        browser.close()


def test_dashboard_waiting_room_lists_who_waits_and_admits_or_denies(rollcall):
    server = rollcall(**{"rooms.patch_window_ms": 20})
    http = server.url.replace("ws://", "http://").rsplit("/v1/ws", 1)[0]
    observer = mint("ops", name="Operator", rooms=[ROOM], role="admin")
    panel = f"section.room[data-room=\"{ROOM}\"] [data-field=\"waiting-room\"]"
    browser = Browser()

    async def scenario():
        try:
            await browser.open(f"{http}/dashboard#token={observer}")
            await browser.wait_for("document.getElementById('status').textContent", "connected as Operator",
                                   "the dashboard's connection")
            bob = await Client.connect("bob", server.url, mint("bob", name="Bob", groups=[ROOM]))
            await bob.join(device="phone")
            await browser.wait_for(cell("bob", "name"), "Bob", "Bob in the roster")
            # An operator who may admit sees the waiting room, off at first, and turns it on.
            await browser.wait_for(f"document.querySelector('{panel}').hidden", False, "the waiting room panel")
            await browser.wait_for(f"document.querySelector('{panel}').dataset.admission", "off", "off at first")
            await browser.evaluate(f"document.querySelector('{panel} button[data-action=\"admission\"]').click()")
            await wait_until(browser, f"{room_field('answer')}.startsWith('require_admission: ok, changed')",
                             "the answer to require_admission")
            await browser.wait_for(f"document.querySelector('{panel}').dataset.admission", "on", "the waiting room on")

            # Two guests join the call: both wait, in arrival order, and the page lists them.
            carol = await Client.connect("carol", server.url,
                                         mint_guest("carol", "Carol", [ROOM], company="Acme", ticket="VIP"))
            carol_wait = await carol.request({"type": "join", "room": ROOM, "device": "web"})
            assert carol_wait["type"] == "waiting" and carol_wait["position"] == 1, carol_wait
            dave = await Client.connect("dave", server.url, mint_guest("dave", "Dave", [ROOM]))
            dave_wait = await dave.request({"type": "join", "room": ROOM, "device": "web"})
            assert dave_wait["type"] == "waiting" and dave_wait["position"] == 2, dave_wait
            await browser.wait_for(f"document.querySelector('{panel}').dataset.waiting", "2", "two waiting")
            await browser.wait_for(
                f"[...document.querySelectorAll('{panel} tbody tr')].map((row) => row.dataset.waiting).join(',')",
                "carol,dave", "who waits, in arrival order")
            carol_row = waiting_row("carol")
            await browser.wait_for(f"document.querySelector('{carol_row} td[data-field=\"name\"]').textContent",
                                   "Carol", "Carol's name")
            await browser.wait_for(
                f"document.querySelector('{carol_row} td[data-field=\"attributes\"]').textContent",
                "company: Acme, ticket: VIP", "Carol's attributes")
            # How long each waits, counting up.
            waited = f"document.querySelector('{carol_row} td[data-field=\"waited\"]').textContent"
            await wait_until(browser, f"/^\\d+:\\d\\d$/.test({waited}) && {waited} !== '0:00'",
                             "how long Carol waits")
            assert await browser.evaluate(f"document.querySelector('{panel}').parentElement.querySelector("
                                          "'[data-field=\"summary\"]').textContent.includes('2 waiting')")
            await browser.screenshot(ARTIFACTS / "dashboard-waiting.png")

            # Admit: Carol's join goes on, its ack then its snapshot, and she is in the roster.
            await browser.evaluate(f"document.querySelector('{carol_row} button[data-action=\"admit\"]').click()")
            ack = await answer_to(carol, carol_wait["id"])
            assert ack["type"] == "ack", ack
            snapshot = await carol.expect(type="snapshot", room=ROOM)
            assert "carol" in snapshot["roster"]["participants"], snapshot
            await wait_until(browser, f"{room_field('answer')}.startsWith('admit carol: ok, changed')",
                             "the answer to admit")
            await browser.wait_for(cell("carol", "name"), "Carol", "Carol in the roster")
            await browser.wait_for(f"document.querySelector('{carol_row}') === null", True, "Carol's row gone")

            # Deny, with a reason: Dave's join is refused with it.
            await browser.evaluate(f"document.querySelector('{panel} input[data-field=\"deny-reason\"]').value = "
                                   "'invite only'")
            dave_row = waiting_row("dave")
            await browser.evaluate(f"document.querySelector('{dave_row} button[data-action=\"deny\"]').click()")
            refusal = await answer_to(dave, dave_wait["id"])
            assert refusal["type"] == "error" and refusal["code"] == "ERR_ADMISSION_DENIED", refusal
            assert "invite only" in refusal["message"], refusal
            await browser.wait_for(f"document.querySelector('{panel}').dataset.waiting", "0", "nobody waiting")
            await browser.wait_for(f"document.querySelector('{panel} tbody td.empty') !== null", True,
                                   "the empty list")
            assert await browser.evaluate(f"document.querySelector('section.room[data-room=\"{ROOM}\"] "
                                          "tr[data-uid=\"dave\"]')") is None

            # Turned off from the page, a join goes straight in.
            await browser.evaluate(f"document.querySelector('{panel} button[data-action=\"admission\"]').click()")
            await browser.wait_for(f"document.querySelector('{panel}').dataset.admission", "off", "the waiting room off")
            await dave.join(device="web")
            await browser.wait_for(cell("dave", "name"), "Dave", "Dave in the roster")
            for client in (bob, carol, dave):
                await client.close()
        finally:
            if browser.socket is not None:
                await browser.socket.close()

    try:
        asyncio.run(asyncio.wait_for(scenario(), 60))
    finally:
        browser.close()


def test_dashboard_refusals_are_shown_and_the_token_form_keeps_it_hidden(rollcall):
    server = rollcall(**{"rooms.patch_window_ms": 20})
    http = server.url.replace("ws://", "http://").rsplit("/v1/ws", 1)[0]
    viewer = mint("watcher", name="Watcher", rooms=[ROOM], role="viewer")
    browser = Browser()

    async def scenario():
        try:
            await browser.open(f"{http}/dashboard")
            await browser.wait_for("document.getElementById('token-form').hidden", False, "the token form")
            await browser.evaluate(f"document.getElementById('token').value = {json.dumps(viewer)}; "
                                   "document.getElementById('token-form').requestSubmit()")
            await browser.wait_for("document.getElementById('status').textContent", "connected as Watcher",
                                   "connected with the typed token")
            assert await browser.evaluate("document.getElementById('token').value") == ""
            assert await browser.evaluate("sessionStorage.getItem('rollcall.dashboard.token')") == viewer
            bob = await Client.connect("bob", server.url, mint("bob", name="Bob", groups=[ROOM]))
            await bob.join(device="phone")
            await browser.wait_for(cell("bob", "name"), "Bob", "Bob in the roster")
            # A viewer may not admit: no waiting room panel.
            assert await browser.evaluate(f"document.querySelector('section.room[data-room=\"{ROOM}\"] "
                                          "[data-field=\"waiting-room\"]').hidden") is True
            await browser.evaluate(click("bob", "mute"))
            await wait_until(browser, f"{room_field('answer')}.startsWith('mute bob: ERR_FORBIDDEN')",
                             "the refusal")
            # A reload keeps the tab's token; the address never holds it.
            await browser.call("Page.reload", session=True)
            await browser.wait_for("document.getElementById('status').textContent", "connected as Watcher",
                                   "connected after a reload")
            assert viewer not in await browser.evaluate("location.href")
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


def test_the_gateway_serves_the_dashboard_package_as_committed(rollcall):
    server = rollcall()
    http = server.url.replace("ws://", "http://").rsplit("/v1/ws", 1)[0]
    import urllib.request
    package = PROJECT_ROOT / "clients" / "dashboard"
    scripts = sorted(path.name for path in (package / "dist").glob("*.js"))
    assert "dashboard.js" in scripts
    for name in scripts:
        with urllib.request.urlopen(f"{http}/dashboard/{name}", timeout=5) as answer:
            assert answer.read() == (package / "dist" / name).read_bytes(), name
    with urllib.request.urlopen(f"{http}/dashboard", timeout=5) as answer:
        page = answer.read().decode()
    assert page == (package / "dashboard.html").read_text(), "the default rooms path leaves the page as it is"
