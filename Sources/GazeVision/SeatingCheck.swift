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
        let light = Self.light(in: image, box: faceBox)
        (brightness, contrast, backgroundBrightness) = (light.face, light.contrast, light.background)
        glare = features.appearance.map { appearance in
            Double(appearance.patches.reduce(0) { $0 + ($1 >= Self.saturatedLevel ? 1 : 0) }) / Double(appearance.patches.count)
        }
    }

    /// The gray level from which an eye-patch pixel counts as saturated.
    public static let saturatedLevel: UInt8 = 250

    /// The face box's mean luma and its standard deviation, and the mean luma around it, all over
    /// 255, from a grid of about 32 × 32 samples in the box and 32 × 24 in the picture (cheap
    /// beside the landmark fit).
    static func light(in image: GrayImage, box: (minX: Double, minY: Double, maxX: Double, maxY: Double))
        -> (face: Double, contrast: Double, background: Double) {
        let x0 = max(0, Int(box.minX)), x1 = min(image.width - 1, Int(box.maxX))
        let y0 = max(0, Int(box.minY)), y1 = min(image.height - 1, Int(box.maxY))
        var sum = 0.0, squares = 0.0, count = 0.0
        if x1 > x0, y1 > y0 {
            let stepX = max(1, (x1 - x0) / 32), stepY = max(1, (y1 - y0) / 32)
            for y in stride(from: y0, through: y1, by: stepY) {
                for x in stride(from: x0, through: x1, by: stepX) {
                    let value = Double(image[x, y]) / 255
                    sum += value
                    squares += value * value
                    count += 1
                }
            }
        }
        let mean = count > 0 ? sum / count : 0
        let deviation = count > 0 ? max(0, squares / count - mean * mean).squareRoot() : 0
        var outside = 0.0, outsideCount = 0.0
        let stepX = max(1, image.width / 32), stepY = max(1, image.height / 24)
        for y in stride(from: stepY / 2, to: image.height, by: stepY) {
            for x in stride(from: stepX / 2, to: image.width, by: stepX) where !(x0...max(x0, x1)).contains(x)
                || !(y0...max(y0, y1)).contains(y) {
                outside += Double(image[x, y]) / 255
                outsideCount += 1
            }
        }
        return (mean, deviation, outsideCount > 0 ? outside / outsideCount : mean)
    }
}
