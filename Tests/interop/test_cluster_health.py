"""Cluster mode's guarantees beyond one Redis connection, against real Redis servers and `rollcall serve` nodes.

`cluster.replica_acks`: a primary with one replica on loopback (`redis-server --replicaof`); a change is
acknowledged once the replica has it, and with the replica gone the writer gets ERR_UNAVAILABLE after
`cluster.replica_ack_timeout_ms` while the change stays in the room (WAIT undoes nothing), and the metric counts it.

The subscription probe: a node reaches Redis through a proxy that can keep its subscription's connection open
while dropping everything Redis sends on it; the node finds out through its probe, `/readyz` answers 503 with the
reason, the metrics say so, it resubscribes, is ready again, and changes made through another node reach its
clients again.
"""

import asyncio
import socket
import threading
import time
import urllib.error
import urllib.request

from test_call_end_to_end import Client, assert_fields, mint, run, start_server
from redis_servers import RedisServer
from test_cluster import drain_until, redis, scrape  # noqa: F401 (redis: the fixture)


def http_get(node, path):
    base = node.url.split("/v1/")[0].replace("ws://", "http://")
    try:
        with urllib.request.urlopen(base + path, timeout=5) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def wait_for(condition, timeout=10.0, what="condition"):
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"{what} did not hold within {timeout} s"
        time.sleep(0.05)


class SilencingProxy:
    """Relays TCP connections to a loopback port. From `silence_subscribers()` until `resume_subscribers()` it drops
    what the server sends on every connection that subscribed (open already or opened meanwhile), leaving it open."""

    def __init__(self, target_port):
        self.target_port = target_port
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.lock = threading.Lock()
        self.relays = []
        self.silencing = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(("127.0.0.1", self.target_port))
            relay = {"client": client, "upstream": upstream, "subscriber": False}
            with self.lock:
                self.relays.append(relay)
            threading.Thread(target=self._pump, args=(relay, True), daemon=True).start()
            threading.Thread(target=self._pump, args=(relay, False), daemon=True).start()

    def _pump(self, relay, from_client):
        source, destination = (relay["client"], relay["upstream"]) if from_client else (relay["upstream"], relay["client"])
        try:
            while chunk := source.recv(65536):
                with self.lock:
                    if from_client and b"SUBSCRIBE" in chunk:
                        relay["subscriber"] = True
                    drop = not from_client and relay["subscriber"] and self.silencing
                if not drop:
                    destination.sendall(chunk)
        except OSError:
            pass
        for end in (source, destination):
            try:
                end.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def silence_subscribers(self):
        with self.lock:
            self.silencing = True
            return sum(1 for relay in self.relays if relay["subscriber"])

    def resume_subscribers(self):
        with self.lock:
            self.silencing = False

    def close(self):
        self.listener.close()
        with self.lock:
            for relay in self.relays:
                for end in (relay["client"], relay["upstream"]):
                    try:
                        end.shutdown(socket.SHUT_RDWR)
                    except OSError:
                        pass


def start_node(redis_url, **settings):
    return start_server({
        "timeouts.shutdown_grace_ms": 500, "rooms.reconnect_grace_ms": 1000, "cluster.redis_url": redis_url,
        "cluster.lease_ms": 1000, "cluster.call_timeout_ms": 500, **settings,
    })


