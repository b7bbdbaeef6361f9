#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import GazeCore
import GazeModel

/// What a mapping reads from a frame: a feature set's name, its raw features and how many.
///
/// Each set is one value, defined in a file of its own under `FeatureSets/` and registered once,
/// in `allCases`. A linear set (every set but `pupilPolynomial`) writes its raw features itself
/// (`features`); the mapping standardises them and applies its coefficients (one term per feature
/// and the constant). The name is what a calibration document stores (`model.featureSet`), so a
/// set's name and its features never change once shipped: a changed set is a new set.
public struct GazeFeatureSet: Sendable, Hashable, CustomStringConvertible {
    /// The set's name in calibration documents and benchmarks.
    public let rawValue: String
    /// Raw features of the set (terms of the polynomial set are built from them).
    public let featureCount: Int
    /// Writes a frame's raw features (`featureCount` values) for a linear set; nil for the
    /// polynomial set, whose terms `GazeMapping` builds.
    let features: (@Sendable (GazeFeatures, UnsafeMutablePointer<Double>) -> Void)?
    /// For a set whose features are a subset of `appearance`'s: the `appearance` index of each
    /// feature (a blend can hold it); nil otherwise.
    let appearanceIndex: (@Sendable (Int) -> Int)?

    /// A linear set: `count` raw features written by `features`; `appearanceIndex` when they are a
    /// subset of the `appearance` features.
    init(name: String, featureCount count: Int, appearanceIndex: (@Sendable (Int) -> Int)? = nil,
         features: (@Sendable (GazeFeatures, UnsafeMutablePointer<Double>) -> Void)?) {
        rawValue = name
        featureCount = count
        self.features = features
        self.appearanceIndex = appearanceIndex
    }

    /// Every set gazerec knows, in the order documents and benchmarks list them: the one place a
    /// new set is registered.
    public static let allCases: [GazeFeatureSet] = [
        .pupilPolynomial, .patches, .shape, .appearance, .patchGradients, .patchIris, .patchMean,
        .patchClipped, .patchRank, .appearanceClipped, .appearanceUpper, .patchesNoPose, .appearanceNoPose,
        .patchesNoseFrame, .appearanceNoseFrame, .patchContrast, .appearanceContrast, .patchInner,
    ]

    /// The set of this name; nil for a name gazerec does not know.
    public init?(rawValue: String) {
        guard let set = Self.allCases.first(where: { $0.rawValue == rawValue }) else { return nil }
        self = set
    }

    public static func == (a: GazeFeatureSet, b: GazeFeatureSet) -> Bool { a.rawValue == b.rawValue }
    public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }
    public var description: String { rawValue }

    /// Whether this is the polynomial set (pupil positions, quadratic; no eye appearance).
    public var isPolynomial: Bool { features == nil }

    /// Whether the set is linear in a subset of the `appearance` features (a blend can hold it).
    var isAppearanceSubset: Bool { appearanceIndex != nil }

    /// Terms the coefficients multiply, the constant first.
    public var termCount: Int { isPolynomial ? GazeMapping.termCount : 1 + featureCount }

    /// Whether `features` has what this set reads: a pupil for the polynomial set; the eye
    /// patches with both eyes open for a linear one.
    @inline(__always)
    public func applies(to features: GazeFeatures) -> Bool {
        isPolynomial ? features.pupilLeft != nil || features.pupilRight != nil
            : features.appearance != nil && features.eyesOpen
    }

    /// The raw features of a linear set for `features` (`featureCount` values, before the
    /// mapping standardises them), or nil for the polynomial set or a frame the set cannot read
    /// (no eye patches, eyes shut). For benchmarks that compare what a set reads across frames.
    public func rawFeatures(_ features: GazeFeatures) -> [Double]? {
        guard !isPolynomial, applies(to: features) else { return nil }
        var output = [Double](repeating: 0, count: featureCount)
        output.withUnsafeMutableBufferPointer { appearanceFeatures(features, into: $0.baseAddress!) }
        return output
    }

    /// The raw features of a linear set, written to `output` (`featureCount` values).
    func appearanceFeatures(_ features: GazeFeatures, into output: UnsafeMutablePointer<Double>) {
        self.features!(features, output)
    }

    // The parts the linear sets are made of.

    static let headFeatureCount = 6
    static let shapeLandmarks = 17...67
    static let shapeFeatureCount = 2 * 51

    /// The eyes' frame of a frame's landmarks: from the right eye's corner midpoint (image left)
    /// to the left eye's.
    struct EyeFrame {
        var centre: Point2, ux: Point2, uy: Point2, distance: Double

        init(_ appearance: EyeAppearance) {
            let right = Self.point(appearance, 36) + Self.point(appearance, 39)
            let left = Self.point(appearance, 42) + Self.point(appearance, 45)
            let (r, l) = (right / 2, left / 2)
            let axis = l - r
            distance = Swift.max(axis.length, 1e-6)
            ux = axis / distance
            uy = Point2(-ux.y, ux.x)
            centre = (l + r) / 2
        }

        static func point(_ appearance: EyeAppearance, _ index: Int) -> Point2 {
            Point2(Double(appearance.landmarks[2 * index]), Double(appearance.landmarks[2 * index + 1]))
        }
    }

    /// The head's 6 features: roll of the eye line (degrees), the eyes' distance and midpoint
    /// (pixels), yaw and pitch (degrees), written to `output`.
    static func writeHead(_ features: GazeFeatures, _ frame: EyeFrame, into output: UnsafeMutablePointer<Double>) {
        output[0] = atan2(frame.ux.y, frame.ux.x) * 180 / Double.pi
        output[1] = frame.distance
        output[2] = frame.centre.x
        output[3] = frame.centre.y
        output[4] = features.yawDegrees
        output[5] = features.pitchDegrees
    }

    /// The face's shape: `landmarks` (default 17–67) in the eyes' frame, in eye distances (two
    /// values a landmark: `shapeFeatureCount` by default).
    static func writeShape(_ appearance: EyeAppearance, _ frame: EyeFrame, landmarks: ClosedRange<Int> = shapeLandmarks,
                           into output: UnsafeMutablePointer<Double>) {
        var index = 0
        for landmark in landmarks {
            let d = EyeFrame.point(appearance, landmark) - frame.centre
            output[index] = d.dot(frame.ux) / frame.distance
            output[index + 1] = d.dot(frame.uy) / frame.distance
            index += 2
        }
    }
}
