import ClusterTesting
import EventIO
import Foundation
import Redis
import Testing

/// The client against a real `redis-server`, one server per test.
@Suite(.serialized) struct RedisClientLiveTests {
    @Test func aValueSetIsReadBack() throws {
        let live = try LiveRedis()
        defer { live.tearDown() }
        let probe = live.probe()

        #expect(probe.startAndWaitUntilConnected())
        #expect(probe.request(["SET", "greeting", "hello, redis"])?.text == "OK")
        #expect(probe.request(["GET", "greeting"])?.text == "hello, redis")
        #expect(try probe.request(["GET", "missing"])?.get() == .bulkString(nil))
        #expect(probe.states == [.connecting, .connected])
        #expect(probe.connectCount == 1)
    }

    @Test func tenThousandPipelinedIncrementsCompleteInOrderWithTheRightValues() throws {
        let live = try LiveRedis()
        defer { live.tearDown() }
        let probe = live.probe()
        #expect(probe.startAndWaitUntilConnected())

        let count = 10_000
        let done = ResultBox<[Int64]>()
        live.harness.onLoop {
            var values: [Int64] = []
            values.reserveCapacity(count)
            for _ in 0..<count {
                probe.client.send(["INCR", "counter"]) { result in
                    if case .success(.integer(let value)) = result { values.append(value) } else { values.append(-1) }
                    if values.count == count { done.put(values) }
                }
            }
        }
        let values = try #require(done.wait(seconds: 30))
        #expect(values == Array(1...Int64(count)))
        #expect(probe.request(["GET", "counter"])?.text == String(count))
    }

    @Test func aLargeValueCrossesManyReadsAndWrites() throws {
        let live = try LiveRedis()
        defer { live.tearDown() }
        let probe = live.probe()
        #expect(probe.startAndWaitUntilConnected())

        // 8 MiB: more than the socket buffers take at once, and far more than one read.
        let value = String(repeating: "0123456789abcdef", count: 512 * 1024)
        let small = probe.sendWithoutWaiting(["SET", "small", "1"])
        #expect(probe.request(["SET", "large", value], seconds: 30)?.text == "OK")
        #expect(small.wait(seconds: 1)?.text == "OK")
        #expect(probe.request(["STRLEN", "large"]).map(integer) == 8 * 1024 * 1024)
        let echoed = probe.request(["GET", "large"], seconds: 30)?.text
        #expect(echoed?.count == value.count)
        #expect(echoed == value)
        #expect(probe.connectCount == 1)
    }

    @Test func anErrorReplySurfacesAsAServerErrorWithItsText() throws {
        let live = try LiveRedis()
        defer { live.tearDown() }
        let probe = live.probe()
        #expect(probe.startAndWaitUntilConnected())

        #expect(probe.request(["SET", "word", "abc"])?.text == "OK")
        let error = try #require(probe.request(["INCR", "word"])?.error)
        #expect(error == .server("ERR value is not an integer or out of range"))
        #expect(error.serverMessage == "ERR value is not an integer or out of range")
        let unknown = try #require(probe.request(["NOSUCHCOMMAND", "x"])?.error)
        #expect(unknown.serverMessage?.hasPrefix("ERR unknown command") == true)
        // The error replies kept their places: the connection goes on answering in order.
        #expect(probe.request(["PING"])?.text == "PONG")
        #expect(probe.connectCount == 1)
    }

    @Test func aCommandSentWhileTheServerIsDownFailsFastWithNotConnected() throws {
        let live = try LiveRedis()
        defer { live.tearDown() }
        live.server.stop()
        let probe = live.probe()

        // Before start, then while the connects are refused.
        let before = probe.sendWithoutWaiting(["PING"])
        #expect(before.wait(seconds: 1)?.error == .notConnected)
        probe.start()
        #expect(waitUntil { probe.errors.count >= 2 })
        let started = Date()
        let result = probe.request(["PING"], seconds: 1)
        #expect(result?.error == .notConnected)
        #expect(Date().timeIntervalSince(started) < 0.5)
        #expect(probe.errors.allSatisfy { $0.description.contains("cannot connect to Redis: 127.0.0.1:") })
        #expect(probe.errors.first?.description.contains("Connection refused") == true)
        #expect(!probe.states.contains(.connected))

        // The completion never runs inside send.
        let ranInside = live.harness.onLoop { () -> Bool in
            var ran = false
            probe.client.send(["PING"]) { _ in ran = true }
            return ran
        }
        #expect(!ranInside)
    }

