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

    /// The model gazerec measures head pose with (`HeadPoseModelName.current`): `meanShape`'s
    /// nose (27–35) and four eye corners (36, 39, 42, 45), the points that move with the skull and
    /// with no expression. The brows (they rise in surprise: a raise of a tenth of the eye-corner
    /// distance read as a 6.5° nod in `rigid`), the mouth corners (a smile lifts them), the jaw
    /// line (a silhouette that slides as the head turns, and what a hand at the chin covers), the
    /// eyelids and the lips are left out (docs/ExportFormat.md has the measurements).
    public static let noseAndEyeCorners = meanShape.subset([Int](27...35) + [36, 39, 42, 45])

    /// The model of `HeadPoseModelName.rigidPoints`, this version's predecessor, kept for the
    /// calibrations made with it: brows 17–26, nose 27–35, the four eye corners, the mouth corners.
    public static let rigid = meanShape.subset([Int](17...35) + [36, 39, 42, 45, 48, 54])

    /// The model a head pose model's name stands for; nil for one gazerec no longer measures with
    /// (the six-point model of earlier versions, whose pitch had the other sign).
    public static func named(_ name: String) -> FaceModel3D? {
        switch name {
        case HeadPoseModelName.current: noseAndEyeCorners
        case HeadPoseModelName.rigidPoints: rigid
        default: nil
        }
    }

    /// The points with these landmark indices, in that order.
    public func subset(_ landmarks: [Int]) -> FaceModel3D {
        FaceModel3D(points: landmarks.map { index in points.first { $0.landmark == index }! })
    }

    /// dlib's 68 points on a mean face, in millimetres, in camera axes for a face looking into
    /// the camera (x to the image's right, y down, z away from the camera), origin midway between
    /// the four eye corners, outer eye corners 90 mm apart (the adult mean biocular breadth).
    ///
    /// Made by Scripts/derive-face-model.sh: each dlib point of 102 faces of the shared fixtures
    /// (two portraits and frames of both webcam clips) takes the depth MediaPipe FaceMesh
    /// (Apache-2.0) gives the face there; the faces are aligned (generalised Procrustes) to the
    /// frontal portrait `sergey.png`, whose pose defines pitch, yaw and roll 0.
    public static let meanShape = FaceModel3D(points: [
        (0, Vector3(-74.24, 5.64, 43.45)),
        (1, Vector3(-72.26, 24.46, 44.88)),
        (2, Vector3(-69.36, 43.33, 42.66)),
        (3, Vector3(-65.55, 61.63, 41.28)),
        (4, Vector3(-59.10, 79.40, 36.67)),
        (5, Vector3(-49.44, 96.71, 24.57)),
        (6, Vector3(-35.98, 109.83, 15.89)),
        (7, Vector3(-19.87, 119.61, 6.51)),
        (8, Vector3(-0.58, 122.72, 4.40)),
        (9, Vector3(18.25, 119.66, 6.41)),
        (10, Vector3(33.66, 109.09, 14.89)),
        (11, Vector3(46.31, 95.70, 23.12)),
        (12, Vector3(55.47, 77.90, 35.98)),
        (13, Vector3(60.49, 61.19, 36.80)),
        (14, Vector3(63.37, 43.63, 36.32)),
        (15, Vector3(66.05, 25.09, 38.58)),
        (16, Vector3(67.27, 7.74, 37.25)),
        (17, Vector3(-59.60, -16.65, 12.15)),
        (18, Vector3(-51.02, -23.13, -2.40)),
        (19, Vector3(-37.60, -24.16, -12.54)),
        (20, Vector3(-23.65, -22.23, -17.11)),
        (21, Vector3(-10.16, -17.66, -18.91)),
        (22, Vector3(11.64, -18.66, -19.28)),
        (23, Vector3(24.17, -24.06, -17.01)),
        (24, Vector3(37.63, -26.01, -12.29)),
        (25, Vector3(50.52, -24.61, -1.43)),
        (26, Vector3(58.02, -16.42, 9.95)),
        (27, Vector3(0.25, -4.89, -18.76)),
        (28, Vector3(-0.03, 6.63, -23.81)),
        (29, Vector3(-0.45, 18.75, -32.39)),
        (30, Vector3(-0.83, 31.45, -39.30)),
        (31, Vector3(-14.84, 43.19, -19.33)),
        (32, Vector3(-7.77, 44.93, -21.38)),
        (33, Vector3(-0.58, 46.84, -24.80)),
        (34, Vector3(6.41, 45.67, -23.68)),
        (35, Vector3(13.53, 43.42, -18.91)),
        (36, Vector3(-45.18, 0.26, 2.25)),
        (37, Vector3(-37.41, -3.48, -4.33)),
        (38, Vector3(-28.19, -4.27, -6.08)),
        (39, Vector3(-19.51, -0.42, -2.88)),
        (40, Vector3(-27.95, 2.67, -4.28)),
        (41, Vector3(-37.06, 3.19, -2.38)),
        (42, Vector3(19.87, -0.42, -2.13)),
        (43, Vector3(28.67, -4.22, -5.28)),
        (44, Vector3(37.76, -3.86, -3.47)),
        (45, Vector3(44.82, 0.58, 2.76)),
        (46, Vector3(37.37, 3.59, -1.47)),
        (47, Vector3(28.24, 2.83, -3.50)),
        (48, Vector3(-26.49, 73.24, -3.73)),
        (49, Vector3(-17.42, 65.88, -15.03)),
        (50, Vector3(-7.76, 62.19, -21.09)),
        (51, Vector3(-0.94, 64.39, -21.70)),
        (52, Vector3(6.05, 62.72, -21.81)),
        (53, Vector3(15.55, 66.66, -15.58)),
        (54, Vector3(24.56, 73.90, -4.30)),
        (55, Vector3(15.68, 81.87, -11.65)),
        (56, Vector3(6.60, 85.09, -14.25)),
        (57, Vector3(-0.77, 85.50, -14.33)),
        (58, Vector3(-8.01, 84.82, -13.72)),
        (59, Vector3(-17.53, 81.07, -10.07)),
        (60, Vector3(-22.02, 72.49, -5.04)),
        (61, Vector3(-7.55, 69.69, -15.86)),
        (62, Vector3(-0.74, 70.59, -17.09)),
        (63, Vector3(6.32, 70.06, -16.33)),
        (64, Vector3(19.97, 73.58, -7.29)),
        (65, Vector3(6.26, 74.11, -14.67)),
        (66, Vector3(-0.83, 74.83, -15.34)),
        (67, Vector3(-7.61, 73.67, -13.96)),
    ])

    /// The common six-point model (nose tip at the origin, units ≈ 0.2 mm): nose tip 30, chin 8,
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
    /// Translation of the model's origin in model units (millimetres for the mean face's models), camera axes.
    public var translation: Vector3
    /// RMS reprojection error of the fit, in pixels.
    public var reprojectionErrorPixels: Double

    public var rotation: Matrix3 { Matrix3.rotation(rodrigues: rotationVector) }

    /// Rotation about the camera's x axis, degrees, positive when the face tilts up (chin up, the
    /// head-pose datasets' sign): pitch = −atan2(R21, R22), the opposite of OpenCV's Euler angle.
    public var pitchDegrees: Double { let r = rotation; return -atan2(r[2, 1], r[2, 2]) * 180 / .pi }
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

    public init(model: FaceModel3D = .noseAndEyeCorners, intrinsics: CameraIntrinsics, maximumIterations: Int = 100) {
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

    /// Levenberg–Marquardt with a numerical Jacobian. The buffers are made once per call and
    /// overwritten, not copied per evaluation: the arithmetic is the same either way.
    private func refine(_ start: [Double], _ imagePoints: [Point2]) -> HeadPose {
        let m = 2 * model.points.count
        var p = start
        var r = [Double](repeating: 0, count: m)
        var trial = r, rp = r, rm = r
        var shifted = p, candidate = p, negated = p
        residuals(p, imagePoints, into: &r)
        var cost = r.reduce(0) { $0 + $1 * $1 }
        var lambda = 1e-3
        var jacobian = [Double](repeating: 0, count: m * 6)
        var jtj = [Double](repeating: 0, count: 36), system = jtj
        var jtr = [Double](repeating: 0, count: 6)
        for _ in 0..<maximumIterations {
            // Jacobian by central differences.
            for k in 0..<6 {
                let step = k < 3 ? 1e-6 : Swift.max(1e-6 * abs(p[k]), 1e-4)
                for a in 0..<6 { shifted[a] = p[a] }  // element by element: `shifted = p` would share, then copy
                shifted[k] += step
                residuals(shifted, imagePoints, into: &rp)
                shifted[k] = p[k] - step
                residuals(shifted, imagePoints, into: &rm)
                for i in 0..<m { jacobian[i * 6 + k] = (rp[i] - rm[i]) / (2 * step) }
            }
            // Normal equations JᵀJ and Jᵀr.
            for a in 0..<36 { jtj[a] = 0 }
            for a in 0..<6 { jtr[a] = 0 }
            for i in 0..<m {
                for a in 0..<6 {
                    let ja = jacobian[i * 6 + a]
                    jtr[a] += ja * r[i]
                    for b in a..<6 { jtj[a * 6 + b] += ja * jacobian[i * 6 + b] }
                }
            }
            for a in 0..<6 { for b in 0..<a { jtj[a * 6 + b] = jtj[b * 6 + a] } }
            for a in 0..<6 { negated[a] = -jtr[a] }
            var improved = false
            for _ in 0..<10 {
                system = jtj
                for a in 0..<6 { system[a * 6 + a] *= 1 + lambda; system[a * 6 + a] += 1e-12 }
                guard let delta = solve6(system, negated) else { lambda *= 10; continue }
                for a in 0..<6 { candidate[a] = p[a] + delta[a] }
                residuals(candidate, imagePoints, into: &trial)
                let trialCost = trial.reduce(0) { $0 + $1 * $1 }
                if trialCost < cost {
                    let relative = (cost - trialCost) / Swift.max(cost, 1e-300)
                    swap(&p, &candidate)
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
