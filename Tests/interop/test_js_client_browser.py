"""The browser client (clients/js) in a real headless Chromium.

Pages are served from their own loopback origin and import the client's bundle (`/client/rollcall.min.js`) from the
gateway, as an app's pages do. The convergence test seeds 2,000 roster changes from other clients and compares the page's store with a fresh
snapshot, then cuts the page's connection (a TCP proxy drops it) and checks the page resumes with
`recovered: true`. The participant list of docs/CLIENT.md is tested as the docs show it.
"""

import asyncio
import json
import random
import time
from urllib.parse import quote, urlencode

from browser_support import PageServer, Seeder, TcpProxy, canonical, fresh_snapshot
from test_call_end_to_end import PROJECT_ROOT, Client, mint, rollcall  # noqa: F401 (the fixture)
from test_dashboard import BROWSER_TIMEOUT, Browser

ROOM = "convergence"
VIEW = {"filter": "muted", "limit": 10}
SEEDERS = 20
CHANGES_PER_SEEDER = 100
FIELDS = ("audioMuted", "handRaised", "presenting", "videoPaused")
EXAMPLE = PROJECT_ROOT / "clients" / "js" / "examples" / "participants.html"


def http_origin(server):
    return server.url.replace("ws://", "http://").rsplit("/v1/ws", 1)[0]


async def page_summary(browser):
    return await browser.evaluate("window.rollcallTest.summary()")


async def wait_converged(browser, server_url, token):
    """Waits (bounded) until the page's roster is at the seq of a fresh snapshot, then compares them."""
    fresh = await fresh_snapshot(server_url, token, ROOM, VIEW)
    deadline = time.monotonic() + BROWSER_TIMEOUT
    summary = None
    while time.monotonic() < deadline:
        summary = await page_summary(browser)
        if summary["seq"] >= fresh["seq"]:
            break
        await asyncio.sleep(0.1)
    assert summary["seq"] == fresh["seq"], f"the page is at {summary['seq']}, a fresh snapshot at {fresh['seq']}"
    assert summary["canonical"] == canonical(fresh["roster"])
    assert summary["checksum"] == fresh["checksum"] == summary["recomputed"]
    return fresh, summary


def test_page_store_converges_over_2000_changes_and_resumes_after_a_cut(rollcall):
    server = rollcall(**{"rooms.patch_window_ms": 20, "rooms.capacity": 50})
    gateway = http_origin(server)
    port = int(gateway.rsplit(":", 1)[1])
    admin = mint("checker", rooms=[ROOM], role="admin")
    pages = PageServer({"/convergence.html": (PROJECT_ROOT / "Tests/interop/pages/convergence.html").read_text()},
                       lambda uid: mint(uid, name="Watcher", rooms=[ROOM], role="admin"))
    browser = Browser()
    rng = random.Random(7)

    async def scenario():
        proxy = TcpProxy(port)
        await proxy.start()
        seeders = []
        try:
            # The fox joins first, so it stays inside the view's window of ten.
            fox = await Seeder.join("🦊-fox", server.url, mint("🦊-fox", name="Fox 🦊", groups=[ROOM]), ROOM)
            seeders.append(fox)
            for index in range(SEEDERS):
                uid = f"p{index:02d}"
                seeders.append(await Seeder.join(uid, server.url, mint(uid, name=f"P {index}", groups=[ROOM]), ROOM))
            query = urlencode({"gateway": gateway, "socket": f"ws://127.0.0.1:{proxy.port}/v1/ws", "uid": "watcher",
                               "room": ROOM, "view": json.dumps(VIEW)})
            await browser.open(f"{pages.origin}/convergence.html?{query}")
            await browser.wait_for("window.rollcallTest && (window.rollcallTest.ready || window.rollcallTest.error)",
                                   True, "the page's client")
            assert await browser.evaluate("window.rollcallTest.error") is None

            async def churn(seeder, count):
                state = dict.fromkeys(FIELDS, False)
                for _ in range(count):
                    field = rng.choice(FIELDS)
                    state[field] = not state[field]
                    await seeder.change(ROOM, **{field: state[field]})

            await asyncio.gather(*(churn(seeder, CHANGES_PER_SEEDER) for seeder in seeders[1:]))
            assert sum(seeder.changed for seeder in seeders) == SEEDERS * CHANGES_PER_SEEDER
            await fox.change(ROOM, audioMuted=True, handRaised=True)
            _, summary = await wait_converged(browser, server.url, admin)
            assert "🦊-fox" in summary["uids"]
            assert await browser.evaluate("window.rollcallTest.drifts") == []
            assert await browser.evaluate("window.rollcallTest.events") > SEEDERS * CHANGES_PER_SEEDER

            # The connection is cut and refused for a while; changes go on meanwhile.
            proxy.accepting = False
            proxy.cut()
            await browser.wait_for("window.rollcallTest.statuses.includes('reconnecting')", True, "reconnecting")
            for seeder in seeders[1:11]:
                await seeder.change(ROOM, audioMuted=True)
                await seeder.change(ROOM, handRaised=True)
            proxy.accepting = True
            await browser.wait_for("window.rollcallTest.resumes.length", 1, "the resume")
            assert await browser.evaluate("window.rollcallTest.resumes") == [True]
            await wait_converged(browser, server.url, admin)
            assert await browser.evaluate("window.rollcallTest.drifts") == []
            assert await browser.evaluate("window.rollcallTest.statuses.at(-1)") == "connected"
        finally:
            for seeder in seeders:
                await seeder.close()
            await proxy.close()
            if browser.socket is not None:
                await browser.socket.close()

    try:
        asyncio.run(asyncio.wait_for(scenario(), 120))
    finally:
        browser.close()
        pages.close()