    @Test func killingTheServerFailsPendingCommandsAndTheClientReconnectsAfterARestart() throws {
        let live = try LiveRedis()
        defer { live.tearDown() }
        let probe = live.probe()
        #expect(probe.startAndWaitUntilConnected())
        #expect(probe.request(["SET", "kept", "across restarts"])?.text == "OK")

        // BLPOP on an empty list waits on the server, so it and the PING behind it are pending at the kill.
        let blocked = probe.sendWithoutWaiting(["BLPOP", "empty-list", "5"], timeoutMilliseconds: 10_000)
        let behind = probe.sendWithoutWaiting(["PING"], timeoutMilliseconds: 10_000)
        #expect(waitUntil { live.harness.onLoop { probe.client.pendingCommandCount } == 2 })
        live.server.kill()
        #expect(blocked.wait(seconds: 5)?.error == .connectionLost)
        #expect(behind.wait(seconds: 5)?.error == .connectionLost)
        #expect(waitUntil { !probe.isConnected })
        #expect(probe.request(["PING"], seconds: 1)?.error == .notConnected)

        try live.server.restart()
        #expect(waitUntil { probe.isConnected })
        #expect(probe.connectCount == 2)
        #expect(probe.request(["GET", "kept"])?.text == "across restarts")
        #expect(probe.errors.first == .connectionLost)
    }

    @Test func aCommandPastItsDeadlineTimesOutAndLaterCommandsWorkAfterTheReconnect() throws {
        let live = try LiveRedis(serverArguments: ["--enable-debug-command", "local"])
        defer { live.tearDown() }
        let probe = live.probe()
        #expect(probe.startAndWaitUntilConnected())

        let started = Date()
        let sleeping = probe.sendWithoutWaiting(["DEBUG", "SLEEP", "0.5"], timeoutMilliseconds: 100)
        let behind = probe.sendWithoutWaiting(["PING"])
        #expect(sleeping.wait(seconds: 5)?.error == .timedOut)
        #expect(Date().timeIntervalSince(started) < 0.45)
        // The stream cannot be trusted after a timeout: the command behind it is failed, not answered late.
        #expect(behind.wait(seconds: 5)?.error == .connectionLost)
        #expect(probe.errors.first == .timedOut)

        #expect(waitUntil { probe.connectCount == 2 && probe.isConnected })
        #expect(probe.request(["SET", "after", "timeout"])?.text == "OK")
        #expect(probe.request(["GET", "after"])?.text == "timeout")
    }

    @Test func commandsBeyondThePendingLimitFailAtOnce() throws {
        let live = try LiveRedis()
        defer { live.tearDown() }
        var limited = live.configuration()
        limited.maximumPendingCommands = 10
        let probe = live.probe(limited)
        #expect(probe.startAndWaitUntilConnected())

        let outcomes = ResultBox<[Result<RESPValue, RedisError>]>()
        live.harness.onLoop {
            var results: [Result<RESPValue, RedisError>] = []
            for _ in 0..<12 {
                probe.client.send(["PING"]) { result in
                    results.append(result)
                    if results.count == 12 { outcomes.put(results) }
                }
            }
        }
        let results = try #require(outcomes.wait(seconds: 10))
        #expect(results.filter { $0.error == .tooManyPendingCommands }.count == 2)
        #expect(results.filter { $0.text == "PONG" }.count == 10)
    }

    @Test func commandsSentFromOnConnectedGoFirstOnEveryConnect() throws {
        let live = try LiveRedis()
        defer { live.tearDown() }
        let replies = ResultBox<Int64>()
        let probe = live.probe { client in
            client.send(["INCR", "connects"]) { result in
                if case .success(.integer(let value)) = result { replies.put(value) }
            }
        }
        #expect(probe.startAndWaitUntilConnected())
        #expect(replies.wait(seconds: 5) == 1)
        #expect(probe.request(["GET", "connects"])?.text == "1")
    }

