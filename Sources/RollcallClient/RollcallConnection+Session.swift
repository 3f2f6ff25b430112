// The Linux transport: EventIO's sockets and OpenSSL; Apple platforms supply a RollcallTransport of their own.
#if canImport(EventIO)

import Foundation
import WebSocketCore

#if canImport(Glibc)
import Glibc
#endif

/// The WebSocket session while `run` runs: queued messages out, frames in, pings, pongs and the close handshake, by
/// the rules of `WebSocketSessionStateMachine` in the client role.
extension RollcallConnection {
    private enum Inbound {
        case text(String)
        case ping([UInt8])
        case pong([UInt8])
        case close(WebSocketCloseCode?, String)
        case violation(WebSocketProtocolViolation)
    }

    /// The session while `run` runs: its rules, the close this side asked for, and how it ended once the close
    /// handshake completed (returned when the server closes the TCP connection, or after the close timeout).
    private struct Session {
        var machine: WebSocketSessionStateMachine
        var localClose: CloseRequest?
        var ending: RollcallCloseInfo?
    }

    /// The state machine's clock: monotonic milliseconds.
    private static func milliseconds(_ seconds: Double = MonotonicClock.now()) -> UInt64 {
        UInt64(max(0, seconds * 1000).rounded())
    }

    /// Runs the session on the I/O thread until the connection ends, and says how it ended; `run` closes the socket
    /// after.
    func loop(onText: (String) -> Void, onTick: () -> Void) -> RollcallCloseInfo {
        guard self.processor != nil else {
            return RollcallCloseInfo(code: nil, reason: "not open", wasClean: false, initiatedLocally: true)
        }
        let timeouts = WebSocketSessionStateMachine.Timeouts(
            pingInterval: Self.milliseconds(self.options.pingInterval),
            pongTimeout: Self.milliseconds(self.options.pongTimeout),
            idleTimeout: 0,
            closeTimeout: Self.milliseconds(self.options.closeTimeout)
        )
        var session = Session(
            machine: WebSocketSessionStateMachine(role: .client, timeouts: timeouts, now: Self.milliseconds())
        )
        // Bytes already received after the upgrade response.
        if !self.inbound.isEmpty, let info = self.processInbound(onText: onText, &session) {
            return info
        }
        while true {
            // Queued messages, then a requested close.
            let (frames, close) = self.lock.withLock { (self.outbound.takeAll(), self.state.closeRequest) }
            do {
                let deadline = MonotonicClock.now() + self.options.writeTimeout
                for frame in frames { try self.writeAll(frame, until: deadline) }
                if let close, session.machine.isOpen {
                    session.localClose = close
                    let code = WebSocketCloseCode(rawValue: close.code)
                    let action = session.machine.close(code: code, reason: close.reason, now: Self.milliseconds())
                    try self.perform(action, until: deadline)
                }
            } catch {
                return RollcallCloseInfo(
                    code: nil, reason: error.description, wasClean: false,
                    initiatedLocally: session.localClose != nil)
            }
            onTick()
            switch session.machine.timerFired(now: Self.milliseconds()) {
            case .closeSocket(.close):
                return session.ending
                    ?? RollcallCloseInfo(
                        code: session.localClose?.code, reason: session.localClose?.reason ?? "", wasClean: false,
                        initiatedLocally: true)
            case .closeSocket(.pong):
                return RollcallCloseInfo(
                    code: nil, reason: "no answer to a ping", wasClean: false, initiatedLocally: true)
            case let action:
                try? self.perform(action, until: MonotonicClock.now() + self.options.writeTimeout)
            }
            let fd = self.lock.withLock { self.socket }
            guard fd >= 0 else {
                return RollcallCloseInfo(code: nil, reason: "socket closed", wasClean: false, initiatedLocally: true)
            }
            var fds = [
                pollfd(fd: fd, events: Int16(POLLIN), revents: 0),
                pollfd(fd: self.wakeFD, events: Int16(POLLIN), revents: 0),
            ]
            let ready = Glibc.poll(&fds, 2, 100)
            if ready < 0 && errno != EINTR {
                return RollcallCloseInfo(code: nil, reason: "poll failed", wasClean: false, initiatedLocally: false)
            }
            if fds[1].revents != 0 {
                var drained = [UInt8](repeating: 0, count: 64)
                _ = Glibc.read(self.wakeFD, &drained, drained.count)
            }
            guard fds[0].revents != 0 else { continue }
            let received: Bool
            do {
                received = try self.receive()
            } catch {
                return session.ending
                    ?? RollcallCloseInfo(
                        code: nil, reason: error.description, wasClean: false,
                        initiatedLocally: session.localClose != nil)
            }
            guard received else {
                // End of stream: the server closing after the close handshake, or dropping the connection without
                // one (or after our Close, when it did not answer).
                return session.ending
                    ?? RollcallCloseInfo(
                        code: session.localClose?.code, reason: session.localClose?.reason ?? "connection dropped",
                        wasClean: false, initiatedLocally: session.localClose != nil)
            }
            session.machine.receivedData(now: Self.milliseconds())
            if let info = self.processInbound(onText: onText, &session) {
                return info
            }
        }
    }

