"""Cluster mode against a real Redis: several `rollcall serve` nodes share each room's log.

Each test starts Debian's `redis-server` on a free loopback port in a temporary directory (append-only file on, so
a restart keeps the data) and several gateway processes pointed at it, then drives calls through them with the
Python package's `Connection` (the `Client` of test_call_end_to_end). The tests marked `single_and_cluster` run a
second time against a Redis Cluster of three primaries (redis_servers.py), where each room's keys live in the slot
of its hash tag and room channels are sharded. Every wait is bounded.
"""

import asyncio
import json
import signal
import time
import urllib.request

import pytest
from redis_servers import RedisCluster, RedisSentinels, RedisServer
from rollcall import ConnectionClosed
from test_call_end_to_end import Client, assert_fields, mint, run, start_server

LEASE_MS = 1000
GRACE_MS = 1000

#: Runs a test against one Redis and against a Redis Cluster of three primaries.
single_and_cluster = pytest.mark.parametrize("redis", ["single", "cluster"], indirect=True)


@pytest.fixture
def redis(request, tmp_path):
    """One `redis-server`; a Redis Cluster or a primary under Sentinel when the test is parametrised so."""
    kinds = {"single": RedisServer, "cluster": RedisCluster, "sentinel": RedisSentinels,
             "cluster-with-replicas": lambda directory: RedisCluster(directory, replicas=1)}
    server = kinds[getattr(request, "param", "single")](tmp_path)
    yield server
    server.stop()


@pytest.fixture
def nodes(redis):
    """Starts gateway nodes sharing `redis`; each must exit 0 on SIGTERM at the end (unless the test killed it)."""
    started = []

    def start(**settings):
        settings = {
            "timeouts.shutdown_grace_ms": 500, "rooms.reconnect_grace_ms": GRACE_MS,
            "cluster.redis_url": redis.url, "cluster.lease_ms": LEASE_MS, "cluster.call_timeout_ms": 500,
            **settings,
        }
        node = start_server(settings)
        started.append(node)
        return node

    yield start
    statuses = [node.stop() for node in started if node.process.poll() is None]
    assert all(status == 0 for status in statuses), f"exit statuses {statuses}"


def scrape(node):
    """The node's /metrics samples without labels, by name."""
    base = node.url.split("/v1/")[0].replace("ws://", "http://")
    with urllib.request.urlopen(base + "/metrics", timeout=5) as response:
        text = response.read().decode()
    samples = {}
    for line in text.splitlines():
        if line and not line.startswith("#") and "{" not in line:
            name, value = line.split()
            samples[name] = float(value)
    return samples


async def drain_until(client, predicate, timeout=5.0):
    """Receives until a message matches; returns it and everything before it."""
    seen = []
    deadline = time.monotonic() + timeout
    while True:
        remaining = deadline - time.monotonic()
        assert remaining > 0, f"{client.name}: nothing matched within {timeout} s; got {seen}"
        message = await client.recv(timeout=remaining)
        seen.append(message)
        if predicate(message):
            return message, seen


async def discard_pending(client):
    """Waits for the coalescing window, then drops every message received so far (patches are still applied)."""
    await asyncio.sleep(0.2)
    await client.request({"type": "ping"})
    client.pending = []


async def settle(client):
    """Waits for the patches of the coalescing window and applies them to the client's mirror."""
    await asyncio.sleep(0.2)
    await client.expect_nothing()