def example_page(gateway_address):
    """The participant list exactly as docs/CLIENT.md shows it, pointed at the test's gateway."""
    page = EXAMPLE.read_text()
    docs = (PROJECT_ROOT / "docs" / "CLIENT.md").read_text()
    assert page.strip() in docs, "docs/CLIENT.md must show clients/js/examples/participants.html as it is"
    return page.replace("127.0.0.1:8080", gateway_address)


def test_the_documented_participant_list_works_in_a_plain_page(rollcall):
    server = rollcall(**{"rooms.patch_window_ms": 20})
    gateway = http_origin(server)
    pages = PageServer({"/participants.html": example_page(gateway.split("//", 1)[1])},
                       lambda uid: mint("viewer", name="Viewer", rooms=["standup"], role="viewer"))
    browser = Browser()

    def person(uid):
        return f"(document.querySelector('#people li[data-uid=\"{uid}\"]') || {{}}).textContent"

    async def scenario():
        try:
            alice = await Client.connect("alice", server.url, mint("alice", name="Alice", rooms=["standup"],
                                                                   role="moderator"))
            await alice.join(device="web")
            await browser.open(f"{pages.origin}/participants.html")
            await browser.wait_for(person("alice"), "Alice", "Alice in the list")
            bob = await Client.connect("bob", server.url, mint("bob", name="Bob", groups=["standup"]))
            await bob.join(device="phone")
            await browser.wait_for(person("bob"), "Bob", "Bob in the list")
            await bob.request({"type": "state", "room": "standup", "audioMuted": True, "handRaised": True})
            await browser.wait_for(person("bob"), "Bob (muted) ✋", "Bob muted with his hand up")
            await bob.request({"type": "leave", "room": "standup"})
            await browser.wait_for("document.querySelectorAll('#people li').length", 1, "Bob gone")
            await alice.close()
            await bob.close()
        finally:
            if browser.socket is not None:
                await browser.socket.close()

    try:
        asyncio.run(asyncio.wait_for(scenario(), 60))
    finally:
        browser.close()
        pages.close()


