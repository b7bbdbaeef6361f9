#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import GazeModel

/// A pinhole camera without distortion, in pixels.
public struct CameraIntrinsics: Sendable, Equatable {
    public var focalLengthPixels: Double
    public var centre: Point2

    public init(focalLengthPixels: Double, centre: Point2) {
        self.focalLengthPixels = focalLengthPixels
        self.centre = centre
    }

    /// The usual webcam guess: focal length = image width, centre = image centre.
    public init(width: Int, height: Int, focalLengthPixels: Double? = nil) {
        self.focalLengthPixels = focalLengthPixels ?? Double(width)
        self.centre = Point2(Double(width) / 2, Double(height) / 2)
    }

    /// Projects a point in camera coordinates (z away from the camera) to pixels.
    @inline(__always)
    public func project(_ p: Vector3) -> Point2 {
        Point2(focalLengthPixels * p.x / p.z + centre.x, focalLengthPixels * p.y / p.z + centre.y)
    }
}

/// A generic 3-D face: landmark index → position in the model's axes (x right, y down, z away
/// from the camera for a face looking into it).
public struct FaceModel3D: Sendable {
    public var points: [(landmark: Int, position: Vector3)]

    public init(points: [(landmark: Int, position: Vector3)]) {
        self.points = points
    }

    /// The common six-point model (nose tip at the origin, units ≈ 0.1 mm): nose tip 30, chin 8,
    /// eye outer corners 36 and 45, mouth corners 48 and 54. The same model as the OpenCV
    /// `solvePnP` reference in the fixtures, so results compare directly.
    public static let sixPoint = FaceModel3D(points: [
        (30, Vector3(0, 0, 0)),
        (8, Vector3(0, 330, 65)),
        (36, Vector3(-225, -170, 135)),
        (45, Vector3(225, -170, 135)),
        (48, Vector3(-150, 150, 125)),
        (54, Vector3(150, 150, 125)),
    ])
}

/// Head pose: the rotation and translation taking model coordinates into camera coordinates.
public struct HeadPose: Sendable, Equatable {
    /// Rodrigues rotation vector (radians).
    public var rotationVector: Vector3
    /// Translation in model units (0.1 mm for `FaceModel3D.sixPoint`), camera axes.
    public var translation: Vector3
    /// RMS reprojection error of the fit, in pixels.
    public var reprojectionErrorPixels: Double

    public var rotation: Matrix3 { Matrix3.rotation(rodrigues: rotationVector) }

    /// Rotation about the camera's x axis, degrees: pitch = atan2(R21, R22).
    public var pitchDegrees: Double { let r = rotation; return atan2(r[2, 1], r[2, 2]) * 180 / .pi }
    /// Rotation about the camera's y axis, degrees: yaw = atan2(−R20, hypot(R00, R10)).
    public var yawDegrees: Double { let r = rotation; return atan2(-r[2, 0], hypot(r[0, 0], r[1, 0])) * 180 / .pi }
    /// Rotation about the camera's z axis, degrees: roll = atan2(R10, R00).
    public var rollDegrees: Double { let r = rotation; return atan2(r[1, 0], r[0, 0]) * 180 / .pi }
}

/// Estimates head pose from 2-D landmarks by PnP: Levenberg–Marquardt on the reprojection error.
///
/// Starts from a frontal pose placed by the face's size and position (and from the previous pose
/// when given), and keeps the fit with the smaller error. Pure Swift, no allocation per iteration
/// beyond small arrays; about 20–60 µs per frame for six points.
public struct HeadPoseEstimator: Sendable {
    public var model: FaceModel3D
    public var intrinsics: CameraIntrinsics
    public var maximumIterations: Int

    public init(model: FaceModel3D = .sixPoint, intrinsics: CameraIntrinsics, maximumIterations: Int = 100) {
        self.model = model
        self.intrinsics = intrinsics
        self.maximumIterations = maximumIterations
    }

    /// Solves for the pose of `landmarks`; `previous` seeds the search when tracking.
    public func estimate(_ landmarks: FaceLandmarks, previous: HeadPose? = nil) -> HeadPose {
        estimate(imagePoints: model.points.map { landmarks[$0.landmark] }, previous: previous)
    }

    /// Solves for the pose given the image position of each model point, in model order.
    public func estimate(imagePoints: [Point2], previous: HeadPose? = nil) -> HeadPose {
        precondition(imagePoints.count == model.points.count)
        var best = refine(initialGuess(imagePoints), imagePoints)
        if let previous {
            let tracked = refine([previous.rotationVector.x, previous.rotationVector.y, previous.rotationVector.z,
                                  previous.translation.x, previous.translation.y, previous.translation.z], imagePoints)
            if tracked.reprojectionErrorPixels < best.reprojectionErrorPixels { best = tracked }
        }
        return best
    }

    /// The RMS reprojection error (pixels) of `pose` for these landmarks.
    public func reprojectionError(_ pose: HeadPose, _ landmarks: FaceLandmarks) -> Double {
        let imagePoints = model.points.map { landmarks[$0.landmark] }
        var r = [Double](repeating: 0, count: 2 * imagePoints.count)
        residuals([pose.rotationVector.x, pose.rotationVector.y, pose.rotationVector.z,
                   pose.translation.x, pose.translation.y, pose.translation.z], imagePoints, into: &r)
        return (r.reduce(0) { $0 + $1 * $1 } / Double(imagePoints.count)).squareRoot()
    }