@single_and_cluster
def test_events_on_one_node_reach_clients_on_another_with_the_same_sequence_numbers(nodes):
    node_a, node_b = nodes(), nodes()
    room = "cluster-same-seq"

    async def scenario():
        alice = await Client.connect("alice", node_a.url, mint("alice", rooms=[room]))
        bob = await Client.connect("bob", node_b.url, mint("bob", rooms=[room]))
        watcher = await Client.connect("watcher", node_b.url, mint("watcher", rooms=[room], role="viewer"))
        # The watcher is there before the room has any shared record: the entry that creates them reaches it live.
        await watcher.join(room=room, **{"as": "observer"})
        ack, _ = await alice.join(room=room)
        assert ack["seq"] == 1
        await watcher.expect_event(1, "participant.joined", "alice", room=room)
        ack, snapshot = await bob.join(room=room)
        assert ack["seq"] == 2
        assert set(snapshot["roster"]["participants"]) <= {"alice", "bob"}
        await alice.expect_event(2, "participant.joined", "bob", room=room)
        await watcher.expect_event(2, "participant.joined", "bob", room=room)

        # Changes made through node B reach node A's client with the sequence numbers node B acknowledged.
        muted = await bob.request({"type": "state", "room": room, "audioMuted": True})
        assert_fields(muted, {"type": "ack", "seq": 3, "changed": True}, "bob")
        raised = await bob.request({"type": "state", "room": room, "handRaised": True})
        assert_fields(raised, {"type": "ack", "seq": 4}, "bob")
        await alice.expect_event(3, "participant.audio_muted", "bob", room=room)
        await alice.expect_event(4, "participant.hand_raised", "bob", room=room)
        # And the other way round.
        shared = await alice.request({"type": "state", "room": room, "presenting": True})
        assert_fields(shared, {"type": "ack", "seq": 5}, "alice")
        await bob.expect_event(3, "participant.audio_muted", "bob", room=room)
        await bob.expect_event(4, "participant.hand_raised", "bob", room=room)
        await bob.expect_event(5, "participant.screen_share_started", "alice", room=room)
        await alice.expect_event(5, "participant.screen_share_started", "alice", room=room)
        for seq, event in [(3, "participant.audio_muted"), (4, "participant.hand_raised"),
                           (5, "participant.screen_share_started")]:
            await watcher.expect_event(seq, event, room=room)

        # Every mirror (snapshot plus checked patches, checksum included) holds the same roster at the same seq.
        for client in (alice, bob, watcher):
            await settle(client)
        rosters = [(client.rosters[room].seq, client.rosters[room].roster) for client in (alice, bob, watcher)]
        assert rosters[0] == rosters[1] == rosters[2], rosters
        assert rosters[0][0] == 5
        assert rosters[0][1]["participants"]["bob"]["audioMuted"] is True
        # Each node reports its side of the shared log: Alice's two changes went through node A, Bob's three
        # through node B.
        for node, appended in ((node_a, 2), (node_b, 3)):
            metrics = scrape(node)
            assert metrics["rollcall_cluster_connected"] == 1, metrics
            assert metrics["rollcall_cluster_appends_total"] == appended, metrics
            assert metrics["rollcall_cluster_append_failures_total"] == 0, metrics
        for client in (alice, bob, watcher):
            await client.close()

    run(scenario())


@single_and_cluster
def test_a_client_moves_to_another_node_and_resumes_with_nothing_missed_or_repeated(nodes):
    node_a, node_b = nodes(), nodes()
    room = "cluster-move"

    async def scenario():
        alice = await Client.connect("alice", node_a.url, mint("alice", rooms=[room]))
        bob = await Client.connect("bob", node_b.url, mint("bob", rooms=[room]))
        await alice.join(room=room, device="laptop")
        await bob.join(room=room)
        await alice.expect_event(2, "participant.joined", "bob", room=room)
        await bob.request({"type": "state", "room": room, "audioMuted": True})
        await alice.expect_event(3, "participant.audio_muted", "bob", room=room)
        await bob.expect_event(3, "participant.audio_muted", "bob", room=room)
        await settle(alice)
        roster_seq = alice.rosters[room].seq
        event_seq = 3
        assert roster_seq == 3

        # Alice's connection to node A drops; the call goes on through node B.
        alice.abort()
        await bob.expect_event(4, "session.connection_lost", "alice", room=room)
        await bob.request({"type": "state", "room": room, "handRaised": True})
        await bob.request({"type": "state", "room": room, "audioMuted": False})
        await bob.request({"type": "meeting", "group": room, "sessionId": "s-1", "callType": "video"})
        await discard_pending(bob)

        # She reconnects to node B and resumes from where she was.
        moved = await Client.connect("alice", node_b.url, mint("alice", rooms=[room]))
        moved.rosters[room] = alice.rosters[room]
        ack = await moved.request({"type": "join", "room": room, "device": "laptop", "resume": roster_seq,
                                   "resumeEvents": event_seq})
        assert_fields(ack, {"type": "ack", "room": room}, "alice")
        resumed, seen = await drain_until(moved, lambda m: m.get("type") == "resumed")
        assert resumed["recovered"] is True, resumed
        events = [(m["seq"], m["event"]) for m in seen if m.get("type") == "event"]
        assert [seq for seq, _ in events] == list(range(event_seq + 1, resumed["seq"] + 1)), events
        assert ("session.connection_restored" in {event for _, event in events}), events
        assert all(m.get("recovered") is True for m in seen if m.get("type") == "event")
        await settle(moved)
        # Her mirror, continued from node A's roster with node B's patches, equals node B's own view.
        fresh = await Client.connect("fresh", node_b.url, mint("fresh", rooms=[room], role="viewer"))
        await fresh.join(room=room, **{"as": "observer"})
        await settle(fresh)
        assert moved.rosters[room].roster == fresh.rosters[room].roster
        assert moved.rosters[room].seq == fresh.rosters[room].seq
        assert moved.rosters[room].roster["participants"]["alice"]["state"] == "joined"
        for client in (moved, bob, fresh):
            await client.close()
        await asyncio.sleep(0)

    run(scenario())


