import Foundation

/// A bounded hand-off of values from one producer thread to one consumer thread.
///
/// WHAT THIS OBJECT REPRESENTS
///   A queue of at most `capacity` values. `send` blocks while it is full, `receive` while it is
///   empty; `finish` (optionally with an error) ends the stream, and `cancel` tells a blocked or
///   future `send` to give up. The pipelines use it to overlap stages on the machine's cores:
///   SQLite with JSON work, decoding with landmark fitting with feature extraction.
/// THREAD SAFETY
///   One producer and one consumer, on any threads.
public final class BoundedChannel<Value>: @unchecked Sendable {
    private let condition = NSCondition()
    private var queue: [Value] = []
    private let capacity: Int
    private var finished = false
    private var cancelled = false
    private var failure: (any Error)?

    public init(capacity: Int = 2) {
        precondition(capacity >= 1)
        self.capacity = capacity
    }

    /// Queues a value; returns false if the consumer cancelled.
    @discardableResult
    public func send(_ value: Value) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while queue.count >= capacity && !cancelled { condition.wait() }
        if cancelled { return false }
        queue.append(value)
        condition.broadcast()
        return true
    }

    /// Queues a value without waiting: when full, the oldest queued value is dropped.
    /// Returns whether one was dropped.
    @discardableResult
    public func sendDroppingOldest(_ value: Value) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !cancelled else { return false }
        var dropped = false
        if queue.count >= capacity {
            queue.removeFirst()
            dropped = true
        }
        queue.append(value)
        condition.broadcast()
        return dropped
    }

    /// Whether the consumer cancelled.
    public var isCancelled: Bool {
        condition.lock()
        defer { condition.unlock() }
        return cancelled
    }

    /// Ends the stream after the queued values, with an error for the consumer if given.
    public func finish(throwing error: (any Error)? = nil) {
        condition.lock()
        finished = true
        if failure == nil { failure = error }
        condition.broadcast()
        condition.unlock()
    }

    /// The next value, or nil once the stream is finished; rethrows the producer's error.
    public func receive() throws -> Value? {
        condition.lock()
        defer { condition.unlock() }
        while queue.isEmpty && !finished { condition.wait() }
        if !queue.isEmpty {
            let value = queue.removeFirst()
            condition.broadcast()
            return value
        }
        if let failure { throw failure }
        return nil
    }

    /// Tells the producer to stop; queued values are dropped.
    public func cancel() {
        condition.lock()
        cancelled = true
        queue.removeAll()
        condition.broadcast()
        condition.unlock()
    }

    /// Waits until the producer has called `finish` (after `cancel`, to know it is done).
    public func waitUntilFinished() {
        condition.lock()
        while !finished { condition.wait() }
        condition.unlock()
    }
}
