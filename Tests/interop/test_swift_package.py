"""The Swift client as a library product: a package outside the repository depends on `RollcallClient` by path,
builds, and runs against a live gateway; and the module compiles without its Linux transport, as it must on Apple
platforms (where an app supplies a `RollcallTransport`).
"""

import asyncio
import re
import shutil
import subprocess

from test_call_end_to_end import BINARY, PROJECT_ROOT, ROOM, configured_key, rollcall, run  # noqa: F401

from rollcall import Client, TokenKey, mint_token

PROBE_TIMEOUT = 30.0


def key():
    kid, secret = configured_key()
    return TokenKey.parse(f"{kid}:{secret}")


async def read_line(process, what):
    line = await asyncio.wait_for(process.stdout.readline(), PROBE_TIMEOUT)
    assert line, f"the probe ended before {what}: {(await process.stderr.read()).decode()[-2000:]}"
    return line.decode().strip()


def test_a_throwaway_package_joins_sees_a_patch_and_leaves(rollcall, swift_probe):
    server = rollcall()

    async def scenario():
        watcher = Client(server.url, mint_token(key(), "ops", rooms=[ROOM], role="admin"), request_timeout=5)
        await watcher.connect()
        watched = await watcher.observe(ROOM)
        events = []
        watched.on_event(events.append)
        token = mint_token(key(), "swift-app", name="Swift App", groups=[ROOM])
        probe = await asyncio.create_subprocess_exec(
            str(swift_probe), "smoke", server.url, token, ROOM,
            stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        )
        try:
            joined = await read_line(probe, "joining")
            assert re.fullmatch(r"joined \d+ swift-app", joined), joined
            # Bob's join reaches the probe as a patch.
            async with Client(server.url, mint_token(key(), "bob", groups=[ROOM]), request_timeout=5) as bob:
                await bob.join(ROOM)
                patched = await read_line(probe, "the patch")
                assert re.fullmatch(r"patched \d+ [0-9a-f]{16} verified=true swift-app,bob", patched), patched
                assert await read_line(probe, "leaving") == "left drifts=0"
                assert await read_line(probe, "closing") == "closed"
                assert await asyncio.wait_for(probe.wait(), PROBE_TIMEOUT) == 0
                await watched.wait_for(lambda room: room.participant("swift-app") is None
                                       or room.participant("swift-app").state != "joined")
        finally:
            if probe.returncode is None:
                probe.kill()
                await probe.wait()
        probe_events = [(event.name, event.data.get("reason")) for event in events if event.uid == "swift-app"]
        assert probe_events == [("participant.joined", None), ("participant.left", "left")], probe_events
        await watcher.close()

    run(scenario())


def test_the_client_module_compiles_without_its_linux_transport(tmp_path):
    sources = sorted((PROJECT_ROOT / "Sources" / "RollcallClient").glob("*.swift"))
    linux_only = {path.name for path in sources if path.name.startswith("RollcallConnection")}
    # Outside the Linux transport's files nothing imports Glibc or EventIO.
    for path in sources:
        if path.name not in linux_only:
            imports = re.findall(r"^\s*import\s+(\w+)", path.read_text(), re.MULTILINE)
            assert not {"Glibc", "EventIO", "WebSocketDeflate", "CWebSocket"} & set(imports), (path.name, imports)
    # Type-check the module with only the portable modules it depends on in sight: `canImport(EventIO)` is false,
    # so the Linux transport drops out as it does on Apple platforms.
    built = BINARY.parent / "Modules" if (BINARY.parent / "Modules").is_dir() else BINARY.parent
    for module in ("JSONCoding", "HTTPCore", "WebSocketCore"):
        source = built / f"{module}.swiftmodule"
        (shutil.copytree if source.is_dir() else shutil.copyfile)(source, tmp_path / source.name)
    assert not (tmp_path / "EventIO.swiftmodule").exists()
    result = subprocess.run(
        ["swiftc", "-typecheck", "-module-name", "RollcallClient", "-I", str(tmp_path), *map(str, sources)],
        capture_output=True, text=True, timeout=300,
    )
    assert result.returncode == 0, result.stderr[-4000:]
    # And the Linux transport really is what dropped out: using it without EventIO does not compile.
    probe = tmp_path / "UsesTheLinuxTransport.swift"
    probe.write_text("func make() -> Any { RollcallConnectionOptions() }\n")
    result = subprocess.run(
        ["swiftc", "-typecheck", "-module-name", "RollcallClient", "-I", str(tmp_path), *map(str, sources),
         str(probe)],
        capture_output=True, text=True, timeout=300,
    )
    assert result.returncode != 0 and "RollcallConnectionOptions" in result.stderr, result.stderr[-2000:]


async def run_probe(swift_probe, *arguments):
    return await asyncio.create_subprocess_exec(
        str(swift_probe), *arguments,
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )


def test_the_observable_model_follows_a_live_room_on_the_main_actor(rollcall, swift_probe):
    server = rollcall()

    async def scenario():
        token = mint_token(key(), "swift-app", name="Swift App", rooms=[ROOM], role="moderator")
        probe = await run_probe(swift_probe, "model", server.url, token, ROOM)
        try:
            first = await read_line(probe, "the model's first roster")
            assert first in ("model swift-app", "model "), first
            async with Client(server.url, mint_token(key(), "bob", groups=[ROOM]), request_timeout=5) as bob:
                await bob.join(ROOM)
                shown = await read_line(probe, "the model showing Bob")
                assert re.fullmatch(r"model swift-app,bob seq=\d+ operator=true actions=\d+", shown), shown
                assert await read_line(probe, "leaving") == "left ended=true"
                assert await read_line(probe, "closing") == "closed"
                assert await asyncio.wait_for(probe.wait(), PROBE_TIMEOUT) == 0
        finally:
            if probe.returncode is None:
                probe.kill()
                await probe.wait()

    run(scenario())


def test_the_urlsession_transport_connects_or_reports_what_the_platform_lacks(rollcall, swift_probe):
    # FoundationNetworking's WebSocket task runs over libcurl; where libcurl was built without WebSocket support
    # (Debian's Swift toolchains) the task fails at once, and the client reports that as its connect failure.
    server = rollcall()

    async def scenario():
        token = mint_token(key(), "swift-app", name="Swift App", groups=[ROOM])
        probe = await run_probe(swift_probe, "urlsession", server.url, token, ROOM)
        try:
            outcome = await read_line(probe, "connecting over URLSession")
            assert (outcome == "joined swift-app"
                    or outcome.startswith("failed ") and "WebSockets not supported by libcurl" in outcome), outcome
            assert await read_line(probe, "closing") == "closed"
            assert await asyncio.wait_for(probe.wait(), PROBE_TIMEOUT) == 0
        finally:
            if probe.returncode is None:
                probe.kill()
                await probe.wait()

    run(scenario())