def test_participants_of_a_killed_node_leave_everywhere_exactly_once(nodes):
    node_a, node_b, node_c = nodes(), nodes(), nodes()
    room = "cluster-kill"

    async def scenario():
        alice = await Client.connect("alice", node_a.url, mint("alice", rooms=[room]))
        bob = await Client.connect("bob", node_b.url, mint("bob", rooms=[room]))
        carol = await Client.connect("carol", node_c.url, mint("carol", rooms=[room]))
        await alice.join(room=room)
        await bob.join(room=room)
        await carol.join(room=room)
        await bob.expect_event(3, "participant.joined", "carol", room=room)

        node_a.process.kill()  # SIGKILL: no close frames, no leave, no lease renewal.
        killed_at = time.monotonic()
        # Documented bound: lease + one renewal period (lease / 3) to notice, then the reconnect grace.
        bound = (LEASE_MS + LEASE_MS / 3 + GRACE_MS) / 1000 + 2.0
        lost, _ = await drain_until(bob, lambda m: m.get("event") == "session.connection_lost", timeout=bound)
        left, _ = await drain_until(bob, lambda m: m.get("event") == "session.timed_out", timeout=bound)
        elapsed = time.monotonic() - killed_at
        assert lost["data"]["uid"] == "alice" and left["data"]["uid"] == "alice"
        assert left["seq"] == lost["seq"] + 1
        assert elapsed < bound, elapsed
        # Carol (on a third node) sees the same two entries, once each, at the same sequence numbers.
        seen_by_carol = []
        while len(seen_by_carol) < 2:
            message = await carol.recv(timeout=bound)
            if message.get("type") == "event":
                seen_by_carol.append((message["seq"], message["event"]))
        assert seen_by_carol == [(lost["seq"], "session.connection_lost"), (left["seq"], "session.timed_out")]
        await asyncio.sleep((LEASE_MS + GRACE_MS) / 1000)
        await bob.expect_nothing()
        members = await carol.request({"type": "query", "query": "members", "room": room})
        assert members["uids"] == ["bob", "carol"], members
        for client in (bob, carol):
            await client.close()

    run(scenario())


def test_redis_restarted_mid_call_loses_no_meeting_message_and_rooms_resume(nodes, redis):
    node_a, node_b = nodes(), nodes()
    group = "cluster-restart"

    async def scenario():
        alice = await Client.connect("alice", node_a.url, mint("alice", groups=[group]))
        bob = await Client.connect("bob", node_b.url, mint("bob", groups=[group]))
        await alice.join(room=group)
        await bob.join(room=group)
        acknowledged = []

        async def meeting(text):
            answer = await alice.request({"type": "meeting", "group": group, "sessionId": "s", "callType": "audio",
                                          "text": text})
            if answer["type"] == "ack":
                acknowledged.append((answer["seq"], text))
            return answer

        for index in range(5):
            assert (await meeting(f"before-{index}"))["type"] == "ack"
        redis.stop()
        refused = await meeting("during")
        assert_fields(refused, {"type": "error", "code": "ERR_UNAVAILABLE"}, "alice")
        redis.start()
        # The nodes reconnect by themselves (backoff up to two seconds).
        deadline = time.monotonic() + 10
        while True:
            answer = await meeting("after-0")
            if answer["type"] == "ack":
                break
            assert answer["code"] == "ERR_UNAVAILABLE", answer
            assert time.monotonic() < deadline, "the cluster did not recover from the Redis restart"
            await asyncio.sleep(0.2)
        for index in range(1, 5):
            assert (await meeting(f"after-{index}"))["type"] == "ack"

        seqs = [seq for seq, _ in acknowledged]
        assert seqs == list(range(seqs[0], seqs[0] + len(seqs))), acknowledged
        # Every acknowledged message reaches Bob on node B (which catches up by itself after the restart), once,
        # in order; then both nodes' histories hold them all.
        received = []
        while len(received) < len(acknowledged):
            message = await bob.recv(timeout=10)
            if message.get("event") == "meeting.message":
                received.append((message["seq"], message["data"]["text"]))
        assert received == acknowledged
        for client in (alice, bob):
            result = await client.request({"type": "query", "query": "history", "room": group, "after": 0,
                                           "limit": 100})
            history = [(e["seq"], e["data"]["text"]) for e in result["events"] if e["event"] == "meeting.message"]
            assert history == acknowledged, (client.name, history)
        for client in (alice, bob):
            await client.close()

    run(scenario())


