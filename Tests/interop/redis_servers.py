"""Redis servers for the interoperability tests: one `redis-server`, or a Redis Cluster of three primaries.

Both start Debian's `redis-server` on free loopback ports in a temporary directory, answer `url` (what
`cluster.redis_url` takes) and `command(...)` (one command through a raw connection, so the tests need no Redis
client library), and stop with `stop()`. Every wait is bounded.
"""

import shutil
import signal
import socket
import subprocess
import time

START_TIMEOUT = 10.0
CLUSTER_FORM_TIMEOUT = 30.0


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def redis_binary(name="redis-server"):
    binary = shutil.which(name)
    assert binary, f"{name} is missing: scripts/install-test-deps.sh installs it"
    return binary


def encode(*arguments):
    parts = [f"*{len(arguments)}\r\n".encode()]
    for argument in arguments:
        data = argument if isinstance(argument, bytes) else str(argument).encode()
        parts.append(b"$%d\r\n%s\r\n" % (len(data), data))
    return b"".join(parts)


class _Reader:
    def __init__(self, connection):
        self.connection = connection
        self.buffer = b""

    def _line(self):
        while b"\r\n" not in self.buffer:
            chunk = self.connection.recv(65536)
            assert chunk, "Redis closed the connection"
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\r\n", 1)
        return line

    def _exactly(self, count):
        while len(self.buffer) < count + 2:
            chunk = self.connection.recv(65536)
            assert chunk, "Redis closed the connection"
            self.buffer += chunk
        data, self.buffer = self.buffer[:count], self.buffer[count + 2:]
        return data

    def reply(self):
        line = self._line()
        kind, rest = line[:1], line[1:]
        if kind == b"+":
            return rest.decode()
        if kind == b"-":
            return RedisReplyError(rest.decode())
        if kind == b":":
            return int(rest)
        if kind == b"$":
            length = int(rest)
            return None if length < 0 else self._exactly(length).decode(errors="replace")
        if kind == b"*":
            length = int(rest)
            return None if length < 0 else [self.reply() for _ in range(length)]
        raise AssertionError(f"unexpected Redis reply {line!r}")


class RedisReplyError(str):
    """An error reply (`-ERR ...`, `-MOVED ...`), returned rather than raised so callers can follow redirections."""


