"""Cluster mode with Redis under Sentinel: `cluster.redis_url` names three Sentinels and the primary's name.

Each test starts a primary, its replica and three Sentinels on loopback (redis_servers.RedisSentinels) and gateway
nodes pointed at the Sentinels, then fails the primary over in the middle of a call. Every wait is bounded.
"""

import asyncio
import time

import pytest
from redis_servers import RedisServer, command
from test_call_end_to_end import Client, assert_fields, mint, run
from test_cluster import drain_until, nodes, redis, scrape  # noqa: F401 (fixtures)

sentinel = pytest.mark.parametrize("redis", ["sentinel"], indirect=True)
#: A failover takes seconds (down-after, the Sentinels' election, the promotion): the nodes' leases and the reconnect
#: grace outlast it, so nobody is sent back to rejoin while Redis changes hands.
PATIENT = {"cluster.lease_ms": 15000, "rooms.reconnect_grace_ms": 15000}


async def until_acknowledged(client, message, timeout=20.0):
    """Sends `message` until it is acknowledged; `ERR_UNAVAILABLE` (Redis changing hands) is the only other answer."""
    deadline = time.monotonic() + timeout
    while True:
        answer = await client.request(message)
        if answer["type"] == "ack":
            return answer
        assert answer.get("code") == "ERR_UNAVAILABLE", answer
        assert time.monotonic() < deadline, f"{message} was not acknowledged within {timeout} s: {answer}"
        await asyncio.sleep(0.2)


@sentinel
@pytest.mark.parametrize("replica_acks", [0, 1])
def test_a_killed_primary_is_replaced_by_its_replica_and_the_call_goes_on_with_every_acknowledged_entry(
    nodes, redis, replica_acks  # noqa: F811
):
    settings = {**PATIENT, "cluster.replica_acks": replica_acks, "cluster.replica_ack_timeout_ms": 2000}
    node_a, node_b = nodes(**settings), nodes(**settings)
    room = "sentinel-failover"
    log_key = f"rollcall:room:{{{room}}}:log"

    async def scenario():
        alice = await Client.connect("alice", node_a.url, mint("alice", rooms=[room]))
        bob = await Client.connect("bob", node_b.url, mint("bob", rooms=[room]))
        await alice.join(room=room)
        await bob.join(room=room)
        await alice.expect_event(2, "participant.joined", "bob", room=room)
        last = 2
        for index in range(10):
            ack = await alice.request({"type": "meeting", "group": room, "sessionId": f"s-{index}",
                                       "callType": "video"})
            assert_fields(ack, {"type": "ack", "seq": last + 1}, "alice")
            last = ack["seq"]
        await drain_until(bob, lambda m: m.get("seq") == last)
        # Everything acknowledged so far has reached the replica: with cluster.replica_acks = 1 because each
        # acknowledgement waited for it; without, the test asks the primary to wait. Then the primary dies.
        if not replica_acks:
            assert command(redis.primary, "WAIT", 1, 5000) == 1
        redis.kill(redis.primary)
        redis.wait_for_primary(redis.replica)

        # The nodes find the promoted replica through the Sentinels; the call goes on from where it was.
        raised = await until_acknowledged(bob, {"type": "state", "room": room, "handRaised": True})
        assert raised["seq"] == last + 1, raised
        await drain_until(alice, lambda m: m.get("event") == "participant.hand_raised" and m.get("seq") == last + 1)
        assert command(redis.replica, "XLEN", log_key) == last + 1
        shared = await until_acknowledged(alice, {"type": "state", "room": room, "presenting": True})
        assert shared["seq"] == last + 2, shared
        await drain_until(bob, lambda m: m.get("seq") == last + 2)
        for node in (node_a, node_b):
            assert scrape(node)["rollcall_cluster_connected"] == 1
        for client in (alice, bob):
            await client.close()

    run(scenario())


def clients_of(port, kind):
    """How many connections of `kind` (normal, pubsub) the server on `port` has, not counting the one asking."""
    listing = command(port, "CLIENT", "LIST", "TYPE", kind)
    return len([line for line in listing.splitlines() if line.strip()]) - (1 if kind == "normal" else 0)


@sentinel
def test_a_node_leaves_a_primary_the_sentinels_no_longer_name_though_it_still_answers(nodes, redis, tmp_path):
    node = nodes(**PATIENT)
    (tmp_path / "other").mkdir()
    other = RedisServer(tmp_path / "other")

    async def scenario():
        alice = await Client.connect("alice", node.url, mint("alice", rooms=["before", "after"]))
        await alice.join(room="before")
        assert command(redis.primary, "EXISTS", "rollcall:room:{before}:log") == 1
        # The Sentinels are told to watch another server under the same name; the old primary keeps answering and
        # nobody closes the node's connections to it.
        for port in redis.sentinels:
            assert command(port, "SENTINEL", "REMOVE", redis.name) == "OK"
            assert command(port, "SENTINEL", "MONITOR", redis.name, "127.0.0.1", other.port, 2) == "OK"
        deadline = time.monotonic() + 10
        while clients_of(redis.primary, "normal") > 0 or clients_of(redis.primary, "pubsub") > 0:
            assert time.monotonic() < deadline, "the node still holds connections to the server no longer named"
            await asyncio.sleep(0.1)
        # The new server holds none of the node's records, so the node sends its participants back to rejoin (1012),
        # as after any loss of Redis's data; what anyone writes from now on goes to the server the Sentinels name.
        bob = await Client.connect("bob", node.url, mint("bob", rooms=["after"]))
        ack = await until_acknowledged(bob, {"type": "join", "room": "after"})
        assert ack["seq"] == 1, ack
        assert command(other.port, "EXISTS", "rollcall:room:{after}:log") == 1
        assert command(redis.primary, "EXISTS", "rollcall:room:{after}:log") == 0
        await bob.close()
        alice.abort()

    try:
        run(scenario())
    finally:
        other.stop()