def test_unreachable_redis_fails_calls_fast_and_local_reads_keep_working(nodes, redis):
    node = nodes()
    room = "cluster-unreachable"

    async def scenario():
        alice = await Client.connect("alice", node.url, mint("alice", rooms=[room]))
        await alice.join(room=room)
        redis.stop()
        started = time.monotonic()
        answer = await alice.request({"type": "state", "room": room, "audioMuted": True})
        assert_fields(answer, {"type": "error", "code": "ERR_UNAVAILABLE"}, "alice")
        assert time.monotonic() - started < 2.0
        # What needs no shared write keeps working: pings, queries from the room as last known, a new session.
        pong = await alice.request({"type": "ping"})
        assert pong["type"] == "pong"
        members = await alice.request({"type": "query", "query": "members", "room": room})
        assert_fields(members, {"type": "result", "uids": ["alice"]}, "alice")
        other = await Client.connect("bob", node.url, mint("bob", rooms=[room]))
        answer = await other.request({"type": "join", "room": room})
        assert_fields(answer, {"type": "error", "code": "ERR_UNAVAILABLE"}, "bob")
        redis.start()
        deadline = time.monotonic() + 10
        while True:
            answer = await alice.request({"type": "state", "room": room, "audioMuted": True})
            if answer["type"] == "ack":
                break
            assert time.monotonic() < deadline, answer
            await asyncio.sleep(0.2)
        await alice.close()
        await other.close()

    run(scenario())


@single_and_cluster
def test_two_nodes_racing_for_the_last_seat_admit_exactly_one(nodes):
    settings = {"rooms.capacity": 2}
    node_a, node_b = nodes(**settings), nodes(**settings)

    async def scenario():
        for round_number in range(10):
            room = f"cluster-race-{round_number}"
            first = await Client.connect("first", node_a.url, mint("first", rooms=[room]))
            await first.join(room=room)
            racers = [
                await Client.connect("left", node_a.url, mint(f"left-{round_number}", rooms=[room])),
                await Client.connect("right", node_b.url, mint(f"right-{round_number}", rooms=[room])),
            ]
            answers = await asyncio.gather(*[racer.request({"type": "join", "room": room}) for racer in racers])
            kinds = sorted(answer.get("code", answer["type"]) for answer in answers)
            assert kinds == ["ERR_CALL_FULL", "ack"], answers
            # Node A learns of the winner's join (through node B, perhaps) when its entry arrives.
            await drain_until(first, lambda m: m.get("event") == "participant.joined")
            members = await first.request({"type": "query", "query": "members", "room": room})
            assert len(members["uids"]) == 2, members
            for client in (first, *racers):
                await client.close()

    run(scenario())


