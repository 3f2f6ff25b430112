import EventIO
import RollcallServer
import Rooms
import Storage
import WebSocketDeflate
import WebSocketServer

/// One configuration key: its name, documentation and how it is read into the server configuration.
struct Setting {
    let key: String
    let help: String
    let read: (RollcallConfiguration) -> String
    let apply: (inout RollcallConfiguration, String) throws(ConfigError) -> Void
}

/// Every configuration key the gateway understands, in one table: the file, `ROLLCALL_*` environment variables and
/// `--set key=value` flags all go through it, and `check-config` prints it.
enum Settings {
    static let all: [Setting] = [
        list("server.listen", "plain ws:// listen addresses, comma-separated (IPv6 in brackets)", \.server.listen),
        integer("server.event_loops", "event loop threads; 0 = one per core", \.server.eventLoopCount, 0...1024),
        integer(
            "server.max_connections", "open connections accepted in total", \.server.maximumConnections, 1...10_000_000),
        integer(
            "server.max_connections_per_ip", "open connections one client IP may hold; more are closed at once",
            \.server.maximumConnectionsPerAddress, 1...10_000_000),
        integer(
            "server.max_pending_handshakes", "connections in their TLS/HTTP handshake at once; newer ones are closed",
            \.server.maximumPendingHandshakes, 1...10_000_000),
        boolean("server.echo", "serve the echo endpoint (conformance and load tests)", \.server.echoEnabled),
        path("server.echo_path", "path of the echo endpoint", \.server.echoPath),

        list(
            "tls.listen", "wss:// listen addresses, comma-separated; needs certificate and private_key",
            \.server.tlsListen),
        optionalText("tls.certificate", "PEM certificate chain file", \.server.tlsCertificatePath),
        optionalText("tls.private_key", "PEM private key file", \.server.tlsPrivateKeyPath),

        integer(
            "timeouts.handshake_ms", "time to finish the TLS and HTTP handshakes (ms)",
            \.server.handshakeTimeoutMilliseconds, 1...3_600_000),
        integer(
            "timeouts.ping_interval_ms", "send a ping after this long without input (ms); 0 = never",
            \.server.pingIntervalMilliseconds, 0...86_400_000),
        integer(
            "timeouts.pong_timeout_ms", "close when nothing arrives this long after a ping (ms)",
            \.server.pongTimeoutMilliseconds, 1...86_400_000),
        integer(
            "timeouts.idle_ms", "close with 1001 after this long without a message (ms); 0 = never",
            \.server.idleTimeoutMilliseconds, 0...86_400_000),
        integer(
            "timeouts.close_ms", "wait this long for the peer's Close frame (ms)",
            \.server.closeTimeoutMilliseconds, 1...600_000),
        integer(
            "timeouts.shutdown_grace_ms", "on SIGTERM/SIGINT, wait this long for clients to close (ms)",
            \.server.shutdownGracePeriodMilliseconds, 0...600_000),
        integer(
            "timeouts.drain_delay_ms", "on SIGTERM/SIGINT, /readyz answers 503 this long before listeners close (ms)",
            \.drainDelayMilliseconds, 0...600_000),

        integer(
            "limits.max_request_line_bytes", "longest HTTP request line (414 beyond)",
            \.server.httpLimits.maximumRequestLineLength, 64...65_536),
        integer(
            "limits.max_header_bytes", "largest HTTP request head (431 beyond)",
            \.server.httpLimits.maximumHeadSize, 256...1_048_576),
        integer(
            "limits.max_header_count", "most HTTP header fields (431 beyond)",
            \.server.httpLimits.maximumHeaderCount, 8...1024),
        integer(
            "limits.max_http_body_bytes", "largest plain HTTP request body, Content-Length (413 beyond)",
            \.server.maximumHTTPBodySize, 0...67_108_864),
        integer(
            "limits.max_frame_bytes", "largest frame payload (close 1009 beyond)",
            \.server.messageLimits.maximumFrameSize, 125...1_073_741_824),
        integer(
            "limits.max_message_bytes", "largest message after decompression (close 1009 beyond)",
            \.server.messageLimits.maximumMessageSize, 125...1_073_741_824),
        integer(
            "limits.max_fragments", "most frames in one message (close 1008 beyond)",
            \.server.messageLimits.maximumFragmentsPerMessage, 1...10_000_000),
        integer(
            "limits.write_queue_high_watermark_bytes", "a connection stops being writable above this",
            \.server.writeQueueHighWatermark, 1...1_073_741_824),
        integer(
            "limits.write_queue_low_watermark_bytes", "and becomes writable again below this",
            \.server.writeQueueLowWatermark, 0...1_073_741_824),
        integer(
            "limits.write_queue_limit_bytes", "a client that lets this much pile up is closed with 1008",
            \.server.writeQueueLimit, 1...4_294_967_296),
        integer(
            "limits.max_messages_per_second",
            "messages and control frames per connection per second, on average "
                + "(close 1008 beyond); 0 = no limit", \.server.maximumMessagesPerSecond, 0...1_000_000),
        integer(
            "limits.message_burst", "messages a connection may send at once above the average rate",
            \.server.messageBurst, 1...10_000_000),

        list(
            "websocket.allowed_origins", "Origin values allowed to upgrade (403 otherwise); empty = any",
            \.server.allowedOrigins),
        list("websocket.subprotocols", "subprotocols offered, in preference order", \.server.subprotocols),

        path("rooms.path", "WebSocket path of the rooms protocol", \.gatewayPath),
        integer(
            "rooms.threads",
            "rooms threads, rooms spread over them by a hash of their id, each committing its rooms to the store"
                + "; above 1 not with cluster.redis_url",
            \.roomThreads, 1...64),
        boolean("dashboard.enabled", "serve the live dashboard page at /dashboard", \.dashboardEnabled),
        integer("rooms.capacity", "seats for participants and viewers per room", \.rooms.roomCapacity, 1...1_000_000),
        integer(
            "rooms.reserved_seats", "extra seats above capacity for admins, moderators and bots",
            \.rooms.reservedSeats, 0...100_000),
        integer64(
            "rooms.reconnect_grace_ms", "a dropped participant is 'reconnecting' this long before leaving (ms)",
            \.rooms.reconnectGraceMilliseconds, 0...3_600_000),
        integer64(
            "rooms.auth_timeout_ms", "a socket must authenticate within this time (ms)",
            \.rooms.authenticationTimeoutMilliseconds, 100...600_000),
        integer(
            "rooms.max_rooms_per_connection", "rooms one connection may join or watch at once",
            \.rooms.maximumRoomsPerSession, 1...10_000),
        integer(
            "rooms.max_subscribers", "participants and observers one room may have (ERR_ROOM_FULL beyond)",
            \.rooms.maximumSubscribersPerRoom, 1...10_000_000),
        integer(
            "rooms.max_connections_per_user", "connections one user (sub) may have open (4010 beyond)",
            \.rooms.maximumConnectionsPerUser, 1...100_000),
        integer(
            "rooms.max_subscriptions_per_user",
            "one user's subscriptions in one room (ERR_TOO_MANY_SUBSCRIPTIONS beyond)",
            \.rooms.maximumSubscriptionsPerUserPerRoom, 1...10_000),
        integer64(
            "rooms.waiting_max_ms",
            "the longest a user waits in a waiting room before its join is refused (ERR_WAIT_EXPIRED) (ms)",
            \.rooms.maximumWaitMilliseconds, 1000...86_400_000),
        integer(
            "rooms.waiting_max_users", "users one room's waiting room holds (ERR_WAITING_ROOM_FULL beyond)",
            \.rooms.maximumWaitingPerRoom, 1...100_000),
        integer(
            "rooms.history_max_events", "events kept per room for history and resume",
            \.rooms.history.maximumEntries, 0...10_000_000),
        integer64(
            "rooms.history_max_age_ms", "events older than this are dropped from the history (ms)",
            \.rooms.history.maximumAgeMilliseconds, 0...2_592_000_000),
        integer64(
            "rooms.patch_window_ms", "roster changes are batched this long before patches go out (ms); 0 = at once",
            \.rooms.patchWindowMilliseconds, 0...10_000),
        boolean(
            "rooms.immediate_leaves", "leaves, removals and moderation skip the batching window",
            \.rooms.immediateLeaves),
        Setting(
            key: "rooms.speaker_rule",
            help: "how the shown active speaker follows reports: stable (after speaker_stable_ms) or hold",
            read: { $0.rooms.speakerRuleKind.rawValue }
        ) { configuration, text throws(ConfigError) in
            guard let kind = SpeakerRuleKind(rawValue: text.lowercased()) else {
                throw ConfigError("rooms.speaker_rule: '\(text)' is not stable or hold")
            }
            configuration.rooms.speakerRuleKind = kind
        },
        integer64(
            "rooms.speaker_stable_ms",
            "stable rule: a new speaker (or silence) is shown once reports held this long (ms)",
            \.rooms.speakerStableMilliseconds, 0...60_000),
        integer64(
            "rooms.speaker_hold_ms", "hold rule: the active speaker shown changes at most this often (ms)",
            \.rooms.speakerHoldMilliseconds, 0...60_000),
        integer64(
            "rooms.slow_subscriber_timeout_ms", "a client that does not read for this long is closed with 4008 (ms)",
            \.rooms.slowSubscriberTimeoutMilliseconds, 100...3_600_000),
        integer("rooms.max_text_bytes", "longest name, reason or meeting text", \.rooms.maximumTextLength, 16...65_536),
        integer(
            "rooms.max_signal_bytes", "largest data of an ephemeral signal (ERR_TOO_LARGE beyond)",
            \.rooms.maximumSignalBytes, 16...65_536),
        integer(
            "rooms.signals_per_second",
            "ephemeral signals one user may send to one room per second (ERR_RATE_LIMITED beyond)",
            \.rooms.signalsPerSecond, 1...1000),

        list(
            "auth.keys", "HS256 keys as kid:secret (or a bare secret), comma-separated; the first signs tokens",
            \.auth.keys),
        optionalText("auth.issuer", "required iss claim; empty = not checked", \.auth.issuer),
        optionalText("auth.audience", "required aud claim; empty = not checked", \.auth.audience),
        integer("auth.leeway_seconds", "clock leeway for exp, nbf and iat (s)", \.auth.leewaySeconds, 0...3600),
        boolean(
            "auth.allow_development_key",
            "let the development key of config/rollcall.conf sign tokens beyond loopback listeners (a lab network)",
            \.auth.allowsDevelopmentKeyBeyondLoopback),

        list(
            "api.keys", "server API keys as name:secret, comma-separated (secret >= 16 bytes); empty = API off",
            \.api.keys),

        Setting(
            key: "log.level", help: "least severe log level written: debug, info, warn or error",
            read: { $0.log.level.name }
        ) { configuration, text throws(ConfigError) in
            guard let level = GatewayLogger.Level.allCases.first(where: { $0.name == text.lowercased() }) else {
                throw ConfigError("log.level: '\(text)' is not debug, info, warn or error")
            }
            configuration.log.level = level
        },

        text(
            "cluster.redis_url",
            "redis://[:password@]host[:port][/db], a primary watched by Sentinels"
                + " redis-sentinel://[:password@]host[:port][,host[:port]...]/primary-name[/db],"
                + " or a Redis Cluster redis-cluster://[:password@]host:port[,host:port...]"
                + ", shared by every node; empty = single process",
            \.cluster.redisURL, allowEmpty: true),
        text(
            "cluster.key_prefix", "prefix of the cluster's Redis keys and channels", \.cluster.keyPrefix,
            allowEmpty: false),
        text(
            "cluster.node_id", "this node's id in the cluster; empty = random at each start", \.cluster.nodeID,
            allowEmpty: true),
        integer64(
            "cluster.lease_ms", "a node that has not renewed its lease this long is dead (ms)",
            \.cluster.leaseMilliseconds, 300...600_000),
        integer64(
            "cluster.room_expiry_ms", "shared records of a room nobody uses expire after this long (ms); 0 = never",
            \.cluster.roomExpiryMilliseconds, 0...31_536_000_000),
        integer(
            "cluster.checkpoint_interval", "a room checkpoint is written every this many events",
            \.cluster.checkpointInterval, 1...1_000_000),
        integer64(
            "cluster.call_timeout_ms", "a Redis call that takes longer fails with ERR_UNAVAILABLE (ms)",
            \.cluster.callTimeoutMilliseconds, 10...60_000),
        integer(
            "cluster.replica_acks",
            "replicas that must confirm a room change before it is acknowledged (Redis WAIT); 0 = the primary's word",
            \.cluster.replicaAcks, 0...16),
        integer64(
            "cluster.replica_ack_timeout_ms",
            "how long a change waits for cluster.replica_acks replicas; fewer answer ERR_UNAVAILABLE (ms)",
            \.cluster.replicaAckTimeoutMilliseconds, 1...60_000),
        integer64(
            "cluster.probe_interval_ms",
            "a probe through the node's own subscription this often; one lost makes /readyz 503 (ms); 0 = off",
            \.cluster.probeIntervalMilliseconds, 0...600_000),

        text(
            "storage.path", "SQLite file of the embedded store (single process); empty = rooms in memory only",
            \.storage.path, allowEmpty: true),
        Setting(
            key: "storage.sync", help: "how commits reach the disk: off, normal or full (docs/OPERATIONS.md)",
            read: { $0.storage.sync.rawValue }
        ) { configuration, text throws(ConfigError) in
            guard let sync = StorageSync(rawValue: text.lowercased()) else {
                throw ConfigError("storage.sync: '\(text)' is not off, normal or full")
            }
            configuration.storage.sync = sync
        },
        integer(
            "storage.checkpoint_interval", "a room checkpoint is stored every this many events",
            \.storage.checkpointInterval, 1...1_000_000),
        integer(
            "storage.roster_max_events", "roster events kept per room in the store",
            \.storage.rosterRetention.maximumEntries, 0...100_000_000),
        integer64(
            "storage.roster_max_age_ms", "roster events older than this leave the store (ms)",
            \.storage.rosterRetention.maximumAgeMilliseconds, 0...31_536_000_000),
        integer(
            "storage.meeting_max_events", "meeting messages kept per room in the store",
            \.storage.meetingRetention.maximumEntries, 0...100_000_000),
        integer64(
            "storage.meeting_max_age_ms", "meeting messages older than this leave the store (ms)",
            \.storage.meetingRetention.maximumAgeMilliseconds, 0...315_360_000_000),
        integer(
            "storage.moderation_max_events", "moderation events kept per room in the store (audit)",
            \.storage.moderationRetention.maximumEntries, 0...100_000_000),
        integer64(
            "storage.moderation_max_age_ms", "moderation events older than this leave the store (ms)",
            \.storage.moderationRetention.maximumAgeMilliseconds, 0...315_360_000_000),

        optionalText(
            "webhooks.ca_file", "PEM certificates https:// receivers must chain to; empty = the system's trust store",
            \.webhooks.caFile),
        integer("webhooks.max_batch", "most events in one delivery", \.webhooks.maximumBatch, 1...10_000),
        integer64(
            "webhooks.timeout_ms", "time for one delivery, connect to answer (ms)", \.webhooks.timeoutMilliseconds,
            100...600_000),
        integer64(
            "webhooks.retry_base_ms", "first retry waits up to this long, doubling per failure (ms)",
            \.webhooks.retryBaseMilliseconds, 1...600_000),
        integer64(
            "webhooks.retry_max_ms", "longest wait between two tries (ms)", \.webhooks.retryMaximumMilliseconds,
            1...3_600_000),
        integer64(
            "webhooks.dead_letter_after_ms", "a delivery failing this long is given up as dead letters (ms)",
            \.webhooks.deadLetterAfterMilliseconds, 1000...2_592_000_000),

        boolean("compression.enabled", "accept permessage-deflate offers", \.server.compression.isEnabled),
        boolean(
            "compression.server_no_context_takeover", "reset the server's compressor after every message",
            \.server.compression.serverNoContextTakeover),
        boolean(
            "compression.client_no_context_takeover", "ask clients to reset theirs after every message",
            \.server.compression.clientNoContextTakeover),
        integer(
            "compression.server_max_window_bits", "server compressor window, log2 bytes",
            \.server.compression.serverMaxWindowBits, 9...15),
        integer(
            "compression.client_max_window_bits", "largest client window accepted, log2 bytes",
            \.server.compression.clientMaxWindowBits, 8...15),
        integer(
            "compression.level", "zlib level, 0 (none) to 9 (smallest)", \.server.compression.compressionLevel, 0...9),
        integer("compression.memory_level", "zlib memory level, 1 to 9", \.server.compression.memoryLevel, 1...9),
        integer(
            "compression.min_message_bytes", "send shorter messages uncompressed",
            \.server.compression.minimumCompressedMessageSize, 0...1_073_741_824),
    ]

