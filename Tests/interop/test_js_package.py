"""The JavaScript client as an app installs it: `npm pack` makes the tarball, a throwaway project outside the
repository installs it offline, bundles the documented Node example with esbuild, and runs it, bundled and as
installed, against a live gateway on the Node this machine has.
"""

import asyncio
import json
import re
import shutil
import subprocess

from test_call_end_to_end import PROJECT_ROOT, ROOM, mint, rollcall, run  # noqa: F401 (the fixture)

from rollcall import Client

CLIENT = PROJECT_ROOT / "clients" / "js"
EXAMPLE = CLIENT / "examples" / "roster.mjs"
STEP_TIMEOUT = 30.0


def node_flags():
    """Node 20 has WebSocket behind a flag; Node 22 has it without."""
    flagged = subprocess.run(["node", "--experimental-websocket", "-e", ""], capture_output=True)
    return ["--experimental-websocket"] if flagged.returncode == 0 else []


def npm(*arguments, cwd, cache):
    result = subprocess.run(
        ["npm", *arguments, "--offline", "--no-audit", "--no-fund", "--cache", str(cache)],
        cwd=cwd, capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 0, f"npm {' '.join(arguments)}:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return result.stdout


def installed_project(tmp_path):
    """Packs the client, installs the tarball into a fresh project offline, bundles the example there."""
    cache = tmp_path / "npm-cache"
    packed = tmp_path / "packed"
    packed.mkdir()
    npm("pack", "--pack-destination", str(packed), cwd=CLIENT, cache=cache)
    tarballs = list(packed.glob("rollcall-client-*.tgz"))
    assert len(tarballs) == 1, tarballs
    app = tmp_path / "app"
    app.mkdir()
    (app / "package.json").write_text(json.dumps({"name": "meeting-bot", "private": True, "type": "module"}))
    npm("install", str(tarballs[0]), cwd=app, cache=cache)
    installed = app / "node_modules" / "rollcall-client"
    assert (installed / "dist" / "rollcall.min.js").is_file() and (installed / "dist" / "rollcall.d.ts").is_file()
    assert not (installed / "src").exists(), "the package ships the build, not the sources"
    assert not (installed / "dashboard").exists(), "the dashboard is a package of its own (clients/dashboard)"
    shutil.copyfile(EXAMPLE, app / "roster.mjs")
    result = subprocess.run(
        ["esbuild", "roster.mjs", "--bundle", "--platform=node", "--format=esm", "--target=node20",
         "--outfile=dist/roster.mjs", "--log-level=warning"],
        cwd=app, capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 0, result.stderr
    bundled = (app / "dist" / "roster.mjs").read_text()
    assert 'from "rollcall-client"' not in bundled and "resumeEvents" in bundled, "the client is inside the bundle"
    return app


async def run_example(app, script, url, token, moderator_room):
    process = await asyncio.create_subprocess_exec(
        "node", *node_flags(), script, url, ROOM, cwd=app, env={"PATH": "/usr/bin:/bin", "ROLLCALL_TOKEN": token},
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )
    lines = []

    async def line_matching(pattern, what):
        while True:
            line = await asyncio.wait_for(process.stdout.readline(), STEP_TIMEOUT)
            assert line, f"the example ended before {what}: {lines} {(await process.stderr.read()).decode()[-2000:]}"
            lines.append(line.decode().rstrip("\n"))
            if re.fullmatch(pattern, lines[-1]):
                return lines[-1]

    try:
        await line_matching(r"seq \d+: .*Node Bot \(hand up\).*", "its raised hand")
        await moderator_room.lower_hand_of("node-bot", reason="answered")
        await line_matching(r"seq \d+: (?!.*Node Bot \(hand up\)).*Node Bot.*", "its lowered hand")
        assert await line_matching(r"left and closed", "leaving") == "left and closed"
        assert await asyncio.wait_for(process.wait(), STEP_TIMEOUT) == 0
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    await moderator_room.wait_for(lambda room: room.participant("node-bot") is None
                                  or room.participant("node-bot").state != "joined")
    return lines


def test_a_throwaway_project_installs_the_packed_client_offline_bundles_it_and_runs_it_in_node(rollcall, tmp_path):
    app = installed_project(tmp_path)
    server = rollcall(**{"rooms.patch_window_ms": 20})

    async def scenario():
        async with Client(server.url, mint("mod", name="Mod", rooms=[ROOM], role="moderator"),
                          request_timeout=5) as moderator:
            room = await moderator.join(ROOM)
            for script in ("dist/roster.mjs", "roster.mjs"):
                token = mint("node-bot", name="Node Bot", groups=[ROOM])
                lines = await run_example(app, script, server.url, token, room)
                assert any("Mod" in line for line in lines), lines

    run(scenario())


def test_docs_show_the_node_example_as_it_is():
    docs = (PROJECT_ROOT / "docs" / "CLIENT.md").read_text()
    assert EXAMPLE.read_text().strip() in docs, "docs/CLIENT.md must show clients/js/examples/roster.mjs as it is"
