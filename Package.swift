// swift-tools-version:6.0
import PackageDescription

// The per-message path of the event loops and connections touches loop-confined state only, with re-entrancy
// handled explicitly (state is moved out while a callback may run). Release builds of those modules skip the
// dynamic exclusivity checks, which cost about a sixth of the instructions per echoed message; debug builds (and
// so the tests) keep them.
let hotPathSettings: [SwiftSetting] = [.unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))]

let package = Package(
    name: "Rollcall",
    // The Swift client's platforms: the first releases with the Observation framework (RollcallRoomModel) and
    // Foundation's NSLock.withLock; URLSessionWebSocketTask, the transport there, is older. The gateway itself runs
    // on Linux.
    platforms: [.macOS(.v14), .iOS(.v17), .tvOS(.v17), .watchOS(.v10), .visionOS(.v1)],
    products: [
        .executable(name: "rollcall", targets: ["rollcall"]),
        .library(name: "WebSocketCore", targets: ["WebSocketCore"]),
        // The Swift client for apps, with the JSON values its API takes and returns.
        .library(name: "RollcallClient", targets: ["RollcallClient", "JSONCoding"]),
    ],
    targets: [
        // Thin C shims over OpenSSL 3 and zlib: macros the importer cannot see, nothing else.
        .target(
            name: "CWebSocket",
            path: "CWebSocket",
            linkerSettings: [.linkedLibrary("ssl"), .linkedLibrary("crypto"), .linkedLibrary("z")]
        ),
        // A thin C shim over Debian's libsqlite3: SQLITE_TRANSIENT, a macro the importer cannot see.
        .target(name: "CSQLite", path: "CSQLite", linkerSettings: [.linkedLibrary("sqlite3")]),
        // HTTP/1.1 without I/O: incremental request and response head parsers, statuses and responses,
        // percent-encoding.
        .target(name: "HTTPCore"),
        // RFC 6455 without I/O: both sides of the handshake, framing, masking, UTF-8, close codes, the inbound frame
        // processor and the session state machine shared by the server and the clients.
        .target(name: "WebSocketCore", dependencies: ["HTTPCore"]),
        // RFC 7692 permessage-deflate over zlib: offer negotiation, per-message inflate and deflate.
        .target(name: "WebSocketDeflate", dependencies: ["HTTPCore", "WebSocketCore", "CWebSocket"]),
        // epoll event loops, sockets, timers, TLS through OpenSSL, bounded write queues.
        .target(name: "EventIO", dependencies: ["CWebSocket"], swiftSettings: hotPathSettings),
        // Listeners and connections: HTTP upgrade, WebSocket sessions over EventIO, routes, the echo endpoint.
        .target(
            name: "WebSocketServer",
            dependencies: ["HTTPCore", "WebSocketCore", "WebSocketDeflate", "EventIO"],
            swiftSettings: hotPathSettings
        ),
        // JSON values: a bounded parser and a deterministic writer, for the wire protocol and tokens.
        .target(name: "JSONCoding"),
        // JWT (RFC 7519) HS256 verification and signing through OpenSSL HMAC, with key rotation by kid.
        .target(name: "TokenAuth", dependencies: ["JSONCoding", "CWebSocket"]),
        // Rooms, roster, events, auth, moderation and history: a deterministic core behind a transport protocol.
        .target(name: "Rooms", dependencies: ["JSONCoding", "TokenAuth"]),
        // The embedded store of a single process: rooms' logs, checkpoints and webhook cursors in SQLite (WAL).
        .target(name: "Storage", dependencies: ["CSQLite", "Rooms", "JSONCoding"]),
        // An HTTP/1.1 client of one origin on an EventIO loop, over EventIO's stream connection: kept connections,
        // TLS, timeouts, bounded answers; the webhooks and `rollcall ctl` use it.
        .target(name: "HTTPClient", dependencies: ["EventIO", "HTTPCore"]),
        // Signed, ordered webhook deliveries read from the store's log, with cursors, retries and dead letters.
        .target(
            name: "Webhooks",
            dependencies: ["Storage", "Rooms", "JSONCoding", "TokenAuth", "EventIO", "HTTPCore", "HTTPClient"]
        ),
        // The browser client and the dashboard built on it (TypeScript in clients/js and clients/dashboard, compiled
        // output committed), embedded in the binary so the gateway serves them at /client/ and /dashboard.
        .target(
            name: "RollcallWebClient",
            path: "clients",
            exclude: [
                "python", "js/src", "js/test", "js/examples", "js/tsconfig.json", "js/package.json", "dashboard/src",
                "dashboard/tsconfig.json", "dashboard/package.json",
            ],
            sources: ["js/swift"],
            resources: [
                .embedInCode("js/dist"), .embedInCode("dashboard/dist"), .embedInCode("dashboard/dashboard.html"),
            ]
        ),
        // The server API's OpenAPI description (api/openapi.json), embedded so the gateway serves it.
        .target(name: "RollcallAPIDescription", path: "api", resources: [.embedInCode("openapi.json")]),
        // Connects the gateway to WebSocket connections on the server's event loops.
        .target(
            name: "RollcallServer",
            dependencies: [
                "Rooms", "WebSocketServer", "EventIO", "HTTPCore", "WebSocketCore", "WebSocketDeflate", "TokenAuth",
                "RollcallWebClient", "Storage", "Webhooks", "RollcallAPIDescription",
            ]
        ),
        // The Swift client library: a WebSocket client on the same protocol core, auth, subscriptions, and a live
        // roster store that applies snapshots and patches.
        // Only its Linux transport (RollcallConnection) needs EventIO and zlib; on other platforms an app supplies a
        // RollcallTransport (docs/CLIENT.md).
        .target(
            name: "RollcallClient",
            dependencies: [
                "JSONCoding", "HTTPCore", "WebSocketCore",
                .target(name: "WebSocketDeflate", condition: .when(platforms: [.linux])),
                .target(name: "EventIO", condition: .when(platforms: [.linux])),
            ],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // The load generator: client connections on EventIO loops, echo, fanout, roster, idle and connect scenarios.
        .target(
            name: "RollcallBench",
            dependencies: [
                "EventIO", "HTTPCore", "WebSocketCore", "WebSocketDeflate", "TokenAuth", "JSONCoding", "RollcallClient",
                "Rooms",
            ]
        ),
        // The command line: subcommands and configuration loading (file, environment, flags).
        .target(
            name: "RollcallCLI",
            dependencies: [
                "WebSocketServer", "WebSocketDeflate", "EventIO", "HTTPCore", "HTTPClient", "Rooms", "RollcallServer",
                "TokenAuth", "RollcallBench", "JSONCoding", "Cluster", "ClusterCore", "Redis", "Storage", "Webhooks",
            ]
        ),
        // A Redis client: the RESP wire format (a bounded incremental parser and an encoder) and a client on an
        // EventIO loop (pipelining, deadlines, reconnects with backoff, pub/sub). Knows nothing of rooms.
        .target(name: "Redis", dependencies: ["EventIO", "HTTPCore"]),
        // Cluster mode without I/O: how a node follows a shared room log (entries in order, gaps, reloads, epochs,
        // checkpoints, leases), the shared records' forms and seat claims, and a room's entries rendered for webhooks;
        // used by the Redis adapter and by the in-memory shared log of RoomsTesting.
        .target(name: "ClusterCore", dependencies: ["Rooms", "JSONCoding"]),
        // Cluster mode over Redis: the gateway's shared room log kept in it (streams, an atomic script for sequence
        // numbers, seats and node leases).
        .target(name: "Cluster", dependencies: ["ClusterCore", "Redis", "EventIO", "Rooms", "JSONCoding"]),
        .executableTarget(name: "rollcall", dependencies: ["RollcallCLI"]),
        // An in-memory transport, a manual clock and an in-memory shared log, so gateway scenarios (single process
        // and cluster) run without sockets or Redis.
        .target(name: "RoomsTesting", dependencies: ["Rooms", "ClusterCore", "JSONCoding"]),
        // A real redis-server for tests: started on a free loopback port in a temporary directory, stopped, killed
        // and restarted on demand; a scripted stand-in server, an event loop on a thread of its own, and a webhook
        // receiver (plain or TLS) whose answers a test scripts.
        .target(name: "ClusterTesting", dependencies: ["EventIO", "Redis"]),
        // Helpers shared by the test targets: a seeded random generator, the ways a byte stream is cut into reads
        // for the incremental parsers (frames, HTTP heads, RESP), sample HTTP heads fed to the parsers, and the
        // reader of the shared vectors.
        .target(name: "TestSupport", dependencies: ["HTTPCore", "JSONCoding"]),
        // Helpers for the tests against a live server: a blocking WebSocket client over a raw socket (plain or TLS),
        // a server started on a loopback port for one test, a temporary self-signed certificate, and a bystander
        // that keeps doing round trips while an attack runs.
        .target(
            name: "WebSocketTestSupport", dependencies: ["WebSocketServer", "WebSocketCore", "HTTPCore", "EventIO"]),
        .testTarget(
            name: "RoomsTests",
            dependencies: [
                "Rooms", "RoomsTesting", "ClusterCore", "TokenAuth", "JSONCoding", "RollcallClient", "TestSupport",
            ]
        ),
        .testTarget(
            name: "StorageTests",
            dependencies: [
                "Storage", "Webhooks", "HTTPClient", "Rooms", "RoomsTesting", "JSONCoding", "TokenAuth", "TestSupport",
                "EventIO",
            ]
        ),
        .testTarget(
            name: "WebhooksTests",
            dependencies: ["Webhooks", "HTTPClient", "Rooms", "RoomsTesting", "EventIO", "ClusterTesting", "Storage"]
        ),
        .testTarget(name: "RedisTests", dependencies: ["Redis", "ClusterTesting", "EventIO", "TestSupport"]),
        .testTarget(
            name: "ClusterTests",
            dependencies: [
                "Cluster", "ClusterCore", "Redis", "ClusterTesting", "EventIO", "Rooms", "RoomsTesting", "TokenAuth",
                "Webhooks", "HTTPClient", "JSONCoding",
            ]
        ),
        .testTarget(name: "JSONCodingTests", dependencies: ["JSONCoding", "TestSupport"]),
        .testTarget(name: "TokenAuthTests", dependencies: ["TokenAuth", "JSONCoding"]),
        .testTarget(name: "HTTPCoreTests", dependencies: ["HTTPCore", "TestSupport"]),
        .testTarget(name: "HTTPClientTests", dependencies: ["HTTPClient", "HTTPCore", "EventIO", "ClusterTesting"]),
        .testTarget(name: "WebSocketCoreTests", dependencies: ["WebSocketCore", "HTTPCore", "TestSupport"]),
        .testTarget(name: "WebSocketDeflateTests", dependencies: ["WebSocketDeflate", "WebSocketCore", "TestSupport"]),
        .testTarget(name: "EventIOTests", dependencies: ["EventIO", "ClusterTesting"]),
        .testTarget(
            name: "RollcallBenchTests",
            dependencies: [
                "RollcallBench", "WebSocketServer", "WebSocketCore", "WebSocketDeflate", "EventIO", "Rooms",
                "RollcallServer", "TokenAuth",
            ]
        ),
        .testTarget(
            name: "RollcallClientTests",
            dependencies: [
                "RollcallClient", "WebSocketServer", "RollcallServer", "Rooms", "TokenAuth", "EventIO",
                "JSONCoding", "TestSupport",
            ]
        ),
        .testTarget(
            name: "RollcallCLITests",
            dependencies: [
                "RollcallCLI", "RollcallServer", "Rooms", "WebSocketServer", "EventIO", "HTTPCore", "HTTPClient",
                "TokenAuth", "JSONCoding", "Cluster", "Redis", "Storage",
            ]
        ),
        // The generic WebSocket server, live on loopback: echo, HTTP bodies, hostile frames, handshakes and input,
        // idle connections' memory.
        .testTarget(
            name: "WebSocketServerTests",
            dependencies: [
                "WebSocketServer", "HTTPCore", "WebSocketCore", "WebSocketDeflate", "EventIO", "WebSocketTestSupport",
            ]
        ),
        // The rooms layer served over the WebSocket server (RollcallServer): rooms threads, the store committer,
        // metrics, the embedded browser client's routes, hostile rooms traffic and compressed room messages live.
        .testTarget(
            name: "RollcallServerTests",
            dependencies: [
                "RollcallServer", "Rooms", "Storage", "TokenAuth", "JSONCoding", "EventIO", "WebSocketServer",
                "WebSocketDeflate", "RollcallWebClient", "WebSocketTestSupport", "Webhooks", "HTTPClient",
                "ClusterTesting",
            ]
        ),
    ],
    swiftLanguageModes: [.v5]
)
