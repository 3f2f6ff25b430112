import Testing

@testable import Redis

/// What routes a command in a Redis Cluster, without a server: key slots, hash tags, redirections, the slot map and
/// the `redis-cluster://` and `redis-sentinel://` URLs, and the replies that find a primary under Sentinel.
struct RedisClusterRoutingTests {
    @Test func theCRC16OfTheReferenceStringIsRedisClustersCheckValue() {
        #expect(RedisKeySlot.crc16(Array("123456789".utf8)) == 0x31C3)
        #expect(RedisKeySlot.slot(of: "123456789") == 12_739)
    }

    @Test(arguments: [
        // Slots as `CLUSTER KEYSLOT` of Redis 7 reports them.
        ("foo", 12_182), ("bar", 5_061), ("", 0), ("{user1000}.following", 3_443),
    ])
    func keysHashToTheSlotsRedisGivesThem(key: String, slot: Int) {
        #expect(RedisKeySlot.slot(of: key) == slot)
    }

    @Test func onlyTheFirstNonEmptyHashTagDecidesTheSlot() {
        let room = RedisKeySlot.slot(of: "room-7")
        #expect(RedisKeySlot.slot(of: "rollcall:room:{room-7}:log") == room)
        #expect(RedisKeySlot.slot(of: "rollcall:room:{room-7}:seq") == room)
        #expect(RedisKeySlot.slot(of: "x{room-7}y{other}") == room)
        // An empty tag does not count: the whole key hashes.
        #expect(RedisKeySlot.slot(of: "a{}b") == Int(RedisKeySlot.crc16(Array("a{}b".utf8)) & 0x3FFF))
        // No closing brace: the whole key hashes.
        #expect(RedisKeySlot.slot(of: "a{bc") == Int(RedisKeySlot.crc16(Array("a{bc".utf8)) & 0x3FFF))
        // The tag ends at the first closing brace after the first opening one.
        #expect(RedisKeySlot.slot(of: "{a}b}") == RedisKeySlot.slot(of: "a"))
        #expect(RedisKeySlot.slot(of: "{{a}}") == RedisKeySlot.slot(of: "{a"))
    }

    @Test func movedAndAskRepliesAreReadWithTheirSlotAndTarget() throws {
        let moved = try #require(RedisRedirection("MOVED 3999 127.0.0.1:6381"))
        #expect(moved.kind == .moved)
        #expect(moved.slot == 3_999)
        #expect(moved.target == RedisNodeAddress(host: "127.0.0.1", port: 6_381))
        let ask = try #require(RedisRedirection("ASK 12739 10.0.0.2:7000"))
        #expect(ask.kind == .ask)
        #expect(ask.slot == 12_739)
        #expect(ask.target.description == "10.0.0.2:7000")
        let ipv6 = try #require(RedisRedirection("MOVED 1 ::1:7001"))
        #expect(ipv6.target == RedisNodeAddress(host: "::1", port: 7_001))
        #expect(ipv6.target.description == "[::1]:7001")
    }

    @Test(arguments: [
        "ERR unknown command", "MOVED 3999", "MOVED x 127.0.0.1:6381", "MOVED 16384 127.0.0.1:6381",
        "ASK 1 127.0.0.1", "ASK 1 :6381", "MOVED 1 127.0.0.1:0", "TRYAGAIN Multiple keys request during rehashing",
        "MOVED 1 127.0.0.1:6381 extra",
    ])
    func otherErrorRepliesAreNotRedirections(message: String) {
        #expect(RedisRedirection(message) == nil)
    }

    private static func node(_ host: String, _ port: Int64) -> RESPValue {
        .array([.bulkString(Array(host.utf8)), .integer(port), .bulkString(Array("id".utf8))])
    }

    @Test func theSlotMapTakesEachRangesPrimaryAndTheAskedNodesHostForAnEmptyOne() throws {
        let reply = RESPValue.array([
            .array([.integer(0), .integer(5_460), Self.node("127.0.0.1", 7_000), Self.node("127.0.0.1", 7_003)]),
            .array([.integer(5_461), .integer(10_922), Self.node("", 7_001)]),
            .array([.integer(10_923), .integer(16_383), Self.node("127.0.0.1", 7_002)]),
        ])
        let asked = RedisNodeAddress(host: "127.0.0.9", port: 7_000)
        let map = try #require(RedisSlotMap(clusterSlots: reply, askedNode: asked))
        #expect(map.coversEverySlot)
        #expect(map.primaries.count == 3)
        #expect(map.primary(of: 0) == RedisNodeAddress(host: "127.0.0.1", port: 7_000))
        #expect(map.primary(of: 5_461) == RedisNodeAddress(host: "127.0.0.9", port: 7_001))
        #expect(map.primary(of: 12_739) == RedisNodeAddress(host: "127.0.0.1", port: 7_002))
        var moved = map
        moved.assign(12_739, to: RedisNodeAddress(host: "127.0.0.1", port: 7_000))
        #expect(moved.primary(of: 12_739)?.port == 7_000)
        #expect(moved.primary(of: 12_740)?.port == 7_002)
    }