    /// A frontal pose whose depth matches the spread of the image points.
    private func initialGuess(_ imagePoints: [Point2]) -> [Double] {
        let modelCentre = model.points.reduce(Vector3(0, 0, 0)) { $0 + $1.position } * (1 / Double(model.points.count))
        let imageCentre = Point2.mean(imagePoints)
        var modelSpread = 0.0, imageSpread = 0.0
        for (index, point) in model.points.enumerated() {
            let d = point.position - modelCentre
            modelSpread += (d.x * d.x + d.y * d.y).squareRoot()
            imageSpread += imagePoints[index].distance(to: imageCentre)
        }
        let depth = intrinsics.focalLengthPixels * modelSpread / Swift.max(imageSpread, 1e-6)
        let tx = (imageCentre.x - intrinsics.centre.x) * depth / intrinsics.focalLengthPixels - modelCentre.x
        let ty = (imageCentre.y - intrinsics.centre.y) * depth / intrinsics.focalLengthPixels - modelCentre.y
        return [0, 0, 0, tx, ty, depth - modelCentre.z]
    }

    private func residuals(_ p: [Double], _ imagePoints: [Point2], into r: inout [Double]) {
        let rotation = Matrix3.rotation(rodrigues: Vector3(p[0], p[1], p[2]))
        let t = Vector3(p[3], p[4], p[5])
        for (index, point) in model.points.enumerated() {
            var camera = rotation * point.position + t
            if camera.z < 1e-6 { camera.z = 1e-6 }
            let projected = intrinsics.project(camera)
            r[2 * index] = projected.x - imagePoints[index].x
            r[2 * index + 1] = projected.y - imagePoints[index].y
        }
    }

    /// Levenberg–Marquardt with a numerical Jacobian.
    private func refine(_ start: [Double], _ imagePoints: [Point2]) -> HeadPose {
        let m = 2 * model.points.count
        var p = start
        var r = [Double](repeating: 0, count: m)
        var trial = r
        residuals(p, imagePoints, into: &r)
        var cost = r.reduce(0) { $0 + $1 * $1 }
        var lambda = 1e-3
        var jacobian = [Double](repeating: 0, count: m * 6)
        for _ in 0..<maximumIterations {
            // Jacobian by central differences.
            for k in 0..<6 {
                let step = k < 3 ? 1e-6 : Swift.max(1e-6 * abs(p[k]), 1e-4)
                var plus = p, minus = p
                plus[k] += step
                minus[k] -= step
                var rp = r, rm = r
                residuals(plus, imagePoints, into: &rp)
                residuals(minus, imagePoints, into: &rm)
                for i in 0..<m { jacobian[i * 6 + k] = (rp[i] - rm[i]) / (2 * step) }
            }
            // Normal equations JᵀJ and Jᵀr.
            var jtj = [Double](repeating: 0, count: 36)
            var jtr = [Double](repeating: 0, count: 6)
            for i in 0..<m {
                for a in 0..<6 {
                    let ja = jacobian[i * 6 + a]
                    jtr[a] += ja * r[i]
                    for b in a..<6 { jtj[a * 6 + b] += ja * jacobian[i * 6 + b] }
                }
            }
            for a in 0..<6 { for b in 0..<a { jtj[a * 6 + b] = jtj[b * 6 + a] } }
            var improved = false
            for _ in 0..<10 {
                var system = jtj
                for a in 0..<6 { system[a * 6 + a] *= 1 + lambda; system[a * 6 + a] += 1e-12 }
                guard let delta = solve6(system, jtr.map { -$0 }) else { lambda *= 10; continue }
                let candidate = zip(p, delta).map { $0 + $1 }
                residuals(candidate, imagePoints, into: &trial)
                let trialCost = trial.reduce(0) { $0 + $1 * $1 }
                if trialCost < cost {
                    let relative = (cost - trialCost) / Swift.max(cost, 1e-300)
                    p = candidate
                    swap(&r, &trial)
                    cost = trialCost
                    lambda = Swift.max(lambda / 10, 1e-12)
                    improved = true
                    if relative < 1e-14 || delta.allSatisfy({ abs($0) < 1e-12 }) { return pose(p, cost, m) }
                    break
                }
                lambda *= 10
            }
            if !improved || cost < 1e-20 { break }
        }
        return pose(p, cost, m)
    }

    private func pose(_ p: [Double], _ cost: Double, _ m: Int) -> HeadPose {
        HeadPose(rotationVector: Vector3(p[0], p[1], p[2]), translation: Vector3(p[3], p[4], p[5]),
                 reprojectionErrorPixels: (cost / Double(m / 2)).squareRoot())
    }
}

/// Solves a 6×6 linear system by Gaussian elimination with partial pivoting.
func solve6(_ a: [Double], _ b: [Double]) -> [Double]? {
    var m = a, v = b
    let n = 6
    for column in 0..<n {
        var pivot = column
        for row in (column + 1)..<n where abs(m[row * n + column]) > abs(m[pivot * n + column]) { pivot = row }
        guard abs(m[pivot * n + column]) > 1e-300 else { return nil }
        if pivot != column {
            for k in 0..<n { m.swapAt(column * n + k, pivot * n + k) }
            v.swapAt(column, pivot)
        }
        for row in (column + 1)..<n {
            let factor = m[row * n + column] / m[column * n + column]
            if factor == 0 { continue }
            for k in column..<n { m[row * n + k] -= factor * m[column * n + k] }
            v[row] -= factor * v[column]
        }
    }
    var x = [Double](repeating: 0, count: n)
    for row in stride(from: n - 1, through: 0, by: -1) {
        var sum = v[row]
        for k in (row + 1)..<n { sum -= m[row * n + k] * x[k] }
        x[row] = sum / m[row * n + row]
    }
    return x
}
