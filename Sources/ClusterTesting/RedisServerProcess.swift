import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A real `redis-server` for tests, in its own temporary directory on a free loopback port.
///
/// The server runs in the foreground (`--daemonize no`) bound to 127.0.0.1, without RDB snapshots but with an
/// append-only file synced on every write, so data survives `stop()`/`kill()` and `restart()`. `restart()` reuses
/// the port and the directory. The directory is removed, and a server still running is killed, by `shutDown()` and
/// at deinit, so a test that fails half-way leaves nothing behind.
public final class RedisServerProcess: @unchecked Sendable {
    /// The TCP port on 127.0.0.1.
    public private(set) var port: Int
    /// The server's working directory (append-only file, log).
    public let directory: String
    /// The `redis-server` binary found on PATH.
    public let executablePath: String

    private let extraArguments: [String]
    /// `cluster-node-timeout` of a Redis Cluster node; nil for a standalone server.
    private let clusterNodeTimeoutMilliseconds: Int?
    /// A cluster node's bus port (`cluster-port`; the default, the port + 10000, may be past 65535).
    private var clusterBusPort = 0
    private let startupTimeout: TimeInterval
    private let lock = NSLock()
    /// The running server's process id, 0 when none runs.
    private var pid: pid_t = 0
    private var isShutDown = false

    /// Starts `redis-server` and waits until it answers `PING`.
    ///
    /// - Parameters:
    ///   - extraArguments: further options, such as `["--requirepass", "secret"]`.
    ///   - startupTimeout: how long to wait for the first `PING` answer, in seconds.
    ///   - clusterNodeTimeoutMilliseconds: when set, the server is a Redis Cluster node (`--cluster-enabled yes`,
    ///     its `nodes.conf` in its directory) with this `cluster-node-timeout`.
    /// - Throws: `RedisServerProcessError` when `redis-server` is not on PATH, or does not start in time.
    public init(
        extraArguments: [String] = [], startupTimeout: TimeInterval = 10, clusterNodeTimeoutMilliseconds: Int? = nil
    ) throws {
        self.executablePath = try Self.locateExecutable(named: "redis-server")
        self.extraArguments = extraArguments
        self.clusterNodeTimeoutMilliseconds = clusterNodeTimeoutMilliseconds
        self.startupTimeout = startupTimeout
        self.directory = try Self.makeTemporaryDirectory()
        self.port = 0
        var lastError: RedisServerProcessError?
        // Another process may take the free port between the probe and redis-server's bind: try a few ports.
        for _ in 0..<5 {
            do {
                self.port = try Self.freeLoopbackPort()
                if clusterNodeTimeoutMilliseconds != nil { self.clusterBusPort = try Self.freeLoopbackPort() }
                try self.launch()
                return
            } catch let error as RedisServerProcessError {
                lastError = error
                guard self.logText().contains("Address already in use") else { break }
                try? FileManager.default.removeItem(atPath: self.logPath)
            }
        }
        self.removeDirectory()
        throw lastError ?? RedisServerProcessError("redis-server did not start")
    }

    deinit {
        self.shutDown()
    }

    /// Whether the server process is running.
    public var isRunning: Bool {
        _ = self.reapIfExited()
        return self.lock.withLock { self.pid > 0 }
    }

    /// Stops the server with SIGTERM (it syncs the append-only file and exits) and waits for it; SIGKILL after
    /// five seconds.
    public func stop() {
        self.terminate(signal: SIGTERM, grace: 5)
    }

    /// Kills the server with SIGKILL, as a crash would, and waits for it.
    public func kill() {
        self.terminate(signal: SIGKILL, grace: 5)
    }

    /// Starts the server again on the same port and directory (stopping it first when it runs), and waits until
    /// it answers `PING`.
    ///
    /// - Throws: `RedisServerProcessError` when it does not start in time.
    public func restart() throws {
        if self.isRunning { self.stop() }
        var lastError: RedisServerProcessError?
        // The port was just released; give the kernel a moment if the bind is refused.
        for _ in 0..<10 {
            do {
                try self.launch()
                return
            } catch let error as RedisServerProcessError {
                lastError = error
                guard self.logText().contains("Address already in use") else { break }
                Thread.sleep(forTimeInterval: 0.1)
            }
        }
        throw lastError ?? RedisServerProcessError("redis-server did not restart")
    }

    /// Kills the server if it runs and removes its directory. Safe to call more than once.
    public func shutDown() {
        guard !self.lock.withLock({ self.isShutDown }) else { return }
        self.kill()
        self.removeDirectory()
        self.lock.withLock { self.isShutDown = true }
    }

    // MARK: Starting and stopping

    private var logPath: String { self.directory + "/redis.log" }

