import GazeModel

/// One channel of the gaze stream, as its description lays it out
/// (`desc/channels/channel/{label,unit,type,eye}`, after the XDF meta-data conventions for gaze).
public struct GazeChannel: Sendable, Equatable {
    /// The channel's name: gazerec's own vocabulary (`FrameMeasurement.optionalValueNames`).
    public var label: String
    public var unit: String
    /// The kind of value (`ScreenX`, `ScreenY`, `PupilX`, … as the XDF gaze conventions name them;
    /// gazerec's own names where they have none).
    public var type: String
    /// `left`, `right` or `both` (the participant's eyes); nil for head and state channels.
    public var eye: String?

    public init(label: String, unit: String, type: String, eye: String?) {
        self.label = label
        self.unit = unit
        self.type = type
        self.eye = eye
    }

    /// The gaze stream's channels, in sample order: gaze on the screen, then the frame's
    /// optional values in `FrameMeasurement.optionalValueNames` order, then the tracking state.
    public static let all: [GazeChannel] = [
        GazeChannel(label: "gazeX", unit: "points", type: "ScreenX", eye: "both"),
        GazeChannel(label: "gazeY", unit: "points", type: "ScreenY", eye: "both"),
        GazeChannel(label: "opennessLeft", unit: "normalized", type: "Openness", eye: "left"),
        GazeChannel(label: "opennessRight", unit: "normalized", type: "Openness", eye: "right"),
        GazeChannel(label: "pupilLeftU", unit: "eye widths", type: "PupilX", eye: "left"),
        GazeChannel(label: "pupilLeftV", unit: "eye widths", type: "PupilY", eye: "left"),
        GazeChannel(label: "pupilRightU", unit: "eye widths", type: "PupilX", eye: "right"),
        GazeChannel(label: "pupilRightV", unit: "eye widths", type: "PupilY", eye: "right"),
        GazeChannel(label: "yawDegrees", unit: "degrees", type: "HeadYaw", eye: nil),
        GazeChannel(label: "pitchDegrees", unit: "degrees", type: "HeadPitch", eye: nil),
        GazeChannel(label: "rollDegrees", unit: "degrees", type: "HeadRoll", eye: nil),
        GazeChannel(label: "tx", unit: "mm", type: "HeadPositionX", eye: nil),
        GazeChannel(label: "ty", unit: "mm", type: "HeadPositionY", eye: nil),
        GazeChannel(label: "tz", unit: "mm", type: "HeadPositionZ", eye: nil),
        GazeChannel(label: "trackingState", unit: "code", type: "TrackingState", eye: nil),
    ]

    /// One sample's values in `all`'s order: NaN for what the frame lacks (gaze without a
    /// calibration or a face, eyes and head without a face).
    public static func values(of measurement: FrameMeasurement, gaze: GazeSample?) -> [Float] {
        let optional = [gaze?.x, gaze?.y] + measurement.optionalValues
        return optional.map { $0.map(Float.init) ?? .nan } + [Float(trackingStateCode(measurement.trackingState))]
    }

    /// The number the `trackingState` channel carries: 0 normal, 1 initializing, 2 low
    /// confidence, 3 excessive motion, 4 no face.
    public static func trackingStateCode(_ state: TrackingState) -> Int {
        switch state {
        case .normal: 0
        case .initializing: 1
        case .lowConfidence: 2
        case .excessiveMotion: 3
        case .missing: 4
        }
    }
}