def test_the_module_is_served_cacheable_and_importable_from_other_origins(rollcall):
    import urllib.error
    import urllib.request
    server = rollcall()
    gateway = http_origin(server)
    with urllib.request.urlopen(f"{gateway}/client/rollcall.js", timeout=5) as answer:
        assert answer.headers["Content-Type"] == "text/javascript; charset=utf-8"
        assert answer.headers["Access-Control-Allow-Origin"] == "*"
        assert answer.headers["Cache-Control"] == "no-cache"
        entity_tag = answer.headers["ETag"]
        assert b"export { Rollcall }" in answer.read()
    request = urllib.request.Request(f"{gateway}/client/rollcall.js", headers={"If-None-Match": entity_tag})
    try:
        urllib.request.urlopen(request, timeout=5)
        raise AssertionError("expected 304")
    except urllib.error.HTTPError as not_modified:
        assert not_modified.code == 304
        assert not_modified.headers["ETag"] == entity_tag
        assert not_modified.read() == b""
    with urllib.request.urlopen(f"{gateway}/client/rollcall.d.ts", timeout=5) as answer:
        assert b"export { Rollcall }" in answer.read()
    # The bundle: one minified module naming its source map, which carries the TypeScript sources.
    with urllib.request.urlopen(f"{gateway}/client/rollcall.min.js", timeout=5) as answer:
        assert answer.headers["Content-Type"] == "text/javascript; charset=utf-8"
        assert answer.headers["Access-Control-Allow-Origin"] == "*"
        bundle = answer.read()
        assert bundle.endswith(b"//# sourceMappingURL=rollcall.min.js.map\n")
        assert b'from"./' not in bundle and b'from "./' not in bundle
    with urllib.request.urlopen(f"{gateway}/client/rollcall.min.js.map", timeout=5) as answer:
        assert answer.headers["Content-Type"] == "application/json; charset=utf-8"
        source_map = json.loads(answer.read())
        assert "../src/client.ts" in source_map["sources"]
        assert len(source_map["sourcesContent"]) == len(source_map["sources"])
    with urllib.request.urlopen(f"{gateway}/client/rollcall.min.d.ts", timeout=5) as answer:
        assert b'export * from "./rollcall.js";' in answer.read()
    try:
        urllib.request.urlopen(f"{gateway}/client/{quote('../etc')}", timeout=5)
        raise AssertionError("expected 404")
    except urllib.error.HTTPError as missing:
        assert missing.code == 404


VECTORS_PAGE = """<!doctype html>
<meta charset="utf-8">
<script type="module">
  const gateway = new URLSearchParams(location.search).get("gateway");
  const { applyMergePatch, diffMergePatch, parseJson, rosterChecksum, canonicalJson } =
    await import(`${gateway}/client/rollcall.min.js`);
  const load = async (name) => parseJson(await (await fetch(`/vectors/${name}`)).text());
  const checksums = (await load("roster-checksum.json")).cases;
  const patches = await load("merge-patch.json");
  window.vectorResults = {
    checksums: checksums.map((vector) => [vector.name, rosterChecksum(vector.roster), vector.checksum]),
    apply: patches.apply.map((vector) =>
      [canonicalJson(applyMergePatch(vector.target, vector.patch)), canonicalJson(vector.result)]),
    diff: patches.diff.map((vector) => [vector.name, canonicalJson(diffMergePatch(vector.before, vector.after) ?? {}),
      canonicalJson(vector.patch), canonicalJson(applyMergePatch(vector.before, vector.patch)), canonicalJson(vector.after)]),
  };
</script>
"""


def test_the_browser_agrees_with_every_shared_vector(rollcall):
    server = rollcall()
    vectors = PROJECT_ROOT / "Tests" / "Vectors"
    pages = PageServer({"/vectors.html": VECTORS_PAGE,
                        "/vectors/roster-checksum.json": (vectors / "roster-checksum.json").read_text(),
                        "/vectors/merge-patch.json": (vectors / "merge-patch.json").read_text()},
                       lambda uid: "")
    browser = Browser()

    async def scenario():
        try:
            await browser.open(f"{pages.origin}/vectors.html?{urlencode({'gateway': http_origin(server)})}")
            await browser.wait_for("window.vectorResults !== undefined", True, "the vector results")
            results = await browser.evaluate("window.vectorResults")
            assert len(results["checksums"]) >= 9
            for name, computed, expected in results["checksums"]:
                assert computed == expected, name
            assert len(results["apply"]) == 15
            for computed, expected in results["apply"]:
                assert computed == expected
            for name, computed, expected, applied, after in results["diff"]:
                assert computed == expected, name
                assert applied == after, name
        finally:
            if browser.socket is not None:
                await browser.socket.close()

    try:
        asyncio.run(asyncio.wait_for(scenario(), 60))
    finally:
        browser.close()
        pages.close()
