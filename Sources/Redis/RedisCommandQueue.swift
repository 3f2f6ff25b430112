/// The commands waiting for replies, oldest first, with a min-heap of their deadlines.
///
/// Replies complete commands strictly in order, so a heap entry whose sequence number is below the oldest waiting
/// command's belongs to a command already answered: it is dropped lazily when it reaches the top. Every entry is
/// pushed and popped once, so appending, completing and finding the earliest deadline cost O(log n) amortized,
/// whatever the mix of timeouts.
struct RedisCommandQueue {
    private struct Deadline: Comparable {
        var time: UInt64
        var sequence: UInt64

        static func < (lhs: Deadline, rhs: Deadline) -> Bool {
            (lhs.time, lhs.sequence) < (rhs.time, rhs.sequence)
        }
    }

    private var entries: [RedisPendingCommand] = []
    /// Where the oldest waiting command is in `entries`; the slots before it are spent.
    private var head = 0
    /// The sequence number of the oldest waiting command (of the next to be appended when none waits).
    private var headSequence: UInt64 = 0
    private var heap: [Deadline] = []

    /// How many commands wait for replies.
    var count: Int { self.entries.count - self.head }

    var isEmpty: Bool { self.head == self.entries.count }

    /// Adds a command behind the others.
    mutating func append(_ command: RedisPendingCommand) {
        let sequence = self.headSequence &+ UInt64(self.count)
        self.entries.append(command)
        self.pushDeadline(Deadline(time: command.deadline, sequence: sequence))
    }

    /// The oldest command, the one the next reply answers, left in place.
    var first: RedisPendingCommand? { self.head < self.entries.count ? self.entries[self.head] : nil }

    /// Takes the oldest command, the one the next reply answers.
    mutating func popFirst() -> RedisPendingCommand? {
        guard self.head < self.entries.count else { return nil }
        let command = self.entries[self.head]
        self.head += 1
        self.headSequence &+= 1
        if self.head == self.entries.count {
            self.entries.removeAll(keepingCapacity: self.entries.capacity <= 4096)
            self.head = 0
            self.heap.removeAll(keepingCapacity: self.heap.capacity <= 4096)
        } else if self.head >= 1024 && self.head * 2 >= self.entries.count {
            // Each compaction moves fewer entries than were popped since the last one: linear overall.
            self.entries.removeSubrange(0..<self.head)
            self.head = 0
        }
        return command
    }

    /// The earliest deadline of the waiting commands, nil when none waits.
    mutating func earliestDeadline() -> UInt64? {
        while let top = self.heap.first, top.sequence < self.headSequence {
            self.popDeadline()
        }
        if self.isEmpty {
            self.heap.removeAll(keepingCapacity: self.heap.capacity <= 4096)
            return nil
        }
        return self.heap.first?.time
    }

    /// Takes every waiting command, oldest first, leaving the queue empty.
    mutating func removeAll() -> [RedisPendingCommand] {
        let commands = Array(self.entries[self.head...])
        self.headSequence &+= UInt64(commands.count)
        self.entries = []
        self.head = 0
        self.heap = []
        return commands
    }

    private mutating func pushDeadline(_ deadline: Deadline) {
        self.heap.append(deadline)
        var child = self.heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard self.heap[child] < self.heap[parent] else { break }
            self.heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func popDeadline() {
        let last = self.heap.removeLast()
        guard !self.heap.isEmpty else { return }
        self.heap[0] = last
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < self.heap.count && self.heap[left] < self.heap[smallest] { smallest = left }
            if right < self.heap.count && self.heap[right] < self.heap[smallest] { smallest = right }
            if smallest == parent { break }
            self.heap.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
