#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import GazeCore
import GazeModel

/// What a mapping reads from a frame.
public enum GazeFeatureSet: String, Sendable, CaseIterable {
    /// Both eyes' pupil positions combined, quadratic, plus head yaw, pitch and position, linear:
    /// 6 features, 10 terms (`GazeMapping.pupilTermNames`). gazerec's mapping before eye patches;
    /// calibrations made with it still apply.
    case pupilPolynomial
    /// Head (6: roll, inter-ocular distance and the eyes' midpoint in pixels, yaw and pitch) and
    /// both eye patches (2 × 128 pixels, each normalised to mean 0 and standard deviation 1):
    /// 262 features, linear.
    case patches
    /// Head (6, as for `patches`) and the face's shape: landmarks 17–67 in the eyes' frame (see
    /// `appearance`): 108 features, linear. For eyes the patches cannot see (reflecting glasses).
    case shape
    /// `patches` plus the face's shape: landmarks 17–67 in the eyes' frame (origin between the
    /// eyes, x along the line through both eyes' corner midpoints, in inter-ocular distances):
    /// 364 features, linear.
    case appearance
    /// A candidate for the eyes' large turns: `patches` plus each normalised patch's horizontal
    /// differences (2 × 15 × 8: the iris's edges across the eye): 502 features, linear. Not tried
    /// by default (docs/Calibration.md, *Richer eye appearance*).
    case patchGradients
    /// A candidate for the eyes' large turns: `patches` plus, per eye, where the patch's dark
    /// pixels centre (across and down) and the square of that centre's offset across (2 × 3):
    /// 268 features, linear in them. Not tried by default.
    case patchIris
    /// A candidate reading both eyes jointly: the head (6) and the mean of the two normalised
    /// patches, pixel by pixel (128): the eyes turn together, so their patches' common part is
    /// the gaze and their differences noise (a glint on one lens). 134 features, linear. Not
    /// tried by default.
    case patchMean

    /// Raw features of the set (terms of the polynomial set are built from them).
    public var featureCount: Int {
        switch self {
        case .pupilPolynomial: return 6
        case .patches: return Self.headFeatureCount + 2 * EyeAppearance.patchPixels
        case .shape: return Self.headFeatureCount + Self.shapeFeatureCount
        case .appearance: return Self.headFeatureCount + Self.shapeFeatureCount + 2 * EyeAppearance.patchPixels
        case .patchGradients: return Self.headFeatureCount + 2 * EyeAppearance.patchPixels + 2 * EyeDetailFeatures.gradientCount
        case .patchIris: return Self.headFeatureCount + 2 * EyeAppearance.patchPixels + 2 * EyeDetailFeatures.irisCount
        case .patchMean: return Self.headFeatureCount + EyeAppearance.patchPixels
        }
    }

    /// Whether the set is linear in a subset of the `appearance` features (a blend can hold it).
    var isAppearanceSubset: Bool { self == .patches || self == .shape || self == .appearance }

    /// Terms the coefficients multiply, the constant first.
    public var termCount: Int { self == .pupilPolynomial ? 10 : 1 + featureCount }

    static let headFeatureCount = 6
    static let shapeLandmarks = 17...67
    static let shapeFeatureCount = 2 * 51

    /// Whether `features` has what this set reads.
    @inline(__always)
    public func applies(to features: GazeFeatures) -> Bool {
        switch self {
        case .pupilPolynomial: return features.pupilLeft != nil || features.pupilRight != nil
        case .patches, .shape, .appearance, .patchGradients, .patchIris, .patchMean:
            return features.appearance != nil && features.eyesOpen
        }
    }

