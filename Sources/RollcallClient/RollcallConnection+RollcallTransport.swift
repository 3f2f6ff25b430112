// The Linux transport: EventIO's sockets and OpenSSL; Apple platforms supply a RollcallTransport of their own.
#if canImport(EventIO)

import Foundation

extension RollcallConnection: RollcallTransport {
    /// Opens and runs the connection on a thread of its own (`rollcall-connection`), which reports every event.
    ///
    /// - Parameters:
    ///   - handler: receives `.opened`, each `.text`, then `.closed` (or `.failed` when opening fails).
    public func start(_ handler: @escaping @Sendable (RollcallTransportEvent) -> Void) {
        let thread = Thread { [self] in
            do throws(RollcallError) {
                try self.open()
            } catch {
                self.finish()
                handler(.failed(error))
                return
            }
            handler(.opened)
            let info = self.run(onText: { handler(.text($0)) })
            handler(.closed(info))
        }
        thread.name = "rollcall-connection"
        thread.start()
    }
}

extension RollcallClientConfiguration {
    /// The Linux transport: a `RollcallConnection` with `connection`'s settings and the request's header fields.
    func socketTransport(_ request: RollcallTransportRequest) -> any RollcallTransport {
        var options = self.connection
        options.extraHeaders += request.headers
        return RollcallConnection(endpoint: request.endpoint, options: options)
    }
}

#endif
