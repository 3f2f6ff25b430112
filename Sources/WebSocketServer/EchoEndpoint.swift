import WebSocketCore

/// Sends every message back to its sender: the endpoint the conformance suite and the load generator use.
public final class EchoEndpoint: WebSocketEndpoint {
    public init() {}

    public func connection(_ connection: WebSocketConnection, didReceive message: WebSocketMessage) {
        switch message {
        case .text(let bytes): connection.send(opcode: .text, payload: bytes)
        case .binary(let bytes): connection.send(opcode: .binary, payload: bytes)
        }
    }
}
