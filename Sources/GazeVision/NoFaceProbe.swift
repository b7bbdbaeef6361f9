import GazeCapture
import GazeCore

/// What a look at a frame without a face found: why the face finder may have missed one.
public enum NoFaceFinding: Sendable, Equatable {
    /// The frontal HOG detector finds a face only in the frame turned clockwise by this many
    /// degrees (90, 180 or 270): the picture is rotated (a camera mounted sideways or upside down).
    case turned(clockwiseDegrees: Int)
    /// A face smaller than the detector's 80-pixel window, found only in the frame doubled: the
    /// participant sits too far from the camera to be followed.
    case tooSmall
}

/// Looks, while no face is reported, for one the face finder cannot see: in the frame turned by
/// 180°, 90° and 270° (a rotated picture), and in the frame doubled (a face too far away).
///
/// Runs on at most one frame per `intervalSeconds` of frame time while no face is reported (never
/// while one is): four looks of dlib's frontal HOG detector at the finder's first-stage scale
/// (three turns, and the frame doubled, which costs about four looks), about 8 looks in all per
/// second without a face. It changes no frame: its finding only words a warning or the seating
/// advice. Not thread-safe (it owns a detector): one per pipeline.
public final class NoFaceProbe {
    /// The largest width (or height) the detector sees; larger frames are shrunk by an integer factor.
    public var detectionWidth = 400
    /// Frame time between two looks while no face is reported, in seconds.
    public var intervalSeconds = 1.0
    /// The finding of the last look, kept until a face is reported again.
    public private(set) var finding: NoFaceFinding?
    /// Looks taken (frames probed), for benchmarks.
    public private(set) var looks = 0
    private var detector: FaceDetector?
    private var lastLook: Double?
    private var missingSince: Double?

    public init() {}

    /// Takes a frame: with a face reported it forgets the finding; without one it looks when
    /// `intervalSeconds` have passed since the face went missing or since the last look. Returns
    /// the finding (nil: none, or no look on this frame).
    @discardableResult
    public func frame(_ image: GrayImage, timeSeconds: Double, faceReported: Bool) throws -> NoFaceFinding? {
        guard !faceReported else {
            (missingSince, lastLook, finding) = (nil, nil, nil)
            return nil
        }
        let since = missingSince ?? timeSeconds
        missingSince = since
        guard timeSeconds - (lastLook ?? since) >= intervalSeconds || timeSeconds < (lastLook ?? since) else { return nil }
        lastLook = timeSeconds
        finding = try look(image)
        return finding
    }

    /// One look at `image`: the first turn (180°, 90°, 270°) in which HOG finds a face, else a face
    /// under the detector's window found in the frame doubled, else nil.
    public func look(_ image: GrayImage) throws -> NoFaceFinding? {
        looks += 1
        let detector = try self.detector ?? FaceDetector()
        self.detector = detector
        let factor = Swift.max(1, Int((Double(Swift.max(image.width, image.height)) / Double(detectionWidth)).rounded()))
        let shrunk = image.downscaled(by: factor)
        for quarterTurns in [2, 1, 3] where try !detector.detect(shrunk.turnedClockwise(quarterTurns: quarterTurns)).isEmpty {
            return .turned(clockwiseDegrees: 90 * quarterTurns)
        }
        // Only a face under the window: a larger one the finder would have found, were it a face.
        let small = try detector.detect(shrunk, upsample: true).filter { Swift.max($0.width, $0.height) < FaceFinder.detectorWindow }
        return small.isEmpty ? nil : .tooSmall
    }
}
