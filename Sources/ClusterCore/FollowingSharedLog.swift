import Rooms

/// A shared log whose rooms a `SharedLogFollower` follows (the Redis log, and the in-memory log of tests): its
/// delegate, its log of what goes wrong and its counters are the follower's.
public protocol FollowingSharedLog: SharedLogService {
    /// The follower of this node's rooms.
    var follower: SharedLogFollower { get }
}

extension FollowingSharedLog {
    /// Told what was loaded and delivered (the gateway registers itself); held weakly.
    public var delegate: (any SharedRoomLogDelegate)? {
        get { self.follower.delegate }
        set { self.follower.delegate = newValue }
    }

    /// Logs what goes wrong (the store unreachable, a room reloaded); none by default.
    public var log: ((String) -> Void)? {
        get { self.follower.log }
        set { self.follower.log = newValue }
    }

    /// Counters for metrics and tests.
    public var statistics: SharedLogStatistics { self.follower.statistics }
}