def test_a_node_cut_off_longer_than_its_lease_sends_its_participants_back_to_rejoin(nodes):
    grace = {"rooms.reconnect_grace_ms": 4000}
    node_a, node_b = nodes(**grace), nodes(**grace)
    room = "cluster-frozen"

    async def scenario():
        alice = await Client.connect("alice", node_a.url, mint("alice", rooms=[room]))
        bob = await Client.connect("bob", node_b.url, mint("bob", rooms=[room]))
        await alice.join(room=room, device="laptop")
        await bob.join(room=room)
        await alice.expect_event(2, "participant.joined", "bob", room=room)

        # Node A freezes past its lease: node B declares it dead and marks Alice's device lost.
        node_a.process.send_signal(signal.SIGSTOP)
        try:
            lost, _ = await drain_until(bob, lambda m: m.get("event") == "session.connection_lost", timeout=5)
            assert lost["data"]["uid"] == "alice"
        finally:
            node_a.process.send_signal(signal.SIGCONT)
        # Back, node A finds it was declared dead and sends its participants to reconnect (1012).
        with pytest.raises(ConnectionClosed) as closed:
            await drain_until(alice, lambda m: False, timeout=5)
        assert closed.value.code == 1012, closed.value
        alice = await Client.connect("alice", node_a.url, mint("alice", rooms=[room]))
        ack = await alice.request({"type": "join", "room": room, "device": "laptop"})
        assert ack["type"] == "ack", ack
        restored, _ = await drain_until(bob, lambda m: m.get("event") == "session.connection_restored", timeout=5)
        assert restored["data"]["uid"] == "alice"
        assert restored["data"]["participant"]["state"] == "joined"
        # Past the grace period she is still in the call: nothing reaped the device she restored.
        await asyncio.sleep(4.5)
        members = await bob.request({"type": "query", "query": "members", "room": room})
        assert members["uids"] == ["alice", "bob"], members
        for client in (alice, bob):
            await client.close()

    run(scenario())


def test_shared_records_lost_under_a_call_resync_the_subscribers_instead_of_mixing_histories(nodes, redis):
    node_a, node_b = nodes(), nodes()
    room = "cluster-flushed"

    async def scenario():
        alice = await Client.connect("alice", node_a.url, mint("alice", rooms=[room]))
        watcher = await Client.connect("watcher", node_b.url, mint("watcher", rooms=[room], role="viewer"))
        await alice.join(room=room)
        await watcher.join(room=room, **{"as": "observer"})
        await alice.request({"type": "state", "room": room, "handRaised": True})
        # Node B may have loaded the room when the watcher authenticated, before Alice joined: her join then
        # reaches the watcher as an event after its snapshot. Either way the hand comes next, at seq 2.
        raised, _ = await drain_until(watcher, lambda m: m.get("type") == "event" and m.get("seq") == 2)
        assert_fields(raised, {"event": "participant.hand_raised", "actor": "alice", "room": room}, "watcher")

        # Redis loses everything (no persistence, FLUSHALL): the room's log starts again at 1 under a new epoch.
        assert redis.command("FLUSHALL") == "OK"
        bob = await Client.connect("bob", node_b.url, mint("bob", rooms=[room]))
        ack = await bob.request({"type": "join", "room": room})
        assert_fields(ack, {"type": "ack", "seq": 1}, "bob")
        # The watcher is not handed entry 1 of the new log on top of the old roster: it gets a fresh snapshot.
        resync, _ = await drain_until(watcher, lambda m: m.get("type") == "snapshot", timeout=5)
        assert resync.get("resync") is True, resync
        assert resync["seq"] == 1
        assert set(resync["roster"]["participants"]) == {"bob"}
        for client in (alice, watcher, bob):
            await client.close()

    run(scenario())


