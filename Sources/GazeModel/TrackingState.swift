/// How well one frame was tracked: gazerec's one vocabulary, everywhere but the EyeTracking JSON.
///
/// `analyze`, the per-frame data (`"gazerec"."frames"`), the live stream, `status` and the CSV
/// all write the raw value (`normal`, `initializing`, `lowConfidence`, `excessiveMotion`,
/// `missing`). Only the session format's `trackingState` of scan-path and blend-shape samples
/// speaks the iOS package's ARKit-style spelling (`eyeTrackingValue`), mapped at that boundary.
public enum TrackingState: String, Sendable, CaseIterable, Equatable {
    /// A face was fitted with good confidence.
    case normal
    /// The first frames after a face was (re)acquired, before the estimates settled.
    case initializing
    /// A face was fitted with low confidence (occlusion, strong head turn, poor light).
    case lowConfidence
    /// The face moved too far since the previous frame for the estimate to be trusted.
    case excessiveMotion
    /// No face in the frame.
    case missing

    /// The spelling of the EyeTracking JSON's `trackingState` (ARKit's): nil (the key is absent)
    /// when normal, `limited.initializing`, `limited.lowConfidence`, `limited.excessiveMotion`,
    /// `notTracking`.
    public var eyeTrackingValue: String? {
        switch self {
        case .normal: nil
        case .initializing: "limited.initializing"
        case .lowConfidence: "limited.lowConfidence"
        case .excessiveMotion: "limited.excessiveMotion"
        case .missing: "notTracking"
        }
    }

    /// The state an EyeTracking `trackingState` names (nil: absent, normal tracking).
    ///
    /// ARKit states gazerec does not produce map to their nearest: `notAvailable` → missing,
    /// any other `limited.…` reason (`insufficientFeatures`, `relocalizing`) → lowConfidence.
    /// The stored sample keeps the original text, so an export writes it back unchanged.
    public init(eyeTrackingValue value: String?) {
        switch value {
        case nil, "normal": self = .normal
        case "limited.initializing": self = .initializing
        case "limited.lowConfidence": self = .lowConfidence
        case "limited.excessiveMotion": self = .excessiveMotion
        case "notTracking", "notAvailable": self = .missing
        default: self = .lowConfidence
        }
    }
}
