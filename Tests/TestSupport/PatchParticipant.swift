import GazeCalibration
import GazeModel

/// A participant whose eye patches carry the target (two fixed random patterns, one per screen
/// axis, with noise) and whose pupils move linearly with it.
public struct PatchParticipant {
    public var generator: SeededGenerator
    let patternX: [Double], patternY: [Double]

    public init(seed: UInt64) {
        var generator = SeededGenerator(state: seed)
        patternX = (0..<256).map { _ in Double.random(in: -1...1, using: &generator) }
        patternY = (0..<256).map { _ in Double.random(in: -1...1, using: &generator) }
        self.generator = generator
    }

    /// The nine-target layout's calibration targets, 36 frames each, looking at them with open
    /// eyes and steady tracking, with pupils when `pupilsElsewhere` — but for target
    /// `shortForPatches`: a pupil in every frame (moved aside by `shortPupilShift`), 16 of its
    /// frames blinks and 14 of the open ones unsteady, so 6 are steady with the eyes open.
    public mutating func nineTargets(shortForPatches short: Int, shortPupilShift: Double = 0, pupilsElsewhere: Bool)
        -> [CalibrationPointSamples] {
        CalibrationLayout.nine.calibrationFractions.map { Point2($0.x * 1920, $0.y * 1080) }.enumerated().map { index, target in
            CalibrationPointSamples(target: target, samples: (0..<36).map { k in
                index == short
                    ? frame(target, pupil: true, pupilShift: shortPupilShift, openness: k < 16 ? 0.05 : 0.9, steady: k < 16 || k >= 30)
                    : frame(target, pupil: pupilsElsewhere, openness: 0.9, steady: true)
            })
        }
    }

    /// One frame looking at `target` (on a 1920 × 1080 screen): with a pupil (moved aside by
    /// `pupilShift` of the eye's width, or held at `stillPupil` whatever the target) or none, the
    /// eyes' openness, and whether tracking was steady.
    public mutating func frame(_ target: Point2, pupil: Bool, pupilShift: Double = 0, stillPupil: Point2? = nil, openness: Double,
                               steady: Bool) -> GazeFeatures {
        let fx = target.x / 1920 - 0.5, fy = target.y / 1080 - 0.5
        let patches = (0..<256).map { k in
            UInt8(max(0, min(255, (128 + 60 * fx * patternX[k] + 60 * fy * patternY[k] + generator.gaussian(1)).rounded())))
        }
        var landmarks = [Float](repeating: 0, count: 136)
        for index in 0..<68 {
            landmarks[2 * index] = Float(200 + 4 * Double(index % 17))
            landmarks[2 * index + 1] = Float(180 + 5 * Double(index / 17))
        }
        for (index, x) in [(36, 220.0), (39, 240.0), (42, 280.0), (45, 300.0)] {
            landmarks[2 * index] = Float(x)
            landmarks[2 * index + 1] = 200
        }
        let moving = Point2(0.5 + 0.2 * fx + pupilShift + generator.gaussian(0.002), 0.1 + 0.2 * fy + generator.gaussian(0.002))
        let point = pupil ? stillPupil ?? moving : nil
        return GazeFeatures(timestampSeconds: 0, pupilLeft: point, pupilRight: point, yawDegrees: generator.gaussian(0.5),
                            pitchDegrees: generator.gaussian(0.5), headX: 0, headY: 0, trackingNormal: steady,
                            opennessLeft: openness, opennessRight: openness,
                            appearance: EyeAppearance(landmarks: landmarks, patches: patches))
    }
}
