import EventIO
import TokenAuth

#if canImport(Glibc)
import Glibc
#endif

/// `soak`: hours of churn at a moderate rate through the rooms protocol — connections, joins, state changes, clean
/// closes and dropped sockets that reconnect — while the server's memory, descriptors, rooms and roster entries
/// are sampled, so that a leak shows as a slope.
///
/// The clients are the load generator's connections on one event loop, run on the calling thread (`SoakRun`).
public enum SoakRunner {
    /// Runs the soak; `progress` gets one line per sample.
    public static func run(_ options: SoakOptions, progress: ((String) -> Void)? = nil) throws(BenchError) -> SoakReport
    {
        try options.validate()
        let pid = options.serverPID!
        guard BenchRunner.residentSetSize(of: pid) != nil else { throw BenchError("cannot read /proc/\(pid)/status") }
        _ = System.raiseOpenFileLimit()
        let signer = try Self.signer(options.key)
        let roomIDs = (0..<options.rooms).map { "soak-room-\($0)" }
        let expiry = Int64(time(nil)) + Int64(SoakOptions.maximumDuration) + 3600
        func token(_ claims: TokenClaims) throws(BenchError) -> String {
            do { return try signer.sign(claims) } catch { throw BenchError("cannot sign a token: \(error)") }
        }
        let botToken = try token(
            TokenClaims(
                subject: "soak-bot", expiresAt: expiry,
                rooms: Dictionary(uniqueKeysWithValues: roomIDs.map { ($0, .bot) }),
                issuedAt: Int64(time(nil))
            ))
        var tokens: [String] = []
        for index in 0..<options.connections {
            tokens.append(
                try token(
                    TokenClaims(
                        subject: "soak-\(index)", expiresAt: expiry, groups: [roomIDs[index % roomIDs.count]],
                        issuedAt: Int64(time(nil)))))
        }
        let loop: EventLoop
        do {
            loop = try EventLoop()
        } catch {
            throw BenchError("cannot start the event loop: \(error)")
        }
        let run = SoakRun(
            options: options, pid: pid, rooms: roomIDs, tokens: tokens, botToken: botToken, loop: loop,
            progress: progress)
        loop.execute { run.begin() }
        loop.run()
        return run.report()
    }

    private static func signer(_ text: String) throws(BenchError) -> TokenSigner {
        do {
            if let colon = text.firstIndex(of: ":") {
                return TokenSigner(
                    key: try TokenKey(keyID: String(text[..<colon]), secret: String(text[text.index(after: colon)...])))
            }
            return TokenSigner(key: try TokenKey(secret: text))
        } catch {
            throw BenchError("--key: \(error)")
        }
    }

    /// Open descriptors of a process: the entries of /proc/PID/fd.
    static func descriptorCount(of pid: Int32) -> Int? {
        guard let directory = opendir("/proc/\(pid)/fd") else { return nil }
        defer { closedir(directory) }
        var count = 0
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { count += 1 }
        }
        return count
    }
}