    /// The setting of `key`: one of `all`, or a key of a webhook endpoint's block (`webhooks.endpoint.NAME.url`).
    ///
    /// - Throws: `ConfigError` for a malformed key of an endpoint's block.
    static func named(_ key: String) throws(ConfigError) -> Setting? {
        if let setting = all.first(where: { $0.key == key }) { return setting }
        return try Self.endpointSetting(key)
    }

    /// Cross-field checks, after every source has been applied.
    static func validate(_ whole: RollcallConfiguration) throws(ConfigError) {
        let configuration = whole.server
        if configuration.listen.isEmpty && configuration.tlsListen.isEmpty {
            throw ConfigError("server.listen: no listen address (and no tls.listen either)")
        }
        if !configuration.tlsListen.isEmpty
            && (configuration.tlsCertificatePath == nil || configuration.tlsPrivateKeyPath == nil)
        {
            throw ConfigError("tls.listen: needs tls.certificate and tls.private_key")
        }
        if configuration.writeQueueLowWatermark > configuration.writeQueueHighWatermark {
            throw ConfigError("limits.write_queue_low_watermark_bytes: must not exceed the high watermark")
        }
        if configuration.writeQueueHighWatermark > configuration.writeQueueLimit {
            throw ConfigError("limits.write_queue_high_watermark_bytes: must not exceed write_queue_limit_bytes")
        }
        do {
            try configuration.compression.validate()
        } catch {
            throw ConfigError("compression: \(error.description)")
        }
        if whole.auth.keys.isEmpty {
            throw ConfigError("auth.keys: no token key configured (set auth.keys = kid:secret)")
        }
        for key in whole.auth.keys where key.hasSuffix(":") || key.isEmpty {
            throw ConfigError("auth.keys: '\(key.prefix(8))…' has an empty secret")
        }
        _ = try whole.api.parsedKeys()
        _ = try whole.clusterConfiguration()
        _ = try whole.storageConfiguration()
        _ = try whole.webhookConfiguration()
        try Self.validateRoomThreads(whole)
        if configuration.messageLimits.maximumFrameSize > configuration.messageLimits.maximumMessageSize {
            throw ConfigError("limits.max_frame_bytes: must not exceed limits.max_message_bytes")
        }
    }

    /// Several rooms threads work with rooms in memory and with the store and webhooks (each thread commits its
    /// rooms through a connection of its own); a cluster node's shared log runs on one rooms thread.
    private static func validateRoomThreads(_ whole: RollcallConfiguration) throws(ConfigError) {
        guard whole.roomThreads > 1, !whole.cluster.redisURL.isEmpty else { return }
        throw ConfigError(
            "rooms.threads: \(whole.roomThreads) threads are for a single process and cannot be combined with "
                + "cluster.redis_url; set rooms.threads = 1 or leave cluster.redis_url empty")
    }
}