    @Test func aSlotMapWithAHoleDoesNotCoverEverySlotAndAMalformedReplyIsNone() throws {
        let asked = RedisNodeAddress(host: "127.0.0.1", port: 7_000)
        let partial = try #require(
            RedisSlotMap(
                clusterSlots: .array([.array([.integer(0), .integer(100), Self.node("127.0.0.1", 7_000)])]),
                askedNode: asked))
        #expect(!partial.coversEverySlot)
        #expect(partial.primary(of: 101) == nil)
        #expect(RedisSlotMap(clusterSlots: .simpleString("OK"), askedNode: asked) == nil)
        #expect(
            RedisSlotMap(
                clusterSlots: .array([.array([.integer(5), .integer(2), Self.node("127.0.0.1", 7_000)])]),
                askedNode: asked) == nil)
    }

    @Test func aRedisClusterURLNamesSeedsWithSharedCredentials() throws {
        let deployment = try RedisDeployment(url: "redis-cluster://:s%40cret@127.0.0.1:7000,127.0.0.1:7001,[::1]")
        #expect(deployment.isCluster)
        #expect(
            deployment.clusterSeeds == [
                RedisNodeAddress(host: "127.0.0.1", port: 7_000), RedisNodeAddress(host: "127.0.0.1", port: 7_001),
                RedisNodeAddress(host: "::1", port: 6_379),
            ])
        #expect(deployment.configuration.password == "s@cret")
        #expect(deployment.configuration.port == 7_000)
        let single = try RedisDeployment(url: "redis://127.0.0.1:6390/2")
        #expect(!single.isCluster)
        #expect(single.configuration.database == 2)
    }

    @Test(arguments: ["redis-cluster://", "redis-cluster://127.0.0.1:7000,", "redis-cluster://127.0.0.1:7000/1"])
    func aRedisClusterURLWithoutNodesOrWithADatabaseIsRefused(url: String) {
        #expect(throws: RedisError.self) { try RedisDeployment(url: url) }
    }

    @Test func aSentinelURLNamesTheSentinelsAndThePrimaryWithThePrimarysCredentialsAndDatabase() throws {
        let deployment = try RedisDeployment(
            url: "redis-sentinel://:s%40cret@127.0.0.1:26380,10.0.0.2,[::1]:26381,[::2]/calls-primary/3")
        #expect(!deployment.isCluster)
        #expect(
            deployment.sentinel?.sentinels == [
                RedisNodeAddress(host: "127.0.0.1", port: 26_380), RedisNodeAddress(host: "10.0.0.2", port: 26_379),
                RedisNodeAddress(host: "::1", port: 26_381), RedisNodeAddress(host: "::2", port: 26_379),
            ])
        #expect(deployment.sentinel?.primaryName == "calls-primary")
        #expect(deployment.configuration.password == "s@cret")
        #expect(deployment.configuration.database == 3)
        #expect(try RedisDeployment(url: "redis-sentinel://127.0.0.1/mymaster").configuration.database == 0)
    }

    @Test(arguments: [
        "redis-sentinel://127.0.0.1:26379", "redis-sentinel://127.0.0.1:26379/", "redis-sentinel:///mymaster",
        "redis-sentinel://127.0.0.1,/mymaster", "redis-sentinel://127.0.0.1/mymaster/x",
        "redis-sentinel://127.0.0.1/mymaster/1/2", "redis-sentinel://redis.example/mymaster",
    ])
    func aSentinelURLWithoutSentinelsOrAPrimaryNameOrWithABadDatabaseIsRefused(url: String) {
        #expect(throws: RedisError.self) { try RedisDeployment(url: url) }
    }

    @Test func sentinelsAnswerWithThePrimarysAddressOrNothingAndRoleTellsAPrimaryFromAReplica() {
        #expect(
            RedisSentinelLocator.address(from: .array([.bulkString("127.0.0.1"), .bulkString("6380")]))
                == RedisNodeAddress(host: "127.0.0.1", port: 6_380))
        #expect(RedisSentinelLocator.address(from: .null) == nil)
        #expect(RedisSentinelLocator.address(from: .array(nil)) == nil)
        #expect(RedisSentinelLocator.address(from: .array([.bulkString("127.0.0.1"), .bulkString("0")])) == nil)
        #expect(RedisClient.refusalAsPrimary(.array([.bulkString("master"), .integer(0), .array([])])) == nil)
        #expect(
            RedisClient.refusalAsPrimary(.array([.bulkString("slave"), .bulkString("127.0.0.1"), .integer(6379)]))
                == "ROLE answered \"slave\", not \"master\"")
        #expect(RedisClient.refusalAsPrimary(.simpleString("OK")) != nil)
    }
}
