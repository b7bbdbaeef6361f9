import GazeModel

/// A face's 68 landmarks brought to a frontal pose: where each point would be, in millimetres of
/// the mean face (`FaceModel3D.meanShape`'s axes: x to the image's right, y down), had the head
/// looked straight into the camera.
///
/// The method (docs/BlendShapes.md): place the mean face by the fitted head pose, fit the pinhole
/// camera (focal length and centre) that best projects its skull-fixed points (nose 27–35 and the
/// four eye corners) onto the landmarks, then carry every landmark back along its camera ray to
/// the depth the posed mean face has at that point, and undo the pose. Yaw, pitch and roll, the face's size in the image and
/// its position leave the result unchanged; what remains is the face's own shape: identity and
/// expression, which a participant's neutral face (`BlendShapeNeutral`) separates.
public struct FrontalFace: Sendable, Equatable {
    /// The 68 points, in millimetres of the mean face.
    public var points: [Point2]

    /// The points the scale and the offset are fitted on: they move with the skull, not with expressions.
    static let anchors = [Int](27...35) + [36, 39, 42, 45]

    public init(points: [Point2]) {
        precondition(points.count == FaceLandmarks.count)
        self.points = points
    }

    /// The mean face itself (the generic neutral face).
    public static let mean = FrontalFace(points: (0..<FaceLandmarks.count).map { index in
        let point = FaceModel3D.meanShape.points[index].position
        return Point2(point.x, point.y)
    })

    /// Brings `landmarks` (pixels) to the frontal pose through `pose`, the head pose fitted to them.
    ///
    /// The face is placed by the pose of the mean face's rigid points (`FaceModel3D.rigid`: brows,
    /// nose, eye corners, mouth corners), refined from `pose` in the camera it implies: the shapes'
    /// bounds were set with that placement, which takes the participant's brows and mouth into the
    /// fit. The recorded head pose leaves them out (`FaceModel3D.noseAndEyeCorners`) so that an
    /// expression cannot move it; placed by that pose, a turned head's brows read raised (median
    /// `browOuterUp_R` 0.48 on `cap12_edit`'s turned frames against 0.26).
    public init(landmarks: FaceLandmarks, pose measured: HeadPose) {
        let implied = Self.camera(landmarks, Self.posed(measured))
        let pose = HeadPoseEstimator(model: .rigid, intrinsics: implied).estimate(landmarks, previous: measured)
        let rotation = pose.rotation
        let posed = Self.posed(pose)
        let camera = Self.camera(landmarks, posed)
        let inverse = rotation.transposed
        points = (0..<FaceLandmarks.count).map { index in
            // Along the landmark's ray to the posed mean face's depth there, then back to the model's axes.
            let depth = posed[index].z
            let ray = (landmarks[index] - camera.centre) * (depth / camera.focalLengthPixels)
            let model = inverse * (Vector3(ray.x, ray.y, depth) - pose.translation)
            return Point2(model.x, model.y)
        }
    }

    /// The mean face's 68 points placed by `pose`, camera axes.
    static func posed(_ pose: HeadPose) -> [Vector3] {
        let rotation = pose.rotation
        return FaceModel3D.meanShape.points.map { rotation * $0.position + pose.translation }
    }

    /// The pinhole camera that best projects the posed mean face's anchors onto the landmarks:
    /// least squares of landmark = f · (x/z, y/z) + centre, linear in f and the centre. It is the
    /// camera the pose was fitted with, up to the fit's residuals, so no intrinsics need passing.
    static func camera(_ landmarks: FaceLandmarks, _ posed: [Vector3]) -> CameraIntrinsics {
        let image = anchors.map { landmarks[$0] }
        let projected = anchors.map { Point2(posed[$0].x / Swift.max(posed[$0].z, 1e-9), posed[$0].y / Swift.max(posed[$0].z, 1e-9)) }
        let imageCentre = Point2.mean(image), projectedCentre = Point2.mean(projected)
        var product = 0.0, norm = 0.0
        for (p, q) in zip(image, projected) {
            let a = p - imageCentre, b = q - projectedCentre
            product += a.x * b.x + a.y * b.y
            norm += b.x * b.x + b.y * b.y
        }
        let focal = Swift.max(product / Swift.max(norm, 1e-18), 1e-9)
        return CameraIntrinsics(focalLengthPixels: focal, centre: imageCentre - projectedCentre * focal)
    }

    public subscript(index: Int) -> Point2 { points[index] }
}

/// The participant's own neutral face, learned from a recording's first frames the way
/// `BlendShapeRest` learns the gaze's rest, so the expression shapes read about 0 on that face.
///
/// The neutral is the per-coordinate median of the frontal faces (`FrontalFace`) of the first
/// `frames` steadily tracked frames whose head is within ±20° of frontal in yaw and pitch (the
/// frontal pose is measured best there); until then, the median of those seen so far. It is then
/// fixed for the session. Before any such frame, `face` is nil and the shapes use the mean face.
public struct BlendShapeNeutral: Sendable {
    public let frames: Int
    /// The largest yaw and pitch, in degrees, of a frame the neutral learns from.
    public static let maximumAngleDegrees = 20.0
    private var seen: [FrontalFace] = []
    public private(set) var face: FrontalFace?

    public init(frames: Int = 45) {
        precondition(frames >= 1)
        self.frames = frames
    }

    /// Whether the neutral has seen all its frames and is fixed.
    public var isComplete: Bool { seen.count >= frames }

    /// Takes one frame into the neutral while it is being learned.
    public mutating func observe(_ features: FrameFeatures) {
        guard !isComplete, features.trackingState == .normal, !features.blinking,
              let landmarks = features.face?.landmarks, let pose = features.headPose,
              abs(pose.yawDegrees) <= Self.maximumAngleDegrees, abs(pose.pitchDegrees) <= Self.maximumAngleDegrees
        else { return }
        observe(FrontalFace(landmarks: landmarks, pose: pose))
    }

    /// Takes one frontal face into the neutral while it is being learned.
    public mutating func observe(_ frontal: FrontalFace) {
        guard !isComplete else { return }
        seen.append(frontal)
        face = FrontalFace(points: (0..<FaceLandmarks.count).map { index in
            Point2(median(seen.map { $0[index].x }), median(seen.map { $0[index].y }))
        })
    }
}