    private func launch() throws {
        var arguments =
            [
                self.executablePath, "--port", String(self.port), "--bind", "127.0.0.1", "--dir", self.directory,
                "--save", "", "--appendonly", "yes", "--appendfsync", "always", "--daemonize", "no",
                "--logfile", self.logPath,
            ] + self.extraArguments
        if let timeout = self.clusterNodeTimeoutMilliseconds {
            arguments += [
                "--cluster-enabled", "yes", "--cluster-config-file", self.directory + "/nodes.conf",
                "--cluster-node-timeout", String(timeout), "--cluster-port", String(self.clusterBusPort),
            ]
        }
        let pid = try Self.spawn(arguments)
        self.lock.withLock { self.pid = pid }
        let deadline = Date().addingTimeInterval(self.startupTimeout)
        while Date() < deadline {
            if let status = self.reapIfExited() {
                throw RedisServerProcessError(
                    "redis-server exited with status \(status) at start; log:\n\(self.logTail())"
                )
            }
            if self.answersPing() { return }
            Thread.sleep(forTimeInterval: 0.02)
        }
        self.kill()
        throw RedisServerProcessError(
            "redis-server did not answer PING on port \(self.port) within \(self.startupTimeout) s; log:\n"
                + self.logTail()
        )
    }

    /// Starts `arguments[0]` with the rest as its arguments, standard input and output on /dev/null.
    private static func spawn(_ arguments: [String]) throws -> pid_t {
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        // The child starts with no blocked signals and default handlers: the test process may block or ignore
        // some (SIGTERM, SIGPIPE), and the server must see SIGTERM to shut down.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        var defaultSignals = sigset_t()
        sigfillset(&defaultSignals)
        sigdelset(&defaultSignals, SIGKILL)
        sigdelset(&defaultSignals, SIGSTOP)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &defaultSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid: pid_t = 0
        let result = posix_spawn(&pid, arguments[0], &actions, &attributes, &argv, environ)
        guard result == 0 else {
            throw RedisServerProcessError("cannot run \(arguments[0]): \(String(cString: strerror(result)))")
        }
        return pid
    }

    /// Collects the server's exit status when it has exited; nil while it runs (or when none was started).
    private func reapIfExited() -> Int32? {
        self.lock.withLock {
            guard self.pid > 0 else { return nil }
            var status: Int32 = 0
            let result = waitpid(self.pid, &status, WNOHANG)
            // ECHILD: something else in the process (a SIGCHLD handler) collected it already.
            let collected = result == self.pid
            guard collected || (result < 0 && errno == ECHILD) else { return nil }
            self.pid = 0
            return collected ? status : -1
        }
    }

    private func terminate(signal: Int32, grace: TimeInterval) {
        guard let pid = self.lock.withLock({ self.pid > 0 ? self.pid : nil }) else { return }
        Glibc.kill(pid, signal)
        let deadline = Date().addingTimeInterval(grace)
        while Date() < deadline {
            if self.reapIfExited() != nil { return }
            Thread.sleep(forTimeInterval: 0.005)
        }
        self.lock.withLock {
            guard self.pid > 0 else { return }
            Glibc.kill(self.pid, SIGKILL)
            var status: Int32 = 0
            _ = waitpid(self.pid, &status, 0)
            self.pid = 0
        }
    }

    /// Whether the server answers `PING` (`+PONG`, or `-NOAUTH` when it requires a password) rather than refusing
    /// the connection or answering `-LOADING`.
    private func answersPing() -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 1, tv_usec: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = Self.loopbackAddress(port: self.port)
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        guard connected else { return false }
        let ping = Array("*1\r\n$4\r\nPING\r\n".utf8)
        guard ping.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == ping.count else {
            return false
        }
        var reply = [UInt8](repeating: 0, count: 256)
        let count = reply.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return false }
        let text = String(decoding: reply[0..<count], as: UTF8.self)
        return text.hasPrefix("+PONG") || text.hasPrefix("-NOAUTH")
    }

    // MARK: Helpers

    private static func locateExecutable(named name: String) throws -> String {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in path.split(separator: ":") where !directory.isEmpty {
            let candidate = String(directory) + "/" + name
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        throw RedisServerProcessError(
            "\(name) was not found on PATH; install it (Debian: apt-get install redis-server, or run "
                + "scripts/install-test-deps.sh)"
        )
    }

    private static func makeTemporaryDirectory() throws -> String {
        var base = NSTemporaryDirectory()
        if !base.hasSuffix("/") { base += "/" }
        // mkdtemp replaces the six trailing X characters with a unique suffix.
        var template = Array((base + "rollcall-redis-" + String(repeating: "X", count: 6)).utf8CString)
        guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
            throw RedisServerProcessError("cannot create a temporary directory under \(base): errno \(errno)")
        }
        return String(cString: template)
    }

    /// A port that was free a moment ago: bound on 127.0.0.1 with port 0, read back, released.
    private static func freeLoopbackPort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw RedisServerProcessError("socket failed: errno \(errno)") }
        defer { close(fd) }
        var address = Self.loopbackAddress(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard bound else { throw RedisServerProcessError("cannot bind a loopback port: errno \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    private static func loopbackAddress(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }

    private func logText() -> String {
        (try? String(contentsOfFile: self.logPath, encoding: .utf8)) ?? ""
    }

    private func logTail() -> String {
        self.logText().split(separator: "\n").suffix(15).joined(separator: "\n")
    }

    private func removeDirectory() {
        try? FileManager.default.removeItem(atPath: self.directory)
    }
}
