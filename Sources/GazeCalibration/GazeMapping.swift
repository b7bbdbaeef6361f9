#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import GazeCore
import GazeModel

/// The eye and head measurements of one frame that a calibration maps to a screen point.
///
/// Pupils are normalised to their eye corners (`PupilObservation.normalized`): u runs 0 → 1 from
/// the corner on the image's left to the one on its right, v is the offset below the corner line
/// in corner distances. Head pose is the PnP pose of the frame.
public struct GazeFeatures: Sendable, Equatable {
    public var timestampSeconds: Double
    /// Participant's left eye (u, v), nil when not found (eye shut, face lost).
    public var pupilLeft: Point2?
    public var pupilRight: Point2?
    public var yawDegrees: Double
    public var pitchDegrees: Double
    /// Head position across the image, as tangents of its direction from the camera axis
    /// (translation x / z and y / z): moving the head sideways moves gaze on the screen.
    public var headX: Double
    public var headY: Double
    /// Whether tracking was good enough to learn from (state normal).
    public var trackingNormal: Bool

    public init(timestampSeconds: Double, pupilLeft: Point2?, pupilRight: Point2?, yawDegrees: Double,
                pitchDegrees: Double, headX: Double, headY: Double, trackingNormal: Bool = true) {
        self.timestampSeconds = timestampSeconds
        self.pupilLeft = pupilLeft
        self.pupilRight = pupilRight
        self.yawDegrees = yawDegrees
        self.pitchDegrees = pitchDegrees
        self.headX = headX
        self.headY = headY
        self.trackingNormal = trackingNormal
    }

    /// The features of one frame's measurement, or nil when it has none to map: no head pose
    /// (no face), a head pose at zero depth, or no pupil (eyes shut or not found).
    ///
    /// The one conversion from a frame to what a calibration maps: calibrate and validate feed
    /// it live frames, recording live and stored-then-recalibrated frames alike.
    public init?(_ frame: FrameMeasurement) {
        guard let pose = frame.headPose, pose.translation.z != 0,
              frame.pupilLeft != nil || frame.pupilRight != nil else { return nil }
        self.init(timestampSeconds: frame.timestampSeconds, pupilLeft: frame.pupilLeft, pupilRight: frame.pupilRight,
                  yawDegrees: pose.yawDegrees, pitchDegrees: pose.pitchDegrees,
                  headX: pose.translation.x / pose.translation.z, headY: pose.translation.y / pose.translation.z,
                  trackingNormal: frame.trackingState == .normal)
    }

    /// Both eyes combined: their mean, or one eye shifted by the calibration's mean left − right
    /// difference when the other is missing. Nil without any pupil.
    @inline(__always)
    public func eye(difference: Point2) -> Point2? {
        switch (pupilLeft, pupilRight) {
        case let (left?, right?): return Point2((left.x + right.x) / 2, (left.y + right.y) / 2)
        case let (left?, nil): return left - difference / 2
        case let (nil, right?): return right + difference / 2
        case (nil, nil): return nil
        }
    }
}

/// A fitted calibration: standardised features → second-order polynomial terms → screen points.
///
/// Raw features f = (u, v, yaw, pitch, headX, headY), with (u, v) both eyes' pupil position
/// combined. Each is standardised, z = (f − mean) / scale, and the screen point is
/// x = cx · t, y = cy · t over the terms t = (1, zu, zv, zu², zu·zv, zv², zyaw, zpitch, zheadX, zheadY):
/// quadratic in where the eyes look inside the head, linear in how the head is turned and placed.
/// About 40 ns a sample.
public struct GazeMapping: Sendable, Equatable {
    /// The raw features, in order.
    public static let featureNames = ["u", "v", "yawDegrees", "pitchDegrees", "headX", "headY"]
    /// The polynomial terms, in coefficient order.
    public static let termNames = ["1", "u", "v", "u*u", "u*v", "v*v", "yaw", "pitch", "headX", "headY"]
    public static let featureCount = 6
    public static let termCount = 10

    public var featureMeans: [Double]
    public var featureScales: [Double]
    public var coefficientsX: [Double]
    public var coefficientsY: [Double]
    /// Mean left − right pupil position during calibration (stands in for a missing eye).
    public var eyeDifference: Point2
    /// The ridge penalty the fit chose (on standardised terms, per sample).
    public var ridgePenalty: Double

    public init(featureMeans: [Double], featureScales: [Double], coefficientsX: [Double], coefficientsY: [Double],
                eyeDifference: Point2, ridgePenalty: Double) {
        precondition(featureMeans.count == Self.featureCount && featureScales.count == Self.featureCount)
        precondition(coefficientsX.count == Self.termCount && coefficientsY.count == Self.termCount)
        self.featureMeans = featureMeans
        self.featureScales = featureScales
        self.coefficientsX = coefficientsX
        self.coefficientsY = coefficientsY
        self.eyeDifference = eyeDifference
        self.ridgePenalty = ridgePenalty
    }

    /// The screen point (points, origin top-left) for one frame's features; nil without a pupil.
    @inline(__always)
    public func map(_ features: GazeFeatures) -> Point2? {
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
