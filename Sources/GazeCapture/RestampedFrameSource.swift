/// A saved video's frames, each stamped with the time stored for it; notes when the counts differ.
///
/// Frame i gets index i and `timestamps[i]`. When the video has more or fewer frames than there
/// are timestamps, the frames end early and `mismatch` says how many each had.
///
/// A video known to lack `missingFrames` of the stored frames (a camera's frames the writer left
/// out) is paired by time instead: a frame at presentation time p is the stored frame whose time
/// is `timestamps[0] + p` (within `toleranceSeconds`; the first frame is always kept) and gets that
/// frame's index and time. The counts must then add up (video frames + missing = timestamps), and
/// a frame that pairs with no stored frame ends the frames with a mismatch.
public final class RestampedFrameSource: FrameSourceWrapper, @unchecked Sendable {
    /// How many frames the video had against how many timestamps were given (less the missing).
    public struct Mismatch: Sendable, Equatable {
        public var videoFrames: Int
        public var timestamps: Int
    }

    public let source: FrameSource
    private let timestamps: [Double]
    private let missingFrames: Int
    private let toleranceSeconds: Double
    /// The next stored frame a video frame may pair with.
    private var next = 0
    /// Video frames given so far.
    private var given = 0
    /// Set when the video has more or fewer frames than there are timestamps.
    public private(set) var mismatch: Mismatch?

    public init(_ source: FrameSource, timestamps: [Double], missingFrames: Int = 0, toleranceSeconds: Double = 0.002) {
        self.source = source
        self.timestamps = timestamps
        self.missingFrames = missingFrames
        self.toleranceSeconds = toleranceSeconds
    }

    /// The frames the video should have.
    private var expected: Int { timestamps.count - missingFrames }

    public func nextFrame() throws -> Frame? {
        guard var frame = try source.nextFrame() else {
            if given != expected { mismatch = Mismatch(videoFrames: given, timestamps: expected) }
            return nil
        }
        guard let stored = pair(frame.timestampSeconds), given < expected else {
            var extra = given
            while try source.nextFrame() != nil { extra += 1 }
            mismatch = Mismatch(videoFrames: extra + 1, timestamps: expected)
            return nil
        }
        frame.timestampSeconds = timestamps[stored]
        frame.index = stored
        next = stored + 1
        given += 1
        return frame
    }

    /// The stored frame a video frame at presentation time `seconds` is (nil: none).
    private func pair(_ seconds: Double) -> Int? {
        guard next < timestamps.count else { return nil }
        guard missingFrames > 0 else { return next }
        let wanted = timestamps[0] + seconds
        var index = next
        while index < timestamps.count && timestamps[index] < wanted - toleranceSeconds { index += 1 }
        guard index < timestamps.count, abs(timestamps[index] - wanted) <= toleranceSeconds else { return nil }
        return index
    }
}
