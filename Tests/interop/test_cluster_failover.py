"""A primary of a Redis Cluster fails over in the middle of a call: what `cluster.replica_acks` keeps.

The cluster has three primaries with one replica each. The test cuts the replication of the room's primary (its
replica can no longer sync: the primary refuses `PSYNC`), sends meeting messages, kills the primary and lets the
cluster promote the replica. With `cluster.replica_acks = 0` the messages sent after the cut were acknowledged and
are lost with the primary; with `1` they were answered `ERR_UNAVAILABLE` (the replica never confirmed them), so
nothing acknowledged is lost. Every wait is bounded.
"""

import time

import pytest
from redis_servers import command
from test_call_end_to_end import Client, assert_fields, mint, run
from test_cluster import drain_until, nodes, redis  # noqa: F401 (fixtures)
from test_sentinel import PATIENT, until_acknowledged


def log_text(port, key):
    """Every entry of the stream `key` on the server on `port`, flattened to one string."""
    return repr(command(port, "XRANGE", key, "-", "+"))


def wait_until_primary(cluster, port, key, timeout=30.0):
    """Waits until the node on `port` is a primary, its cluster is whole, and the cluster gives it `key`'s slot."""
    deadline = time.monotonic() + timeout
    while True:
        role = command(port, "ROLE")
        info = command(port, "CLUSTER", "INFO")
        if role[0] == "master" and "cluster_state:ok" in info and cluster.serving(key)[0] == port:
            return
        assert time.monotonic() < deadline, f"{port} was not promoted within {timeout} s: {role}"
        time.sleep(0.1)


@pytest.mark.parametrize("redis", ["cluster-with-replicas"], indirect=True)
@pytest.mark.parametrize("replica_acks", [0, 1])
def test_a_primary_lost_after_its_replication_was_cut_loses_acknowledged_messages_only_without_replica_acks(
    nodes, redis, replica_acks  # noqa: F811
):
    settings = {**PATIENT, "cluster.replica_acks": replica_acks, "cluster.replica_ack_timeout_ms": 300}
    node_a, node_b = nodes(**settings), nodes(**settings)
    room = "failover-room"
    log_key = f"rollcall:room:{{{room}}}:log"
    primary, replicas = redis.serving(log_key)
    replica = replicas[0]

    async def scenario():
        alice = await Client.connect("alice", node_a.url, mint("alice", rooms=[room]))
        bob = await Client.connect("bob", node_b.url, mint("bob", rooms=[room]))
        await alice.join(room=room)
        await bob.join(room=room)
        seq = 2
        for index in range(3):
            ack = await alice.request({"type": "meeting", "group": room, "sessionId": f"before-{index}",
                                       "callType": "video"})
            assert_fields(ack, {"type": "ack", "seq": seq + 1}, "alice")
            seq += 1
        assert command(primary, "WAIT", 1, 5000) == 1

        # The replica loses its link and cannot sync again: the primary refuses it PSYNC.
        assert command(primary, "ACL", "SETUSER", "default", "-psync", "-sync") == "OK"
        assert command(primary, "CLIENT", "KILL", "TYPE", "replica") >= 1
        acknowledged, refused = [], []
        for index in range(3):
            session = f"after-cut-{index}"
            answer = await alice.request({"type": "meeting", "group": room, "sessionId": session,
                                          "callType": "video"})
            if answer["type"] == "ack":
                acknowledged.append(session)
            else:
                assert answer.get("code") == "ERR_UNAVAILABLE", answer
                assert "replicas confirmed" in answer.get("message", ""), answer
                refused.append(session)
        assert acknowledged == ([] if replica_acks else ["after-cut-0", "after-cut-1", "after-cut-2"])

        # The primary dies; the cluster promotes its replica, which has what it had synced before the cut.
        redis.kill(primary)
        wait_until_primary(redis, replica, log_key)
        raised = await until_acknowledged(bob, {"type": "state", "room": room, "handRaised": True})
        assert raised["type"] == "ack", raised
        # Either way the call goes on for everyone: a node whose copy of the room is ahead of the promoted log (it
        # applied the lost entries) notices at its next poll and loads the room again.
        # Alice's node sees the change as an event, or, when it reloads the room after the change was made, in the
        # resync snapshot: her mirror shows Bob's hand either way.
        def bob_raised(message):
            roster = alice.rosters[room].roster if room in alice.rosters else {}
            bob = roster.get("participants", {}).get("bob", {})
            return message.get("event") == "participant.hand_raised" or bob.get("handRaised") is True

        await drain_until(alice, bob_raised, timeout=15)

        kept = log_text(replica, log_key)
        assert all(f"before-{index}" in kept for index in range(3)), kept
        lost = [session for session in acknowledged if session not in kept]
        if replica_acks:
            # Nothing acknowledged was lost: every change the writer was told of is on the new primary.
            assert acknowledged == [] and lost == [], (acknowledged, lost)
        else:
            # Without replica acknowledgements, what the writer was told is recorded died with the primary.
            assert lost == ["after-cut-0", "after-cut-1", "after-cut-2"], (lost, kept)
        for client in (alice, bob):
            await client.close()

    run(scenario())
