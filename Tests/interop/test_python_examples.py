"""The Python package as a bot author gets it: built into a wheel and installed from it into a fresh virtual
environment (from the wheelhouse scripts/python-venv.sh filled, so without the network), running the examples
against a live gateway.
"""

import asyncio
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from test_call_end_to_end import PROJECT_ROOT, ROOM, configured_key, rollcall, run  # noqa: F401

from rollcall import Client, TokenKey, mint_token

PACKAGE = PROJECT_ROOT / "clients" / "python"
WHEELHOUSE = Path(os.environ.get("ROLLCALL_WHEELHOUSE")
                  or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "rollcall" / "wheels")
API_SECRET = "examples-test-secret-0123456789"
LINE_TIMEOUT = 15.0


def development_key():
    kid, secret = configured_key()
    return f"{kid}:{secret}"


def key():
    return TokenKey.parse(development_key())


@pytest.fixture(scope="module")
def fresh_python(tmp_path_factory):
    """A new virtual environment with the package installed from a wheel built from a copy of clients/python."""
    assert any(WHEELHOUSE.glob("websockets-*.whl")), f"no wheels in {WHEELHOUSE}: run scripts/python-venv.sh"
    directory = tmp_path_factory.mktemp("fresh-python")
    source = directory / "rollcall-client"
    shutil.copytree(PACKAGE, source, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    environment = directory / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(environment)], check=True, timeout=120)
    python = environment / "bin" / "python"
    built = subprocess.run(
        [str(python), "-m", "pip", "wheel", "--disable-pip-version-check", "--no-index", "--find-links",
         str(WHEELHOUSE), "--no-deps", "--wheel-dir", str(directory / "dist"), str(source)],
        capture_output=True, text=True, timeout=300,
    )
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    wheels = list((directory / "dist").glob("rollcall_client-*-py3-none-any.whl"))
    assert len(wheels) == 1, wheels
    with zipfile.ZipFile(wheels[0]) as wheel:
        names = set(wheel.namelist())
    modules = {f"rollcall/{path.name}" for path in (PACKAGE / "src" / "rollcall").glob("*.py")}
    assert modules | {"rollcall/py.typed"} <= names, sorted(modules | {"rollcall/py.typed"} - names)
    install = subprocess.run(
        [str(python), "-m", "pip", "install", "--disable-pip-version-check", "--no-index", "--find-links",
         str(WHEELHOUSE), str(wheels[0])],
        capture_output=True, text=True, timeout=300,
    )
    assert install.returncode == 0, install.stdout[-3000:] + install.stderr[-3000:]
    where = subprocess.run([str(python), "-c", "import rollcall; print(rollcall.__file__)"], capture_output=True,
                           text=True, timeout=30, check=True, cwd=directory).stdout.strip()
    assert where.startswith(str(environment)), f"imported from {where}"
    return python, source


async def next_line(process, what):
    line = await asyncio.wait_for(process.stdout.readline(), LINE_TIMEOUT)
    assert line, f"the bot ended before {what}: {(await process.stderr.read()).decode()[-3000:]}"
    return line.decode().rstrip("\n")


async def lines_until(process, prefix, what):
    seen = []
    for _ in range(50):
        line = await next_line(process, what)
        seen.append(line)
        if line.startswith(prefix):
            return line, seen
    raise AssertionError(f"no line starting with {prefix!r}: {seen}")