def test_a_change_is_acknowledged_once_a_replica_has_it_and_refused_but_kept_when_none_confirms(tmp_path):
    (tmp_path / "primary").mkdir()
    (tmp_path / "replica").mkdir()
    primary = RedisServer(tmp_path / "primary")
    # No append-only file on the replica: a replica writing its first one after a sync ignores SIGTERM.
    replica = RedisServer(
        tmp_path / "replica", extra=["--appendonly", "no", "--replicaof", "127.0.0.1", str(primary.port)])
    node = None
    try:
        wait_for(lambda: "master_link_status:up" in replica.command("INFO", "replication"),
                 what="the replica's link")
        node = start_node(primary.url, **{
            "cluster.replica_acks": 1, "cluster.replica_ack_timeout_ms": 300, "rooms.reconnect_grace_ms": 15000})
        room = "replicated"

        async def scenario():
            alice = await Client.connect("alice", node.url, mint("alice", rooms=[room]))
            await alice.join(room=room)
            muted = await alice.request({"type": "state", "room": room, "audioMuted": True})
            assert_fields(muted, {"type": "ack", "seq": 2, "changed": True}, "alice")
            assert scrape(node)["rollcall_cluster_replica_ack_failures_total"] == 0

            replica.stop()
            wait_for(lambda: "connected_slaves:0" in primary.command("INFO", "replication"),
                     what="the primary losing its replica")
            raised = await alice.request({"type": "state", "room": room, "handRaised": True})
            assert_fields(raised, {"type": "error", "code": "ERR_UNAVAILABLE"}, "alice")
            assert "0 of 1 replicas confirmed it within 300 ms" in raised["message"], raised
            assert scrape(node)["rollcall_cluster_replica_ack_failures_total"] == 1
            # The change is in the room all the same: WAIT does not roll the append back.
            await asyncio.sleep(0.3)
            result = await alice.request({"type": "query", "query": "history", "room": room, "after": 0})
            events = [(event["seq"], event["event"]) for event in result["events"]]
            assert (3, "participant.hand_raised") in events, result

            # A join answered so is in the call too, its device held by no connection: reconnecting, and restored
            # by a join sent again once a replica confirms.
            bob = await Client.connect("bob", node.url, mint("bob", rooms=[room]))
            answer = await bob.request({"type": "join", "room": room})
            assert_fields(answer, {"type": "error", "code": "ERR_UNAVAILABLE"}, "bob")
            def about_bob(name):
                return lambda m: m.get("event") == name and m.get("data", {}).get("uid") == "bob"

            joined, _ = await drain_until(alice, about_bob("participant.joined"))
            lost, _ = await drain_until(alice, about_bob("session.connection_lost"))
            assert (joined["seq"], lost["seq"]) == (4, 5), (joined, lost)
            replica.start()
            wait_for(lambda: "state=online" in primary.command("INFO", "replication"),
                     what="the replica online again")
            # Until the replica has caught up with what it missed, a join may still go unconfirmed.
            deadline = time.monotonic() + 10
            while (answer := await bob.request({"type": "join", "room": room}))["type"] != "ack":
                assert answer["code"] == "ERR_UNAVAILABLE" and time.monotonic() < deadline, answer
                await asyncio.sleep(0.2)
            await drain_until(alice, about_bob("session.connection_restored"))
            members = await alice.request({"type": "query", "query": "members", "room": room})
            assert members["uids"] == ["alice", "bob"], members
            for client in (alice, bob):
                await client.close()

        run(scenario())
        assert node.stop() == 0
    finally:
        if node and node.process.poll() is None:
            node.process.kill()
        replica.stop()
        primary.stop()


def test_a_node_whose_subscription_goes_silent_turns_not_ready_resubscribes_and_receives_again(redis):
    proxy = SilencingProxy(redis.port)
    watcher = start_node(f"redis://127.0.0.1:{proxy.port}", **{"cluster.probe_interval_ms": 100})
    writer = start_node(redis.url)
    room = "probed"
    try:
        async def scenario():
            alice = await Client.connect("alice", watcher.url, mint("alice", rooms=[room]))
            bob = await Client.connect("bob", writer.url, mint("bob", rooms=[room]))
            await alice.join(room=room)
            await bob.join(room=room)
            await alice.expect_event(2, "participant.joined", "bob", room=room)
            assert http_get(watcher, "/readyz") == (200, "ready\n")
            assert scrape(watcher)["rollcall_cluster_subscription_live"] == 1

            assert proxy.silence_subscribers() == 1
            wait_for(lambda: http_get(watcher, "/readyz")[0] == 503, what="/readyz turning 503")
            status, reason = http_get(watcher, "/readyz")
            assert "did not deliver this node's probe within 500 ms; resubscribing" in reason, (status, reason)
            metrics = scrape(watcher)
            assert metrics["rollcall_cluster_subscription_live"] == 0, metrics
            assert metrics["rollcall_cluster_probe_failures_total"] >= 1, metrics
            assert metrics["rollcall_cluster_resubscriptions_total"] >= 1, metrics
            # While the subscription delivers nothing the node stays not ready, however often it resubscribes.
            await asyncio.sleep(1.0)
            assert http_get(watcher, "/readyz")[0] == 503
            assert scrape(watcher)["rollcall_cluster_resubscriptions_total"] > metrics["rollcall_cluster_resubscriptions_total"]

            proxy.resume_subscribers()
            wait_for(lambda: http_get(watcher, "/readyz") == (200, "ready\n"), what="/readyz back to 200")
            assert scrape(watcher)["rollcall_cluster_subscription_live"] == 1
            muted = await bob.request({"type": "state", "room": room, "audioMuted": True})
            assert muted["type"] == "ack", muted
            await alice.expect_event(muted["seq"], "participant.audio_muted", "bob", room=room)
            for client in (alice, bob):
                await client.close()

        run(scenario())
        assert [watcher.stop(), writer.stop()] == [0, 0]
    finally:
        for node in (watcher, writer):
            if node.process.poll() is None:
                node.process.kill()
        proxy.close()