@single_and_cluster
def test_shared_seats_follow_devices_removals_and_the_end_of_a_call(nodes):
    settings = {"rooms.capacity": 2}
    node_a, node_b = nodes(**settings), nodes(**settings)
    room = "cluster-seats"

    async def scenario():
        host = await Client.connect("host", node_a.url, mint("host", rooms=[room], role="moderator"))
        await host.join(room=room)  # A moderator takes a reserved seat, not one of the two.

        async def joined(name, node, device="default"):
            client = await Client.connect(name, node.url, mint(name, rooms=[room]))
            answer = await client.request({"type": "join", "room": room, "device": device})
            return client, answer.get("code", answer["type"])

        alice_laptop, outcome = await joined("alice", node_a, "laptop")
        assert outcome == "ack"
        alice_phone, outcome = await joined("alice", node_b, "phone")  # Her second device: still one seat.
        assert outcome == "ack"
        bob, outcome = await joined("bob", node_b)
        assert outcome == "ack"
        _, outcome = await joined("carol", node_a)
        assert outcome == "ERR_CALL_FULL"

        # One of Alice's devices leaves: she still holds her seat.
        await alice_phone.request({"type": "leave", "room": room})
        _, outcome = await joined("carol", node_b)
        assert outcome == "ERR_CALL_FULL"
        # Her last device leaves: the seat is free, on every node.
        await alice_laptop.request({"type": "leave", "room": room})
        carol, outcome = await joined("carol", node_b)
        assert outcome == "ack"

        # A removal through node A frees the seat too, and closes Carol's connection to node B with 4003.
        await drain_until(host, lambda m: m.get("event") == "participant.joined" and m["data"]["uid"] == "carol")
        answer = await host.request({"type": "action", "room": room, "action": "remove", "target": "carol"})
        assert answer["type"] == "ack", answer
        await drain_until(carol, lambda m: m.get("event") == "participant.left" and m["data"]["reason"] == "removed")
        await carol.expect_closed(4003)
        dave, outcome = await joined("dave", node_a)
        assert outcome == "ack"
        _, outcome = await joined("erin", node_b)
        assert outcome == "ERR_CALL_FULL"

        # Ending the session through node A frees every seat and closes the participants on node B with 4005.
        answer = await host.request({"type": "action", "room": room, "action": "end_session"})
        assert answer["type"] == "ack", answer
        await drain_until(bob, lambda m: m.get("event") == "session.ended")
        await bob.expect_closed(4005)
        erin, outcome = await joined("erin", node_b)
        assert outcome == "ack"
        frank, outcome = await joined("frank", node_a)
        assert outcome == "ack"
        _, outcome = await joined("grace", node_a)
        assert outcome == "ERR_CALL_FULL"
        for client in (erin, frank):
            await client.close()

    run(scenario())


