"""The Python and the Swift roster stores agree with the server, and with each other, through a seeded churn.

A Python `Client` and the Swift client (the throwaway package's probe, `swift_probe/main.swift`) watch the same room
while a seeded driver makes at least 3,000 changes through a dozen participants and a moderator: joins, leaves,
state flags, media ids, cameras, speaking and moderator actions. At the end both stores hold the roster the
server API reports, at the same sequence number, and neither saw a patch it could not apply.
"""

import asyncio
import json
import random

from test_call_end_to_end import ROOM, configured_key, rollcall, run  # noqa: F401

from rollcall import AsyncServerAPI, Client, Connection, DriftDetected, TokenKey, mint_token, roster_checksum

API_SECRET = "convergence-test-secret-0123456789"
SEED = 20261201
CHANGES = 3000
PARTICIPANTS = 12
LANES = 4
FLAGS = ("audioMuted", "videoPaused", "presenting", "handRaised")
CONVERGENCE_TIMEOUT = 30.0
DRIVE_TIMEOUT = 240.0


def key():
    kid, secret = configured_key()
    return TokenKey.parse(f"{kid}:{secret}")


class Driver:
    """One connection of the driver; requests wait for their answer and drop everything else."""

    def __init__(self, uid, connection):
        self.uid = uid
        self.connection = connection
        self.joined = False
        self.flags = dict.fromkeys(FLAGS, False)
        self.facing = "front"
        self.lock = asyncio.Lock()

    async def request(self, message):
        async with self.lock:  # the moderator serves every lane
            return await self._request(message)

    async def _request(self, message):
        request_id = self.connection.next_id()
        await self.connection.send({**message, "id": request_id, "room": ROOM})
        for _ in range(10_000):
            answer = await self.connection.receive(timeout=10)
            if answer.get("id") == request_id:
                assert answer["type"] == "ack", f"{self.uid}: {message} -> {answer}"
                return answer["changed"]
        raise AssertionError(f"{self.uid}: no answer to {message}")


async def drive(lane, drivers, host, counter):
    """Makes changes through `drivers` until `counter` reaches CHANGES; the moderator `host` acts now and then."""
    rng = random.Random(SEED + lane)
    steps = 0
    while counter["changes"] < CHANGES:
        steps += 1
        assert steps < CHANGES * 4, "the driver made too few changes"
        driver = rng.choice(drivers)
        if not driver.joined:
            # A narrow view and no events keep the driver's own connection quiet.
            changed = await driver.request({"type": "join", "device": "d", "events": "none",
                                            "view": {"filter": "banned"}})
            driver.joined = True
        else:
            roll = rng.random()
            if roll < 0.06:
                changed = await driver.request({"type": "leave"})
                driver.joined = False
            elif roll < 0.70:
                flag = rng.choice(FLAGS)
                value = not driver.flags[flag]
                changed = await driver.request({"type": "state", flag: value})
                driver.flags[flag] = value
            elif roll < 0.78:
                changed = await driver.request({"type": "state", "mid": f"m-{lane}-{steps}"})
            elif roll < 0.84:
                driver.facing = "back" if driver.facing == "front" else "front"
                changed = await driver.request({"type": "state", "cameraFacing": driver.facing})
            elif roll < 0.92:
                # Each participant reports its own speaking: its uid when it starts, null when it stops.
                changed = await driver.request({"type": "speaker", "uid": driver.uid if rng.random() < 0.6 else None})
            else:
                target = rng.choice([other for other in drivers if other.joined])
                action = rng.choice(["mute", "lower_hand", "spotlight", "unspotlight"])
                changed = await host.request({"type": "action", "action": action, "target": target.uid})
                if action == "mute":
                    target.flags["audioMuted"] = True
                elif action == "lower_hand":
                    target.flags["handRaised"] = False
        if changed:
            counter["changes"] += 1


async def dump(probe):
    """The Swift store's roster, sequence number, checksums and counts."""
    probe.stdin.write(b"dump\n")
    await probe.stdin.drain()
    line = await asyncio.wait_for(probe.stdout.readline(), 10)
    assert line.startswith(b"{"), line
    return json.loads(line)


def test_python_and_swift_stores_agree_with_the_server_through_a_seeded_churn(rollcall, swift_probe):
    server = rollcall(**{"api.keys": f"ops:{API_SECRET}", "limits.max_messages_per_second": 0,
                         "rooms.reconnect_grace_ms": 60_000})
    http = server.url.replace("ws://", "http://").rsplit("/v1/ws", 1)[0]

    async def scenario():
        api = AsyncServerAPI(http, API_SECRET, timeout=10)
        host_connection = await Connection.open(server.url, mint_token(key(), "host", rooms=[ROOM], role="moderator"))
        host = Driver("host", host_connection)
        await host.request({"type": "join", "events": "none", "view": {"filter": "banned"}})

        observer = Client(server.url, mint_token(key(), "py-observer", rooms=[ROOM], role="viewer"),
                          request_timeout=10)
        await observer.connect()
        room = await observer.observe(ROOM, events="none")
        changes = []
        room.on_change(changes.append)
        probe = await asyncio.create_subprocess_exec(
            str(swift_probe), "mirror", server.url,
            mint_token(key(), "swift-observer", rooms=[ROOM], role="viewer"), ROOM,
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        )
        try:
            ready = await asyncio.wait_for(probe.stdout.readline(), 30)
            assert ready.startswith(b"ready "), ready + await probe.stderr.read()

            drivers = []
            for index in range(PARTICIPANTS):
                uid = f"p{index:02d}"
                connection = await Connection.open(server.url, mint_token(key(), uid, name=f"P {index}",
                                                                          groups=[ROOM]))
                drivers.append(Driver(uid, connection))
            counter = {"changes": 0}
            lanes = [drivers[lane::LANES] for lane in range(LANES)]
            await asyncio.wait_for(
                asyncio.gather(*[drive(lane, members, host, counter) for lane, members in enumerate(lanes)]),
                DRIVE_TIMEOUT,
            )
            assert counter["changes"] >= CHANGES

            # Quiet now: both stores must reach the server's view (bounded wait for the last patches).
            loop = asyncio.get_running_loop()
            deadline = loop.time() + CONVERGENCE_TIMEOUT
            while True:
                server_view = (await api.room(ROOM))["roster"]
                swift = await dump(probe)
                if server_view == room.roster == swift["roster"] and room.seq == swift["seq"]:
                    break
                assert loop.time() < deadline, (
                    f"no convergence: server {server_view}\npython {room.seq} {room.roster}\n"
                    f"swift {swift['seq']} {swift['roster']}")
                await asyncio.sleep(0.2)

            checksum = roster_checksum(server_view)
            assert room.store.checksum == room.store.server_checksum == checksum
            assert swift["checksum"] == swift["serverChecksum"] == checksum
            assert len(server_view["participants"]) >= 1
            assert [change for change in changes if isinstance(change, DriftDetected)] == []
            assert swift["drifts"] == 0, swift
            # Thousands of changes reached both stores as coalesced patches over one snapshot (or a few resyncs).
            assert swift["changes"] > 100 and len(changes) > 100
            probe.stdin.close()
            assert await asyncio.wait_for(probe.stdout.readline(), 10) == b"closed\n"
            assert await asyncio.wait_for(probe.wait(), 10) == 0
        finally:
            if probe.returncode is None:
                probe.kill()
                await probe.wait()
        for driver in [host, *drivers]:
            await driver.connection.close()
        await observer.close()

    asyncio.run(asyncio.wait_for(scenario(), DRIVE_TIMEOUT + 60))
