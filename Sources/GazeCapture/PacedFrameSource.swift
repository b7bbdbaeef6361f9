import Foundation

/// Replays a file at its own pace: each frame is released when its presentation time has come.
public final class PacedFrameSource: FrameSourceWrapper {
    public let source: FrameSource
    private let start: Double

    /// Frame times count from `originMonotonic` (CLOCK_MONOTONIC seconds).
    public init(_ source: FrameSource, originMonotonic: Double) {
        self.source = source
        start = originMonotonic
    }

    public func nextFrame() throws -> Frame? {
        guard let frame = try source.nextFrame() else { return nil }
        let wait = start + frame.timestampSeconds - SystemClock.monotonic()
        if wait > 0 { usleep(useconds_t(wait * 1e6)) }
        return frame
    }
}
