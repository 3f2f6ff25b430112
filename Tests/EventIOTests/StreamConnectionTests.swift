import ClusterTesting
import EventIO
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The client stream connection against scripted peers: what goes out, what comes back and when, the bounds in
/// both directions, and how it ends.
@Suite(.serialized) struct StreamConnectionTests {
    /// Connects a stream with `recorder` as its delegate to 127.0.0.1:`port` on the harness's loop.
    private static func connect(
        _ harness: LoopHarness, port: Int, recorder: StreamRecorder, options: StreamConnectionOptions = .init(),
        tls: TLSConnection? = nil
    ) -> StreamConnection {
        harness.onLoop {
            let stream = StreamConnection(loop: harness.loop, options: options)
            stream.delegate = recorder
            try? stream.connect(to: SocketAddress(ipv4: "127.0.0.1", port: UInt16(port))!, tls: tls)
            return stream
        }
    }

    @Test func bytesWrittenWhileConnectingGoOutAndTheAnswerArrivesLineByLine() throws {
        let server = try ScriptedServer { fd in
            guard ScriptedServer.read(fd, atLeast: 6) == Array("hello\n".utf8) else { return }
            ScriptedServer.write(fd, "first\nsecond\n")
            _ = ScriptedServer.read(fd, atLeast: Int.max)
        }
        defer { server.close() }
        let harness = try LoopHarness()
        defer { harness.shutDown() }
        let recorder = StreamRecorder()
        let stream = Self.connect(harness, port: server.port, recorder: recorder)
        harness.onLoop { stream.write(Array("hello\n".utf8)) }

        #expect(waitUntil { recorder.lines == ["first", "second"] })
        #expect(recorder.opened == 1)
        #expect(recorder.ended.isEmpty)
        harness.onLoop { stream.close() }
    }

    @Test func aPartialUnitIsHandedOverAgainWithTheBytesThatComplete() throws {
        // Each piece goes out once the client has seen the one before (it answers with a byte).
        let server = try ScriptedServer { fd in
            ScriptedServer.write(fd, "par")
            guard ScriptedServer.read(fd, atLeast: 1) == [0x31] else { return }
            ScriptedServer.write(fd, "tial\nnext")
            guard ScriptedServer.read(fd, atLeast: 1) == [0x32] else { return }
            ScriptedServer.write(fd, "\n")
            _ = ScriptedServer.read(fd, atLeast: Int.max)
        }
        defer { server.close() }
        let harness = try LoopHarness()
        defer { harness.shutDown() }
        let recorder = StreamRecorder()
        let stream = Self.connect(harness, port: server.port, recorder: recorder)

        #expect(waitUntil { recorder.handed == [3] })
        harness.onLoop { stream.write([0x31]) }
        #expect(waitUntil { recorder.lines == ["partial"] })
        harness.onLoop { stream.write([0x32]) }
        #expect(waitUntil { recorder.lines == ["partial", "next"] })
        // "par", then "par" again with "tial\nnext" behind it, then "next" with "\n": nothing lost, nothing twice.
        #expect(recorder.handed == [3, 12, 5])
        harness.onLoop { stream.close() }
    }

    @Test func keepingMoreThanTheBoundFailsTheConnection() throws {
        let server = try ScriptedServer { fd in
            ScriptedServer.write(fd, String(repeating: "x", count: 10_000))
            _ = ScriptedServer.read(fd, atLeast: Int.max)
        }
        defer { server.close() }
        let harness = try LoopHarness()
        defer { harness.shutDown() }
        let recorder = StreamRecorder(usesNothing: true)
        let stream = Self.connect(
            harness, port: server.port, recorder: recorder, options: StreamConnectionOptions(maximumBufferedBytes: 4096)
        )

        #expect(waitUntil { !recorder.ended.isEmpty })
        guard case .failed(let error) = recorder.ended.first, case .inputLimit(4096) = error.kind else {
            Issue.record("ended with \(recorder.ended)")
            return
        }
        #expect(harness.onLoop { stream.phase } == .closed)
    }

    @Test func aPeerThatDoesNotReadFailsTheConnectionOnceTheQueuePassesItsBound() throws {
        let server = try ScriptedServer { fd in
            Thread.sleep(forTimeInterval: 5)
        }
        defer { server.close() }
        let harness = try LoopHarness()
        defer { harness.shutDown() }
        let recorder = StreamRecorder()
        let stream = Self.connect(
            harness, port: server.port, recorder: recorder,
            options: StreamConnectionOptions(maximumQueuedBytes: 64 * 1024))
        #expect(waitUntil { recorder.opened == 1 })
        // More than the bound at once: the connection fails at the end of the loop iteration, not inside the write.
        let endedInsideTheWrite = harness.onLoop { () -> Bool in
            stream.write([UInt8](repeating: 0x61, count: 1 << 20))
            return !recorder.ended.isEmpty
        }
        #expect(!endedInsideTheWrite)

        #expect(waitUntil { !recorder.ended.isEmpty })
        guard case .failed(let error) = recorder.ended.first, case .outputLimit(65536) = error.kind else {
            Issue.record("ended with \(recorder.ended)")
            return
        }
    }