    /// The raw features of an appearance set, written to `output` (`featureCount` values).
    func appearanceFeatures(_ features: GazeFeatures, into output: UnsafeMutablePointer<Double>) {
        let appearance = features.appearance!
        let landmarks = appearance.landmarks
        func point(_ index: Int) -> Point2 { Point2(Double(landmarks[2 * index]), Double(landmarks[2 * index + 1])) }
        // The eyes' frame: from the right eye's corner midpoint (image left) to the left eye's.
        let right = (point(36) + point(39)) / 2, left = (point(42) + point(45)) / 2
        let axis = left - right
        let distance = Swift.max(axis.length, 1e-6)
        let ux = axis / distance, uy = Point2(-ux.y, ux.x)
        let centre = (left + right) / 2
        output[0] = atan2(ux.y, ux.x) * 180 / Double.pi
        output[1] = distance
        output[2] = centre.x
        output[3] = centre.y
        output[4] = features.yawDegrees
        output[5] = features.pitchDegrees
        var index = Self.headFeatureCount
        if self == .appearance || self == .shape {
            for landmark in Self.shapeLandmarks {
                let d = point(landmark) - centre
                output[index] = d.dot(ux) / distance
                output[index + 1] = d.dot(uy) / distance
                index += 2
            }
        }
        guard self != .shape else { return }
        guard self != .patchMean else { return EyeDetailFeatures.meanPatch(appearance, into: output + index) }
        EyeDetailFeatures.normalisedPatches(appearance, into: output + index)
        let patches = UnsafePointer(output + index)
        index += 2 * EyeAppearance.patchPixels
        switch self {
        case .patchGradients: EyeDetailFeatures.gradients(patches, into: output + index)
        case .patchIris: EyeDetailFeatures.irisCentroids(patches, into: output + index)
        default: break
        }
    }
}

/// A fitted calibration: standardised features → terms → screen points (x = cₓ · t, y = c_y · t).
///
/// The feature set decides the terms. `pupilPolynomial`: raw features f = (u, v, yaw, pitch,
/// headX, headY), (u, v) both eyes' pupil position combined, standardised z = (f − mean) / scale,
/// t = (1, zu, zv, zu², zu·zv, zv², zyaw, zpitch, zheadX, zheadY): quadratic in where the eyes look
/// inside the head, linear in how the head is turned and placed (about 40 ns a sample).
/// `patches` and `appearance`: t = (1, z₁, …, z_p), linear in every standardised feature
/// (about 2 µs a sample).
public struct GazeMapping: Sendable, Equatable {
    /// The polynomial set's raw features, in order.
    public static let featureNames = ["u", "v", "yawDegrees", "pitchDegrees", "headX", "headY"]
    /// The polynomial set's terms, in coefficient order.
    public static let termNames = ["1", "u", "v", "u*u", "u*v", "v*v", "yaw", "pitch", "headX", "headY"]
    public static let featureCount = 6
    public static let termCount = 10

    public var featureSet: GazeFeatureSet
    public var featureMeans: [Double]
    public var featureScales: [Double]
    public var coefficientsX: [Double]
    public var coefficientsY: [Double]
    /// Mean left − right pupil position during calibration (stands in for a missing eye; the
    /// polynomial set only).
    public var eyeDifference: Point2
    /// The ridge penalty the fit chose (on standardised terms, per sample).
    public var ridgePenalty: Double

    public init(featureSet: GazeFeatureSet = .pupilPolynomial, featureMeans: [Double], featureScales: [Double],
                coefficientsX: [Double], coefficientsY: [Double], eyeDifference: Point2 = .zero, ridgePenalty: Double) {
        precondition(featureMeans.count == featureSet.featureCount && featureScales.count == featureSet.featureCount)
        precondition(coefficientsX.count == featureSet.termCount && coefficientsY.count == featureSet.termCount)
        self.featureSet = featureSet
        self.featureMeans = featureMeans
        self.featureScales = featureScales
        self.coefficientsX = coefficientsX
        self.coefficientsY = coefficientsY
        self.eyeDifference = eyeDifference
        self.ridgePenalty = ridgePenalty
    }

