import GazeCapture
import GazeCore
import GazeModel

/// The ranges a seating must be in before calibrating: one settable set, documented with the
/// measurements behind each default in docs/Recording.md ("Seating the participant").
public struct SeatingThresholds: Sendable, Equatable {
    /// The eyes' width (corner to corner, mean of both eyes) in pixels, at least.
    public var minimumEyeWidthPixels: Double = 11
    /// The head's distance from the camera (the head pose's depth), millimetres.
    public var distanceRangeMillimetres: ClosedRange<Double> = 400...900
    /// The face's mean luma, 0 (black) … 1 (white).
    public var brightnessRange: ClosedRange<Double> = 0.15...0.85
    /// The face's contrast (standard deviation of its luma, 0…0.5), at least.
    public var minimumContrast: Double = 0.05
    /// How much brighter the picture around the face may be than the face (difference of mean
    /// luma, 0…1) before the light counts as behind the participant.
    public var maximumBacklight: Double = 0.3
    /// The share of saturated pixels in the eye patches (glasses reflecting the screen), at most.
    public var maximumGlare: Double = 0.05
    /// Head yaw and pitch, degrees either way, at most (signs as in the recorded frames: yaw
    /// positive towards the picture's left, pitch positive chin up). A camera below the eyes sees
    /// a face looking at the screen pitched up 15–20°.
    public var maximumYawDegrees: Double = 10
    public var maximumPitchDegrees: Double = 25
    /// The room the face needs on every side inside the picture, in face widths (head turns
    /// and moves in a session carry the face this far).
    public var marginFaceWidths: Double = 0.25

    public init() {}
}

/// One frame's seating figures, measured on the pipeline's own landmarks, pose and eye patches.
public struct SeatingMeasurement: Sendable {
    /// The landmarks' bounding box in pixels (x, y from the picture's top left).
    public var faceBox: (minX: Double, minY: Double, maxX: Double, maxY: Double)
    public var faceWidthPixels: Double
    public var eyeWidthPixels: Double
    public var distanceMillimetres: Double?
    public var yawDegrees: Double?
    public var pitchDegrees: Double?
    public var brightness: Double
    public var contrast: Double
    /// Mean luma of the picture around the face box, 0…1.
    public var backgroundBrightness: Double
    public var glare: Double?

    /// The figures of a frame with a face and its image (nil otherwise).
    public init?(_ features: FrameFeatures) {
        guard let face = features.face, let image = features.image else { return nil }
        let landmarks = face.landmarks
        let bounds = landmarks.bounds
        faceBox = (bounds.min.x, bounds.min.y, bounds.max.x, bounds.max.y)
        faceWidthPixels = bounds.max.x - bounds.min.x
        eyeWidthPixels = Eye.allCases.map { eye in
            let corners = landmarks.corners(of: eye)
            return corners.imageLeft.distance(to: corners.imageRight)
        }.reduce(0, +) / 2
        distanceMillimetres = features.headPose?.translation.z
        yawDegrees = features.headPose?.yawDegrees
        pitchDegrees = features.headPose?.pitchDegrees
        let light = FaceLight(in: image, box: faceBox)
        (brightness, contrast, backgroundBrightness) = (light.face, light.contrast, light.background)
        glare = features.appearance.map { FaceLight.saturatedShare($0.patches, from: Self.saturatedLevel) }
    }

    /// The gray level from which an eye-patch pixel counts as saturated.
    public static let saturatedLevel: UInt8 = 250
}