def command(port, *arguments):
    """One command to the server on `port`; its reply (str, int, list, None or RedisReplyError)."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as connection:
        connection.sendall(encode(*arguments))
        return _Reader(connection).reply()


def wait_for_ping(port, process, log):
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        try:
            if command(port, "PING") == "PONG":
                return
        except OSError:
            pass
        assert process.poll() is None, log.read_text() if log.exists() else "redis-server exited"
        time.sleep(0.05)
    raise AssertionError("redis-server did not answer PING in time")


class RedisServer:
    """A `redis-server` on 127.0.0.1 in its own directory, restartable on the same port with the same data."""

    kind = "single"

    def __init__(self, directory, extra=()):
        self.binary = redis_binary()
        self.directory = directory
        self.extra = list(extra)
        self.port = free_port()
        self.process = None
        self.start()

    @property
    def url(self):
        return f"redis://127.0.0.1:{self.port}"

    def start(self):
        self.process = subprocess.Popen(
            [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.directory),
             "--save", "", "--appendonly", "yes", "--appendfsync", "always", "--daemonize", "no",
             "--logfile", str(self.directory / "redis.log"), *self.extra],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        wait_for_ping(self.port, self.process, self.directory / "redis.log")

    def command(self, *arguments):
        return command(self.port, *arguments)

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            self.process.wait(timeout=10)


class RedisCluster:
    """A Redis Cluster of three primaries (and `replicas` replicas of each) on loopback, formed with
    `redis-cli --cluster create`.

    `command(...)` goes to any primary and follows `MOVED`, as a cluster client would; `primaries` lists the ports
    of the primaries as created, `ports` every node's; `serving(key)` asks the cluster who serves a key now.
    """

    kind = "cluster"

    def __init__(self, directory, primaries=3, replicas=0):
        binary = redis_binary()
        self.processes = {}
        self.ports = []
        try:
            for index in range(primaries * (1 + replicas)):
                port, bus = free_port(), free_port()
                node_directory = directory / f"node-{index}"
                node_directory.mkdir()
                log = node_directory / "redis.log"
                process = subprocess.Popen(
                    [binary, "--port", str(port), "--bind", "127.0.0.1", "--dir", str(node_directory),
                     "--save", "", "--appendonly", "yes", "--appendfsync", "everysec", "--daemonize", "no",
                     "--cluster-enabled", "yes", "--cluster-config-file", str(node_directory / "nodes.conf"),
                     "--cluster-node-timeout", "1000", "--cluster-port", str(bus), "--logfile", str(log)],
                    stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                )
                self.processes[port] = process
                self.ports.append(port)
                wait_for_ping(port, process, log)
            # redis-cli makes the first `primaries` nodes the primaries.
            self.primaries = self.ports[:primaries]
            created = subprocess.run(
                [redis_binary("redis-cli"), "--cluster", "create", *[f"127.0.0.1:{port}" for port in self.ports],
                 "--cluster-replicas", str(replicas), "--cluster-yes"],
                stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=CLUSTER_FORM_TIMEOUT, check=False,
            )
            assert created.returncode == 0, created.stdout + created.stderr
            deadline = time.monotonic() + CLUSTER_FORM_TIMEOUT
            while not self._formed():
                assert time.monotonic() < deadline, "the Redis Cluster did not form in time"
                time.sleep(0.05)
        except BaseException:
            self.stop()
            raise

    def _formed(self):
        for port in self.ports:
            info = command(port, "CLUSTER", "INFO")
            if "cluster_state:ok" not in info or f"cluster_known_nodes:{len(self.ports)}" not in info:
                return False
        # With replicas: every node sees a replica beside the primary of every slot range.
        return len(self.ports) == len(self.primaries) or all(
            len(row) > 3 for port in self.ports for row in command(port, "CLUSTER", "SLOTS"))

    def _serving_row(self, port, slot):
        """The `CLUSTER SLOTS` row of `slot` as the node on `port` sees it: start, end, primary, replicas..."""
        for row in command(port, "CLUSTER", "SLOTS"):
            if row[0] <= slot <= row[1]:
                return row
        return []

    def serving(self, key):
        """(primary port, [replica ports]) of the slot of `key`, as a live node sees it now."""
        live = next(port for port in self.ports if self.processes[port].poll() is None)
        row = self._serving_row(live, command(live, "CLUSTER", "KEYSLOT", key))
        return int(row[2][1]), [int(replica[1]) for replica in row[3:]]

    def kill(self, port):
        process = self.processes[port]
        process.kill()
        process.wait(timeout=10)

    @property
    def url(self):
        return "redis-cluster://" + ",".join(f"127.0.0.1:{port}" for port in self.primaries)

    def command(self, *arguments):
        port = self.primaries[0]
        for _ in range(3):
            reply = command(port, *arguments)
            if isinstance(reply, RedisReplyError) and reply.startswith("MOVED "):
                port = int(reply.split()[2].rsplit(":", 1)[1])
                continue
            return reply
        raise AssertionError(f"{arguments}: too many redirections")

    def keys_on(self, port, pattern="*"):
        """Every key the primary on `port` holds that matches `pattern` (SCAN, that node only)."""
        keys, cursor = [], "0"
        while True:
            cursor, batch = command(port, "SCAN", cursor, "MATCH", pattern, "COUNT", 1000)
            keys.extend(batch)
            if cursor == "0":
                return keys

    def stop(self):
        for process in self.processes.values():
            if process.poll() is None:
                process.kill()
                process.wait(timeout=10)


class RedisSentinels:
    """A primary, one replica and three Sentinels watching them as `mymaster` (quorum 2), on loopback.

    The Sentinels judge a primary down after `down_after_ms` and fail over to the replica. `primary_port()` asks
    them where the primary is now; `wait_for_primary(port)` waits until they agree on `port`.
    """

    kind = "sentinel"
    name = "mymaster"

    def __init__(self, directory, down_after_ms=1000):
        binary = redis_binary()
        self.directory = directory
        self.processes = {}
        try:
            self.primary = self._server(binary, "primary")
            self.replica = self._server(binary, "replica", "--replicaof", "127.0.0.1", str(self.primary))
            self._wait_for_link()
            self.sentinels = []
            for index in range(3):
                port = free_port()
                node_directory = directory / f"sentinel-{index}"
                node_directory.mkdir()
                config = node_directory / "sentinel.conf"
                config.write_text(
                    f"port {port}\nbind 127.0.0.1\ndir {node_directory}\n"
                    f"sentinel monitor {self.name} 127.0.0.1 {self.primary} 2\n"
                    f"sentinel down-after-milliseconds {self.name} {down_after_ms}\n"
                    f"sentinel failover-timeout {self.name} 5000\n"
                    f"sentinel parallel-syncs {self.name} 1\n"
                )
                log = node_directory / "sentinel.log"
                process = subprocess.Popen(
                    [binary, str(config), "--sentinel", "--logfile", str(log)],
                    stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                )
                self.processes[port] = process
                self.sentinels.append(port)
                wait_for_ping(port, process, log)
            # Every Sentinel knows the replica (from the primary's INFO) before a test relies on a failover.
            deadline = time.monotonic() + START_TIMEOUT * 3
            while not all(self._sentinel_knows_replica(port) for port in self.sentinels):
                assert time.monotonic() < deadline, "the Sentinels did not discover the replica in time"
                time.sleep(0.1)
        except BaseException:
            self.stop()
            raise

    def _server(self, binary, name, *arguments):
        port = free_port()
        node_directory = self.directory / name
        node_directory.mkdir()
        log = node_directory / "redis.log"
        process = subprocess.Popen(
            [binary, "--port", str(port), "--bind", "127.0.0.1", "--dir", str(node_directory), "--save", "",
             "--appendonly", "yes", "--appendfsync", "everysec", "--daemonize", "no", "--logfile", str(log),
             *arguments],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        self.processes[port] = process
        wait_for_ping(port, process, log)
        return port

    def _wait_for_link(self):
        deadline = time.monotonic() + START_TIMEOUT
        while "master_link_status:up" not in command(self.replica, "INFO", "replication"):
            assert time.monotonic() < deadline, "the replica did not sync with the primary in time"
            time.sleep(0.05)

    def _sentinel_knows_replica(self, port):
        replicas = command(port, "SENTINEL", "REPLICAS", self.name)
        return isinstance(replicas, list) and len(replicas) == 1

    @property
    def url(self):
        return "redis-sentinel://" + ",".join(f"127.0.0.1:{port}" for port in self.sentinels) + f"/{self.name}"

    def primary_port(self, sentinel=None):
        reply = command(sentinel or self.sentinels[0], "SENTINEL", "GET-MASTER-ADDR-BY-NAME", self.name)
        return int(reply[1]) if isinstance(reply, list) else None

    def wait_for_primary(self, port, timeout=30.0):
        deadline = time.monotonic() + timeout
        while not all(self.primary_port(sentinel) == port for sentinel in self.sentinels):
            assert time.monotonic() < deadline, f"the Sentinels did not name {port} the primary within {timeout} s"
            time.sleep(0.1)

    def command(self, *arguments):
        """One command to the server the Sentinels name the primary."""
        return command(self.primary_port(), *arguments)

    def kill(self, port):
        process = self.processes[port]
        process.kill()
        process.wait(timeout=10)

    def stop(self):
        for process in self.processes.values():
            if process.poll() is None:
                process.kill()
                process.wait(timeout=10)