def test_the_moderator_bot_from_a_fresh_install(rollcall, fresh_python):
    python, source = fresh_python
    server = rollcall(**{"rooms.capacity": 2})

    async def scenario():
        bot = await asyncio.create_subprocess_exec(
            str(python), str(source / "examples" / "moderator_bot.py"), "--url", server.url, "--room", ROOM,
            "--key", development_key(), "--hand-minutes", "0.02", "--check-seconds", "0.2",
            stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        )
        clients = []
        try:
            assert await next_line(bot, "joining") == f"joined {ROOM} as moderator-bot"
            for uid, claims in [("alice", {"rooms": [ROOM], "role": "moderator"}), ("bob", {"groups": [ROOM]}),
                                ("carol", {"groups": [ROOM]})]:
                client = Client(server.url, mint_token(key(), uid, name=uid.title(), **claims), request_timeout=5)
                await client.connect()
                clients.append(client)
            alice, bob, carol = clients
            alice_room = await alice.join(ROOM)
            notices = []
            alice_room.on_event(lambda event: event.name == "meeting.message" and notices.append(event))
            bob_room = await bob.join(ROOM)
            await carol.join(ROOM)
            # Bob and Carol take the two seats; with Alice (a moderator) and the bot the call has four people. Joins
            # within one coalescing window reach the bot in one patch, so it may count three or four at first.
            notice, _ = await lines_until(bot, "notice: ", "the capacity notice")
            assert re.fullmatch(r"notice: The call has [34] participants, over its capacity of 2\.", notice), notice

            await bob_room.raise_hand()
            lowered, _ = await lines_until(bot, "lowered ", "lowering Bob's hand")
            assert lowered == "lowered the hand of bob"
            await bob_room.wait_for(lambda room: not room.participant("bob").hand_raised)

            await bob.meeting(ROOM, "chat", text="/mute alice", active=False)
            ignored, _ = await lines_until(bot, "ignored ", "ignoring Bob's command")
            assert ignored == "ignored '/mute alice' from bob: not a moderator"
            await alice.meeting(ROOM, "chat", text="/mute carol", active=False)
            muted, _ = await lines_until(bot, "muted ", "muting Carol")
            assert muted == "muted carol (asked by alice)"
            await alice_room.wait_for(lambda room: room.participant("carol").muted_by_moderator)

            bot.send_signal(2)
            roster_line, _ = await lines_until(bot, "roster ", "the final roster")
            assert await asyncio.wait_for(bot.wait(), LINE_TIMEOUT) == 0
        finally:
            if bot.returncode is None:
                bot.kill()
                await bot.wait()
        roster = json.loads(roster_line.removeprefix("roster "))
        assert set(roster) == {"moderator-bot", "alice", "bob", "carol"}
        assert roster["moderator-bot"]["role"] == "bot"
        assert roster["bob"] == {"role": "participant", "handRaised": False, "audioMuted": False,
                                 "mutedByModerator": False}
        assert roster["carol"] == {"role": "participant", "handRaised": False, "audioMuted": True,
                                   "mutedByModerator": True}
        assert roster["alice"]["audioMuted"] is False
        # What the bot saw is what the gateway holds.
        for uid, entry in roster.items():
            person = alice_room.participant(uid)
            assert (person.hand_raised, person.audio_muted) == (entry["handRaised"], entry["audioMuted"]), uid
        texts = [(event.data["sender"], event.data["text"]) for event in notices]
        assert ("moderator-bot", notice.removeprefix("notice: ")) in texts
        for client in clients:
            await client.close()

    run(scenario())


def test_the_backend_starts_a_meeting_and_lists_active_calls(rollcall, fresh_python):
    python, source = fresh_python
    server = rollcall(**{"api.keys": f"backend:{API_SECRET}"})
    http = server.url.replace("ws://", "http://").rsplit("/v1/ws", 1)[0]

    async def scenario():
        async with Client(server.url, mint_token(key(), "dave", groups=[ROOM]), request_timeout=5) as dave:
            await dave.join(ROOM)
            meetings = []
            async with Client(server.url, mint_token(key(), "erin", groups=[ROOM]), request_timeout=5) as erin:
                erin.on_meeting(meetings.append)
                result = await asyncio.to_thread(
                    subprocess.run,
                    [str(python), str(source / "examples" / "backend.py"), "--api", http, "--api-key", API_SECRET,
                     "--key", development_key(), "--group", ROOM, "--member", "alice", "--member", "bob",
                     "--text", "Standup"],
                    capture_output=True, text=True, timeout=60,
                )
                assert result.returncode == 0, result.stderr[-3000:]
                lines = result.stdout.splitlines()
                tokens = [line.split() for line in lines if line.startswith("token ")]
                assert [uid for _, uid, _ in tokens] == ["alice", "bob"]
                # The members' tokens let their apps in.
                async with Client(server.url, tokens[0][2], request_timeout=5) as alice:
                    assert alice.uid == "alice"
                    meeting = await alice.active_meeting(ROOM)
                    assert meeting["text"] == "Standup" and meeting["sender"] == "api:backend"
                calls = [line for line in lines if line.startswith("call ")]
                assert len(calls) == 1 and calls[0].startswith(f"call {ROOM} seq=")
                assert calls[0].endswith("in-call=dave meeting=Standup"), calls
                for _ in range(50):
                    if meetings:
                        break
                    await asyncio.sleep(0.05)
                assert [event.data["text"] for event in meetings] == ["Standup"]

    run(scenario())
