import Synchronization

/// Work handed to an event loop by other threads: a lock-free queue with many producers and one consumer.
///
/// This is Dmitry Vyukov's intrusive multi-producer single-consumer queue. A producer links its node in with one
/// atomic exchange of the head and one store, so producers never wait for each other or for the consumer; the
/// consumer (the loop's thread) takes nodes from the tail in the order they were linked. Between a producer's exchange
/// and its store the queue is briefly inconsistent: the consumer then sees no next node although one is coming, and
/// `pop` says so (`.inconsistent`) so the loop can look again on its next iteration instead of waiting.
final class TaskQueue: @unchecked Sendable {
    /// One queued task; the stub node carries none.
    private final class Node {
        var task: (() -> Void)?
        let next = Atomic<Unmanaged<Node>?>(nil)

        init(_ task: (() -> Void)?) {
            self.task = task
        }
    }

    /// What `pop` found.
    enum PopResult {
        /// The oldest task, removed from the queue.
        case task(() -> Void)
        /// Nothing is queued.
        case empty
        /// A producer is linking a task in right now: look again soon.
        case inconsistent
    }

    /// Where producers link new nodes; holds one reference to the newest node.
    private let head: Atomic<Unmanaged<Node>>
    /// The oldest node, owned by the consumer; the queue holds a reference to every node from here to the head.
    private var tail: Unmanaged<Node>
    private let stub: Unmanaged<Node>

    init() {
        let stub = Unmanaged.passRetained(Node(nil))
        self.stub = stub
        self.head = Atomic(stub)
        self.tail = stub
    }

    deinit {
        // No producer is left: every queued task is dropped, then the stub.
        while case .task = self.pop() {}
        self.stub.release()
    }

    /// Adds a task. Safe to call from any thread.
    func push(_ task: @escaping () -> Void) {
        self.link(Unmanaged.passRetained(Node(task)))
    }

    private func link(_ node: Unmanaged<Node>) {
        node.takeUnretainedValue().next.store(nil, ordering: .relaxed)
        let previous = self.head.exchange(node, ordering: .acquiringAndReleasing)
        previous.takeUnretainedValue().next.store(node, ordering: .releasing)
    }

    /// Removes the oldest task. Call on the consumer's thread only.
    func pop() -> PopResult {
        var tail = self.tail
        var next = tail.takeUnretainedValue().next.load(ordering: .acquiring)
        if tail.toOpaque() == self.stub.toOpaque() {
            guard let first = next else { return .empty }
            self.tail = first
            tail = first
            next = first.takeUnretainedValue().next.load(ordering: .acquiring)
        }
        if let next {
            self.tail = next
            return .task(Self.take(tail))
        }
        // `tail` is the last node linked, unless a producer has just exchanged the head and not yet linked.
        guard tail.toOpaque() == self.head.load(ordering: .acquiring).toOpaque() else { return .inconsistent }
        // Put the stub behind it, so that `tail` can leave the queue.
        self.link(self.stub)
        guard let after = tail.takeUnretainedValue().next.load(ordering: .acquiring) else { return .inconsistent }
        self.tail = after
        return .task(Self.take(tail))
    }

    /// The task of a node that has left the queue; the queue's reference to the node is given up.
    private static func take(_ node: Unmanaged<Node>) -> () -> Void {
        let value = node.takeRetainedValue()
        let task = value.task!
        value.task = nil
        return task
    }
}