    @Test func aRefusedConnectIsReportedAsAConnectFailure() throws {
        // A port that was free a moment ago: nothing listens on it.
        let listener = try Socket.listen(on: SocketAddress(ipv4: "127.0.0.1", port: 0)!, reusePort: false)
        let port = try Socket.localAddress(of: listener).port
        Socket.close(listener)
        let harness = try LoopHarness()
        defer { harness.shutDown() }
        let recorder = StreamRecorder()
        _ = Self.connect(harness, port: port, recorder: recorder)

        #expect(waitUntil { !recorder.ended.isEmpty })
        guard case .failed(let error) = recorder.ended.first, case .connect(let cause) = error.kind else {
            Issue.record("ended with \(recorder.ended)")
            return
        }
        #expect(cause.errnoCode == ECONNREFUSED)
        #expect(recorder.opened == 0)
    }

    @Test func thePeersCloseIsReportedAfterItsLastBytes() throws {
        let server = try ScriptedServer { fd in
            ScriptedServer.write(fd, "bye\n")
        }
        defer { server.close() }
        let harness = try LoopHarness()
        defer { harness.shutDown() }
        let recorder = StreamRecorder()
        _ = Self.connect(harness, port: server.port, recorder: recorder)

        #expect(waitUntil { !recorder.ended.isEmpty })
        #expect(recorder.lines == ["bye"])
        guard case .closedByPeer = recorder.ended.first else {
            Issue.record("ended with \(recorder.ended)")
            return
        }
        #expect(recorder.ended.count == 1)
    }

    @Test func aDelegateLetGoOfWhileTheConnectionIsOpenStillHearsHowItEnds() throws {
        let server = try ScriptedServer { fd in
            guard ScriptedServer.read(fd, atLeast: 1) == [0x31] else { return }
            ScriptedServer.write(fd, "bye\n")
        }
        defer { server.close() }
        let harness = try LoopHarness()
        defer { harness.shutDown() }
        let endings = ResultBox<String>()
        // Neither the connection nor its delegate is kept by anyone but the loop.
        harness.onLoop {
            let stream = StreamConnection(loop: harness.loop)
            let recorder = StreamRecorder(endings: endings)
            stream.delegate = recorder
            try? stream.connect(to: SocketAddress(ipv4: "127.0.0.1", port: UInt16(server.port))!)
            stream.write([0x31])
        }

        #expect(endings.wait(seconds: 10) == "closed by the peer")
    }

    @Test func nothingIsReportedAfterClose() throws {
        // The server answers only the byte that goes out in the same loop turn as the close: the answer cannot
        // arrive before it.
        let answered = ResultBox<Bool>()
        let server = try ScriptedServer { fd in
            guard ScriptedServer.read(fd, atLeast: 1) == [0x31] else { return }
            ScriptedServer.write(fd, "late\n")
            answered.put(true)
        }
        defer { server.close() }
        let harness = try LoopHarness()
        defer { harness.shutDown() }
        let recorder = StreamRecorder()
        let stream = Self.connect(harness, port: server.port, recorder: recorder)
        #expect(waitUntil { recorder.opened == 1 })
        harness.onLoop {
            stream.write([0x31])
            stream.flush()
            stream.close()
        }
        #expect(answered.wait(seconds: 10) == true)
        // One more loop turn: anything still to be reported would have been by now.
        harness.onLoop {}

        #expect(recorder.lines.isEmpty)
        #expect(recorder.ended.isEmpty)
    }

    @Test func overTLSBytesFlowBothWaysAndAnUntrustedCertificateFailsTheHandshake() throws {
        let directory = NSTemporaryDirectory() + "rollcall-stream-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let certificate = try TLSSelfSignedCertificate.generate(in: directory)
        let receiver = try WebhookReceiver(certificate: certificate) { _ in .answer(200) }
        defer { receiver.close() }
        let harness = try LoopHarness()
        defer { harness.shutDown() }

        let trusting = try TLSContext.makeClient(verifyPeer: true, trustedCertificatePath: certificate.certificatePath)
        let recorder = StreamRecorder()
        let stream = Self.connect(
            harness, port: Int(receiver.port), recorder: recorder,
            tls: try TLSConnection(context: trusting, serverName: "127.0.0.1"))
        harness.onLoop { stream.write(Array("POST / HTTP/1.1\r\nContent-Length: 2\r\n\r\nhi".utf8)) }
        #expect(waitUntil { recorder.lines.contains("Content-Length: 2\r") })
        #expect(receiver.requests.first?.body == Array("hi".utf8))
        harness.onLoop { stream.close() }

        let system = try TLSContext.makeClient(verifyPeer: true, trustedCertificatePath: nil)
        let refused = StreamRecorder()
        _ = Self.connect(
            harness, port: Int(receiver.port), recorder: refused,
            tls: try TLSConnection(context: system, serverName: "127.0.0.1"))
        #expect(waitUntil { !refused.ended.isEmpty })
        guard case .failed(let error) = refused.ended.first, case .tlsHandshake = error.kind else {
            Issue.record("ended with \(refused.ended)")
            return
        }
        #expect(refused.opened == 0)
    }
}
