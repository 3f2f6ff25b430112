import ClusterTesting
import EventIO
import Foundation
import Redis

/// A `RedisClient` on a test loop, recording what it reports, with blocking helpers for the test's thread.
final class ClientProbe: @unchecked Sendable {
    let harness: LoopHarness
    /// Touched on the loop only.
    private(set) var client: RedisClient!

    private let lock = NSLock()
    private var recordedStates: [RedisConnectionState] = []
    private var recordedConnects = 0
    private var recordedMessages: [(channel: String, payload: String)] = []
    private var recordedErrors: [RedisError] = []

    /// Creates the client on the loop; `onConnected` runs inside the client's own `onConnected`.
    init(
        _ harness: LoopHarness,
        _ configuration: RedisClientConfiguration,
        onConnected: ((RedisClient) -> Void)? = nil
    ) {
        self.harness = harness
        harness.onLoop {
            let client = RedisClient(configuration: configuration, loop: harness.loop)
            client.onStateChange = { [unowned self] state in self.lock.withLock { self.recordedStates.append(state) } }
            client.onConnected = { [unowned self, unowned client] in
                self.lock.withLock { self.recordedConnects += 1 }
                onConnected?(client)
            }
            client.onMessage = { [unowned self] channel, payload in
                let message = (String(decoding: channel, as: UTF8.self), String(decoding: payload, as: UTF8.self))
                self.lock.withLock { self.recordedMessages.append(message) }
            }
            client.onError = { [unowned self] error in self.lock.withLock { self.recordedErrors.append(error) } }
            self.client = client
        }
    }

    var states: [RedisConnectionState] { self.lock.withLock { self.recordedStates } }
    var connectCount: Int { self.lock.withLock { self.recordedConnects } }
    var messages: [(channel: String, payload: String)] { self.lock.withLock { self.recordedMessages } }
    var errors: [RedisError] { self.lock.withLock { self.recordedErrors } }
    var isConnected: Bool { self.harness.onLoop { self.client.isConnected } }

    func start() { self.harness.onLoop { self.client.start() } }
    func stop() { self.harness.onLoop { self.client.stop() } }

    /// Starts the client and waits until it reports `.connected`.
    func startAndWaitUntilConnected() -> Bool {
        self.start()
        return waitUntil { self.isConnected }
    }

    /// Sends one command and waits (at most `seconds`) for its completion; nil when none came.
    func request(
        _ arguments: [String], timeoutMilliseconds: Int64? = nil, seconds: Double = 10
    )
        -> Result<RESPValue, RedisError>?
    {
        let box = self.sendWithoutWaiting(arguments, timeoutMilliseconds: timeoutMilliseconds)
        return box.wait(seconds: seconds)
    }

    /// Sends one command; the returned box receives its completion.
    func sendWithoutWaiting(
        _ arguments: [String], timeoutMilliseconds: Int64? = nil
    )
        -> ResultBox<Result<RESPValue, RedisError>>
    {
        let box = ResultBox<Result<RESPValue, RedisError>>()
        self.harness.onLoop {
            self.client.send(arguments, timeoutMilliseconds: timeoutMilliseconds) { box.put($0) }
        }
        return box
    }

    func subscribe(_ channels: [String]) {
        self.harness.onLoop { self.client.subscribe(channels.map { Array($0.utf8) }) }
    }

    func unsubscribe(_ channels: [String]) {
        self.harness.onLoop { self.client.unsubscribe(channels.map { Array($0.utf8) }) }
    }
}
