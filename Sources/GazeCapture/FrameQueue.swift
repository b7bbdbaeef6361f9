import Channels
import Foundation

/// Runs a frame source on its own thread, handing frames over through a bounded queue.
///
/// WHAT THIS OBJECT REPRESENTS
///   The capture stage of the pipeline. With `.lossless` (files) the reader waits when the queue
///   is full, so no frame is ever skipped and offline runs stay deterministic; decoding overlaps
///   with processing on the second core. With `.keepNewest` (live cameras) a full queue drops its
///   oldest frame and counts it, so processing always works on the freshest image.
/// THREAD SAFETY
///   `nextFrame` and `stop` from one consumer thread; the source is used only by the reader thread.
public final class PrefetchingFrameSource: FrameSourceWrapper, @unchecked Sendable {
    public enum Policy: Sendable {
        case lossless
        case keepNewest
    }

    public let source: FrameSource
    public let policy: Policy

    private let channel: BoundedChannel<Frame>
    private let lock = NSLock()
    private var dropped = 0
    private var stopped = false

    /// Frames dropped because processing fell behind (`.keepNewest` only).
    public var droppedFrames: Int {
        lock.lock()
        defer { lock.unlock() }
        return dropped
    }

    public init(_ source: FrameSource, policy: Policy, capacity: Int = 8) {
        self.source = source
        self.policy = policy
        channel = BoundedChannel(capacity: capacity)
        let thread = Thread { [self] in self.read() }
        thread.name = "gazerec.capture"
        thread.start()
    }

    deinit { stop() }

    private func read() {
        do {
            while let frame = try source.nextFrame() {
                switch policy {
                case .lossless:
                    guard channel.send(frame) else { channel.finish(); return }
                case .keepNewest:
                    if channel.isCancelled { channel.finish(); return }
                    if channel.sendDroppingOldest(frame) {
                        lock.lock()
                        dropped += 1
                        lock.unlock()
                    }
                }
            }
            channel.finish()
        } catch {
            channel.finish(throwing: error)
        }
    }

    /// The next frame in order; nil at the end; rethrows the source's error after the frames before it.
    public func nextFrame() throws -> Frame? { try channel.receive() }

    /// Stops the reader thread and waits for it (the source is then free to close).
    public func stop() {
        lock.lock()
        let first = !stopped
        stopped = true
        lock.unlock()
        guard first else { return }
        channel.cancel()
        channel.waitUntilFinished()
    }
}
