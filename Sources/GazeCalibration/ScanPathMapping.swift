import GazeCore
import SessionStore

extension GazeFeatures {
    /// The features of a stored frame (the same values a live recording mapped), or nil without a
    /// head pose or any pupil.
    public init?(_ frame: FrameRecord) {
        guard let yaw = frame.yawDegrees, let pitch = frame.pitchDegrees, let tx = frame.tx, let ty = frame.ty,
              let tz = frame.tz, tz != 0 else { return nil }
        let left = frame.pupilLeftU.flatMap { u in frame.pupilLeftV.map { Point2(u, $0) } }
        let right = frame.pupilRightU.flatMap { u in frame.pupilRightV.map { Point2(u, $0) } }
        guard left != nil || right != nil else { return nil }
        self.init(timestampSeconds: frame.timestampSeconds, pupilLeft: left, pupilRight: right, yawDegrees: yaw,
                  pitchDegrees: pitch, headX: tx / tz, headY: ty / tz,
                  trackingNormal: frame.trackingState == TrackingState.normal.analysisValue)
    }
}

extension AppliedCalibration {
    /// The scan-path sample of one stored or live frame: its gaze point with the frame's tracking
    /// state, or nil when the frame has no gaze (no face, eyes shut). Live recording and
    /// `recalibrate` both go through here, so they agree to the bit.
    public func sample(for frame: FrameRecord, orientation: Int) -> GazeSample? {
        guard let features = GazeFeatures(frame), let point = mapping.map(features) else { return nil }
        return GazeSample(timestampSeconds: frame.timestampSeconds, x: point.x, y: point.y, orientation: orientation,
                          trackingState: TrackingState(analysisValue: frame.trackingState)?.sessionValue)
    }

    /// A session's scan path recomputed from its stored frames.
    public func scanPath(_ frames: [FrameRecord], orientation: Int, smoothing: GazeSmoothing) -> [GazeSample] {
        var stream = GazeStream(self, smoothing: smoothing, orientation: orientation)
        return frames.compactMap { stream.sample(for: $0) }
    }
}

/// The gaze of a stream of frames in time order: the calibration's mapping, then the optional
/// smoothing. A live recording and `recalibrate` both run their frames through one of these.
public struct GazeStream: Sendable {
    public let calibration: AppliedCalibration
    public let orientation: Int
    private var smoother: GazeSmoother

    public init(_ calibration: AppliedCalibration, smoothing: GazeSmoothing, orientation: Int) {
        self.calibration = calibration
        self.orientation = orientation
        smoother = GazeSmoother(smoothing)
    }

    public var smoothing: GazeSmoothing { smoother.smoothing }

    /// The next frame's scan-path sample, or nil when it has no gaze.
    public mutating func sample(for frame: FrameRecord) -> GazeSample? {
        guard var sample = calibration.sample(for: frame, orientation: orientation) else { return nil }
        let point = smoother.smooth(Point2(sample.x, sample.y), timeSeconds: sample.timestampSeconds)
        sample.x = point.x
        sample.y = point.y
        return sample
    }
}

extension GazeSmoothing {
    /// How a session records it under `"gazerec"."smoothing"`.
    public var jsonValue: JSONValue {
        switch self {
        case .none:
            return .object([("filter", .string("none"))])
        case let .oneEuro(minCutoff, beta, derivativeCutoff):
            return .object([("filter", .string("oneEuro")), ("minCutoffHertz", .number(minCutoff)), ("beta", .number(beta)),
                            ("derivativeCutoffHertz", .number(derivativeCutoff))])
        }
    }

    /// Reads what `jsonValue` wrote; nil for anything else.
    public init?(json: JSONValue?) {
        guard let json, case .string(let filter)? = json["filter"] else { return nil }
        switch filter {
        case "none":
            self = .none
        case "oneEuro":
            guard case .number(let minCutoff)? = json["minCutoffHertz"], case .number(let beta)? = json["beta"],
                  case .number(let derivativeCutoff)? = json["derivativeCutoffHertz"],
                  minCutoff > 0, beta >= 0, derivativeCutoff > 0 else { return nil }
            self = .oneEuro(minCutoffHertz: minCutoff, beta: beta, derivativeCutoffHertz: derivativeCutoff)
        default:
            return nil
        }
    }
}