@single_and_cluster
def test_the_server_api_disconnects_a_user_on_every_node(nodes):
    key = "ops:cluster-api-key-0123456789"
    node_a, node_b = nodes(**{"api.keys": key}), nodes(**{"api.keys": key})
    room = "cluster-api"

    async def scenario():
        on_a = await Client.connect("alice-a", node_a.url, mint("alice", rooms=[room]))
        on_b = await Client.connect("alice-b", node_b.url, mint("alice", rooms=[room]))
        await on_b.join(room=room)
        base = node_a.url.split("/v1/")[0].replace("ws://", "http://")
        request = urllib.request.Request(
            base + "/v1/api/users/alice/disconnect", data=b'{"reason":"maintenance"}', method="POST",
            headers={"Authorization": "Bearer cluster-api-key-0123456789", "Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=5) as response:
            answer = json.loads(response.read())
        assert answer == {"uid": "alice", "disconnected": 1}, answer
        # Her connection to node A closes at once; node B closes hers when the message reaches it.
        await on_a.expect_closed(4009)
        with pytest.raises(ConnectionClosed) as closed:
            await drain_until(on_b, lambda m: False, timeout=5)
        assert closed.value.code == 4009, closed.value

    run(scenario())


@single_and_cluster
def test_a_meeting_message_reaches_group_members_connected_to_any_node(nodes):
    node_a, node_b = nodes(), nodes()
    group = "cluster-group"

    async def scenario():
        alice = await Client.connect("alice", node_a.url, mint("alice", groups=[group]))
        # Bob is a member of the group, connected to node B, and in no room.
        bob = await Client.connect("bob", node_b.url, mint("bob", groups=[group]))
        await bob.expect_nothing()
        await alice.join(room=group)
        ack = await alice.request({"type": "meeting", "group": group, "sessionId": "s-9", "callType": "video",
                                   "text": "standup"})
        assert ack["type"] == "ack", ack
        meeting = await bob.expect_event(ack["seq"], "meeting.message", room=group, actor="alice")
        assert meeting["data"]["text"] == "standup"
        for client in (alice, bob):
            await client.close()

    run(scenario())


def list_rooms(node, key):
    base = node.url.split("/v1/")[0].replace("ws://", "http://")
    request = urllib.request.Request(base + "/v1/api/rooms?limit=100",
                                     headers={"Authorization": "Bearer " + key.split(":", 1)[1]})
    with urllib.request.urlopen(request, timeout=5) as response:
        return {room["room"]: room["seq"] for room in json.loads(response.read())["rooms"]}


@single_and_cluster
def test_webhooks_go_on_from_the_cursor_in_redis_when_the_delivering_node_dies(nodes, redis):
    from test_webhooks import SECRET, Receiver

    key = "ops:cluster-hooks-api-key-0123"
    receiver = Receiver(failure_rate=0, stall_rate=0)
    hooks = {
        "api.keys": key, "webhooks.endpoint.backend.url": receiver.url, "webhooks.endpoint.backend.secret": SECRET,
        "webhooks.timeout_ms": 1000, "webhooks.retry_base_ms": 20, "webhooks.retry_max_ms": 200,
        "limits.max_messages_per_second": 0,
    }
    node_a, node_b = nodes(**hooks, **{"cluster.node_id": "node-a"}), nodes(**hooks, **{"cluster.node_id": "node-b"})
    rooms = {"hook-a": node_a, "hook-b": node_b}

    async def changes(count, placement):
        for room, node in placement.items():
            client = await Client.connect(f"user-{room}", node.url, mint(f"user-{room}", rooms=[room]))
            await client.join(room=room)
            for index in range(count):
                await client.request({"type": "state", "room": room, "handRaised": index % 2 == 0})
            await client.close()

    def delivered_through(last):
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            with receiver.lock:
                seen = list(receiver.accepted)
            if all({(room, seq) for seq in range(1, last[room] + 1)} <= set(seen) for room in last):
                return seen
            time.sleep(0.05)
        raise AssertionError(f"not every event arrived: {last}, got {len(seen)}")

    try:
        run(changes(20, rooms))
        # Any node lists every room of the cluster, whichever node holds it.
        last = list_rooms(node_a, key)
        assert set(last) == set(rooms) and last == list_rooms(node_b, key), last
        delivered_through(last)
        holder = redis.command("GET", "rollcall:hook:{backend}:lease")
        assert holder in ("node-a", "node-b"), holder
        # The delivering node dies; the other takes the endpoint over once its lease lapses.
        victim, survivor = (node_a, node_b) if holder == "node-a" else (node_b, node_a)
        victim.process.kill()
        victim.process.wait(timeout=10)
        run(changes(20, {room: survivor for room in rooms}))
        last = list_rooms(survivor, key)
        assert all(seq >= 40 for seq in last.values()), last
        seen = delivered_through(last)
        for room in rooms:
            sequences = [seq for name, seq in seen if name == room]
            expected = 1
            for seq in sequences:
                assert seq <= expected, (room, sequences)
                expected = max(expected, seq + 1)
        assert redis.command("GET", "rollcall:hook:{backend}:lease") == ("node-b" if holder == "node-a" else "node-a")
    finally:
        receiver.stop()


@pytest.mark.parametrize("redis", ["cluster"], indirect=True)
def test_rooms_spread_over_every_primary_of_a_redis_cluster_and_every_node_lists_them_all(nodes, redis):
    cluster = redis
    key = "ops:cluster-spread-api-key-01234"
    settings = {"api.keys": key}
    node_a, node_b = nodes(**settings), nodes(**settings)
    rooms = [f"spread-{index}" for index in range(12)]

    async def calls():
        for index, room in enumerate(rooms):
            node = (node_a, node_b)[index % 2]
            client = await Client.connect(f"user-{index}", node.url, mint(f"user-{index}", rooms=[room]))
            await client.join(room=room)
            ack = await client.request({"type": "state", "room": room, "audioMuted": True})
            assert_fields(ack, {"type": "ack", "seq": 2}, client.name)
            await client.close()

    run(calls())
    # Each room's keys carry the room as a hash tag, so they sit in that room's slot: on one primary, and the
    # twelve rooms together on all three.
    holders = {}
    for port in cluster.primaries:
        for stored in cluster.keys_on(port, "*:room:{spread-*"):
            room = stored.split("{", 1)[1].split("}", 1)[0]
            holders.setdefault(room, set()).add(port)
    assert set(holders) == set(rooms), holders
    assert all(len(ports) == 1 for ports in holders.values()), holders
    assert set().union(*holders.values()) == set(cluster.primaries), holders
    # The room listing walks every primary: both nodes list every room with its last seq.
    listed = list_rooms(node_a, key)
    assert set(listed) == set(rooms) and all(seq >= 2 for seq in listed.values()), listed
    assert list_rooms(node_b, key) == listed