    /// Decodes buffered bytes and acts on them; returns how the connection ended when it failed. A completed close
    /// handshake is kept in `session.ending` until the server closes the TCP connection.
    private func processInbound(onText: (String) -> Void, _ session: inout Session) -> RollcallCloseInfo? {
        var events: [Inbound] = []
        let progress = self.inbound.withUnsafeMutableBytes { buffer in
            self.processor!.process(buffer) { event in
                switch event {
                case .text(let bytes): events.append(.text(String(decoding: bytes, as: UTF8.self)))
                case .binary: break
                case .ping(let bytes): events.append(.ping(Array(bytes)))
                case .pong(let bytes): events.append(.pong(Array(bytes)))
                case .close(let code, let reason): events.append(.close(code, String(decoding: reason, as: UTF8.self)))
                case .violation(let violation): events.append(.violation(violation))
                }
            }
        }
        self.inbound.removeFirst(progress.consumed)
        let deadline = MonotonicClock.now() + self.options.writeTimeout
        for event in events {
            let now = Self.milliseconds()
            switch event {
            case .text(let text):
                if session.machine.receivedMessage(now: now) { onText(text) }
            case .ping(let payload):
                payload.withUnsafeBytes { bytes in
                    let action = session.machine.receivedPing(bytes)
                    try? self.perform(action, until: deadline)
                }
            case .pong(let payload):
                _ = payload.withUnsafeBytes { session.machine.receivedPong($0) }
            case .close(let code, let reason):
                let initiatedLocally = session.localClose != nil
                try? self.perform(session.machine.receivedClose(code: code, now: now), until: deadline)
                session.ending = RollcallCloseInfo(
                    code: initiatedLocally ? (session.localClose?.code ?? code?.rawValue) : code?.rawValue,
                    reason: reason, wasClean: true, initiatedLocally: initiatedLocally)
            case .violation(let violation):
                try? self.perform(session.machine.receivedViolation(violation, now: now), until: deadline)
                return RollcallCloseInfo(
                    code: violation.closeCode.rawValue, reason: violation.description,
                    wasClean: false, initiatedLocally: true)
            }
        }
        return nil
    }

    /// Writes the frame an action of the session state machine calls for, masked with a fresh key.
    private func perform(_ action: WebSocketSessionStateMachine.Action, until deadline: Double) throws(RollcallError) {
        let key = WebSocketMaskingKey(word: UInt32.random(in: .min ... .max))
        let frame: WebSocketOutboundFrame
        switch action {
        case .doNothing, .closeSocket:
            return
        case .sendPong(let payload):
            frame = WebSocketFrameEncoder.encode(opcode: .pong, payload: payload, maskingKey: key)
        case .sendPing:
            frame = WebSocketFrameEncoder.encode(
                opcode: .ping, payload: UnsafeRawBufferPointer(start: nil, count: 0), maskingKey: key)
        case .sendClose(let code, let reason):
            frame = WebSocketFrameEncoder.encodeClose(code: code, reason: reason, maskingKey: key)
        }
        try self.writeAll(frame.bytes, until: deadline)
    }
}

#endif
