import GazeCore
import GazeModel

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
        if featureSet.isPolynomial {
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