    /// The screen point (points, origin top-left) for one frame's features; nil when the frame
    /// lacks what the mapping reads (no pupil; no appearance, or the eyes shut).
    @inline(__always)
    public func map(_ features: GazeFeatures) -> Point2? {
        switch featureSet {
        case .pupilPolynomial:
            guard let eye = features.eye(difference: eyeDifference) else { return nil }
            var terms = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
            Self.terms(eye: eye, features: features, means: featureMeans, scales: featureScales, into: &terms)
            return withUnsafeBytes(of: &terms) { raw in
                let t = raw.bindMemory(to: Double.self)
                var x = 0.0, y = 0.0
                for index in 0..<Self.termCount {
                    x += coefficientsX[index] * t[index]
                    y += coefficientsY[index] * t[index]
                }
                return Point2(x, y)
            }
        case .patches, .shape, .appearance, .patchGradients, .patchIris, .patchMean:
            guard featureSet.applies(to: features) else { return nil }
            let count = featureSet.featureCount
            return withUnsafeTemporaryAllocation(of: Double.self, capacity: count) { buffer in
                featureSet.appearanceFeatures(features, into: buffer.baseAddress!)
                var x = coefficientsX[0], y = coefficientsY[0]
                for k in 0..<count {
                    let z = (buffer[k] - featureMeans[k]) / featureScales[k]
                    x += coefficientsX[k + 1] * z
                    y += coefficientsY[k + 1] * z
                }
                return Point2(x, y)
            }
        }
    }

    /// The raw feature vector of a sample with its combined eye position.
    @inline(__always)
    static func raw(eye: Point2, _ f: GazeFeatures) -> (Double, Double, Double, Double, Double, Double) {
        (eye.x, eye.y, f.yawDegrees, f.pitchDegrees, f.headX, f.headY)
    }

    @inline(__always)
    static func terms(eye: Point2, features: GazeFeatures, means: [Double], scales: [Double],
                      into t: inout (Double, Double, Double, Double, Double, Double, Double, Double, Double, Double)) {
        let zu = (eye.x - means[0]) / scales[0]
        let zv = (eye.y - means[1]) / scales[1]
        t = (1, zu, zv, zu * zu, zu * zv, zv * zv,
             (features.yawDegrees - means[2]) / scales[2], (features.pitchDegrees - means[3]) / scales[3],
             (features.headX - means[4]) / scales[4], (features.headY - means[5]) / scales[5])
    }

    /// The terms as an array (fitting).
    static func termArray(eye: Point2, features: GazeFeatures, means: [Double], scales: [Double]) -> [Double] {
        var t = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
        terms(eye: eye, features: features, means: means, scales: scales, into: &t)
        return [t.0, t.1, t.2, t.3, t.4, t.5, t.6, t.7, t.8, t.9]
    }
}

/// Solves the symmetric positive-definite system A x = b (n × n, row-major) by Cholesky; nil if
/// A is not positive definite.
func solveSymmetricPositiveDefinite(_ a: [Double], _ b: [[Double]], n: Int) -> [[Double]]? {
    var l = [Double](repeating: 0, count: n * n)
    for i in 0..<n {
        for j in 0...i {
            var sum = a[i * n + j]
            for k in 0..<j { sum -= l[i * n + k] * l[j * n + k] }
            if i == j {
                guard sum > 1e-12 * max(1, abs(a[i * n + i])) else { return nil }
                l[i * n + i] = sum.squareRoot()
            } else {
                l[i * n + j] = sum / l[j * n + j]
            }
        }
    }
    return b.map { rhs in
        var y = [Double](repeating: 0, count: n)
        for i in 0..<n {
            var sum = rhs[i]
            for k in 0..<i { sum -= l[i * n + k] * y[k] }
            y[i] = sum / l[i * n + i]
        }
        var x = [Double](repeating: 0, count: n)
        for i in stride(from: n - 1, through: 0, by: -1) {
            var sum = y[i]
            for k in (i + 1)..<n { sum -= l[k * n + i] * x[k] }
            x[i] = sum / l[i * n + i]
        }
        return x
    }
}
