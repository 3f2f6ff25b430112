import Foundation
import Synchronization
import Testing

@testable import EventIO

/// What the tasks of a test recorded, touched on the loop's thread only.
private final class Record: @unchecked Sendable {
    var entries: [(producer: Int, index: Int)] = []
}

/// Waits until `condition` holds or `seconds` pass; returns whether it held.
private func waitUntil(seconds: Double, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while !condition() {
        if Date() > deadline { return false }
        usleep(1_000)
    }
    return true
}

@Suite("Tasks handed to an event loop")
struct TaskQueueTests {
    @Test("The queue gives tasks back in the order they were pushed, then says it is empty")
    func queueIsFirstInFirstOut() {
        let queue = TaskQueue()
        #expect({ if case .empty = queue.pop() { return true } else { return false } }())
        var ran: [Int] = []
        for round in 0..<3 {
            // Each round empties the queue, so the stub goes behind the last node and comes round again.
            for index in 0..<(round + 1) { queue.push { ran.append(round * 10 + index) } }
            while case .task(let task) = queue.pop() { task() }
        }
        #expect(ran == [0, 10, 11, 20, 21, 22])
        #expect({ if case .empty = queue.pop() { return true } else { return false } }())
    }

    @Test("Tasks from four threads all run once on the loop, each thread's in the order it queued them")
    func tasksFromManyThreadsRunOnceInOrder() throws {
        let loop = try EventLoop()
        let thread = EventLoopThread(name: "test-loop") { loop.run() }
        defer {
            loop.stop()
            thread.join()
        }
        let record = Record()
        let producers = 4
        let perProducer = 20_000
        let finished = Atomic<Int>(0)
        let transfer = UnsafeLoopReference(loop)
        let threads = (0..<producers).map { producer in
            EventLoopThread(name: "test-producer") {
                for index in 0..<perProducer {
                    transfer.loop.execute { record.entries.append((producer, index)) }
                }
                finished.wrappingAdd(1, ordering: .releasing)
            }
        }
        for producer in threads { producer.join() }
        #expect(finished.load(ordering: .acquiring) == producers)
        let done = Atomic<Bool>(false)
        loop.execute { done.store(true, ordering: .releasing) }
        #expect(waitUntil(seconds: 60) { done.load(ordering: .acquiring) })

        #expect(record.entries.count == producers * perProducer)
        var next = Array(repeating: 0, count: producers)
        var inOrder = true
        for entry in record.entries {
            if entry.index != next[entry.producer] { inOrder = false }
            next[entry.producer] = entry.index + 1
        }
        #expect(inOrder)
        #expect(next == Array(repeating: perProducer, count: producers))
    }

    @Test("A task queued while the loop waits with nothing to do wakes it")
    func aTaskWakesASleepingLoop() throws {
        let loop = try EventLoop()
        let thread = EventLoopThread(name: "test-loop") { loop.run() }
        defer {
            loop.stop()
            thread.join()
        }
        let runs = Atomic<Int>(0)
        for _ in 0..<20 {
            // Long enough for the loop to block in epoll_wait without a timeout.
            usleep(5_000)
            let before = runs.load(ordering: .relaxed)
            loop.execute { runs.wrappingAdd(1, ordering: .relaxed) }
            #expect(waitUntil(seconds: 10) { runs.load(ordering: .relaxed) == before + 1 })
        }
    }
}

/// Hands the loop to producer threads (`execute` is safe from any thread).
private struct UnsafeLoopReference: @unchecked Sendable {
    let loop: EventLoop
    init(_ loop: EventLoop) { self.loop = loop }
}