    @Test func aSubscriberReceivesMessagesPublishedByAnotherClient() throws {
        let live = try LiveRedis()
        defer { live.tearDown() }
        let subscriber = live.probe()
        let publisher = live.probe()
        #expect(subscriber.startAndWaitUntilConnected())
        #expect(publisher.startAndWaitUntilConnected())

        subscriber.subscribe(["room:1", "room:2"])
        #expect(waitUntil { subscriberCount(publisher, "room:1") == 1 })
        #expect(publisher.request(["PUBLISH", "room:1", "hello"]).map(integer) == 1)
        #expect(publisher.request(["PUBLISH", "elsewhere", "ignored"]).map(integer) == 0)
        #expect(publisher.request(["PUBLISH", "room:2", "second"]).map(integer) == 1)
        #expect(waitUntil { subscriber.messages.count == 2 })
        #expect(subscriber.messages.map(\.channel) == ["room:1", "room:2"])
        #expect(subscriber.messages.map(\.payload) == ["hello", "second"])

        subscriber.unsubscribe(["room:1"])
        #expect(waitUntil { subscriberCount(publisher, "room:1") == 0 })
        #expect(live.harness.onLoop { subscriber.client.subscribedChannels } == [Array("room:2".utf8)])
    }

    @Test func aSubscriptionIsRenewedAfterTheServerRestarts() throws {
        let live = try LiveRedis()
        defer { live.tearDown() }
        let subscriber = live.probe()
        let publisher = live.probe()
        subscriber.subscribe(["events"])
        #expect(subscriber.startAndWaitUntilConnected())
        #expect(publisher.startAndWaitUntilConnected())
        #expect(waitUntil { subscriberCount(publisher, "events") == 1 })
        #expect(publisher.request(["PUBLISH", "events", "before"]).map(integer) == 1)
        #expect(waitUntil { subscriber.messages.count == 1 })

        live.server.stop()
        #expect(waitUntil { !subscriber.isConnected && !publisher.isConnected })
        try live.server.restart()
        #expect(waitUntil { subscriber.connectCount == 2 && publisher.isConnected })
        #expect(waitUntil { subscriberCount(publisher, "events") == 1 })
        #expect(publisher.request(["PUBLISH", "events", "after"]).map(integer) == 1)
        #expect(waitUntil { subscriber.messages.count == 2 })
        #expect(subscriber.messages.map(\.payload) == ["before", "after"])
    }

    @Test func theRightPasswordAuthenticatesAndAWrongOneIsReportedClearly() throws {
        let live = try LiveRedis(serverArguments: ["--requirepass", "s3cret"])
        defer { live.tearDown() }

        var good = live.configuration()
        good.password = "s3cret"
        good.database = 3
        let authenticated = live.probe(good)
        #expect(authenticated.startAndWaitUntilConnected())
        #expect(authenticated.request(["SET", "secret", "value"])?.text == "OK")
        #expect(authenticated.request(["GET", "secret"])?.text == "value")
        #expect(try authenticated.request(["CLIENT", "INFO"])?.get().text?.contains(" db=3 ") == true)

        var wrong = live.configuration()
        wrong.password = "guess"
        let refused = live.probe(wrong)
        refused.start()
        #expect(waitUntil { !refused.errors.isEmpty })
        let error = try #require(refused.errors.first)
        #expect(error.description.contains("AUTH"))
        #expect(error.description.contains("WRONGPASS"))
        #expect(!refused.isConnected)
        #expect(!refused.states.contains(.connected))
        #expect(refused.request(["PING"], seconds: 1)?.error == .notConnected)

        let anonymous = live.probe()
        #expect(anonymous.startAndWaitUntilConnected())
        #expect(anonymous.request(["GET", "secret"])?.error?.serverMessage?.hasPrefix("NOAUTH") == true)
    }
}

/// How many clients are subscribed to `channel`, asked through `client` (PUBSUB NUMSUB).
private func subscriberCount(_ client: ClientProbe, _ channel: String) -> Int64? {
    guard case .success(.array(let elements?))? = client.request(["PUBSUB", "NUMSUB", channel]), elements.count == 2,
        case .integer(let count) = elements[1]
    else { return nil }
    return count
}

/// The integer of a reply, nil for anything else.
private func integer(_ result: Result<RESPValue, RedisError>) -> Int64? {
    if case .success(.integer(let value)) = result { return value }
    return nil
}
