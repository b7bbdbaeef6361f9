/// A saved video's frames, each stamped with the time stored for it; notes when the counts differ.
///
/// Frame i gets index i and `timestamps[i]`. When the video has more or fewer frames than there
/// are timestamps, the frames end early and `mismatch` says how many each had.
public final class RestampedFrameSource: FrameSourceWrapper, @unchecked Sendable {
    /// How many frames the video had against how many timestamps were given.
    public struct Mismatch: Sendable, Equatable {
        public var videoFrames: Int
        public var timestamps: Int
    }

    public let source: FrameSource
    private let timestamps: [Double]
    private var next = 0
    /// Set when the video has more or fewer frames than there are timestamps.
    public private(set) var mismatch: Mismatch?

    public init(_ source: FrameSource, timestamps: [Double]) {
        self.source = source
        self.timestamps = timestamps
    }

    public func nextFrame() throws -> Frame? {
        guard var frame = try source.nextFrame() else {
            if next != timestamps.count { mismatch = Mismatch(videoFrames: next, timestamps: timestamps.count) }
            return nil
        }
        guard next < timestamps.count else {
            var extra = next
            while try source.nextFrame() != nil { extra += 1 }
            mismatch = Mismatch(videoFrames: extra + 1, timestamps: timestamps.count)
            return nil
        }
        frame.timestampSeconds = timestamps[next]
        frame.index = next
        next += 1
        return frame
    }
}
