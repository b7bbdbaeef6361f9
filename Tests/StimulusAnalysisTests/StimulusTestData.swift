import GazeAnalysis
import GazeModel
@testable import StimulusAnalysis

/// Constructed sessions with exactly known answers: samples every 1/32 s (exact in binary) from
/// Unix time 1000, a stimulus of 320×180 pixels shown at (100, 50) in a 640×360-point rectangle
/// (2 screen points per stimulus pixel).
enum StimulusTestData {
    static let step = 1.0 / 32
    static let begin = 1000.0

    static func placement() throws -> StimulusPlacement {
        try StimulusPlacement(screenX: 100, screenY: 50, screenWidth: 640, screenHeight: 360, widthPixels: 320, heightPixels: 180)
    }

    /// The screen point showing stimulus pixel `pixel`.
    static func screen(_ pixel: Point2) -> Point2 { Point2(100 + 2 * pixel.x, 50 + 2 * pixel.y) }

    /// Gaze every step over `[0, seconds)` of stimulus time at the stimulus pixel `pixelAt(t)`
    /// (nil: a screen point far off the stimulus).
    static func gaze(seconds: Double, _ pixelAt: (Double) -> Point2?) -> [GazeSample] {
        (0..<Int(seconds / step)).map { index in
            let t = Double(index) * step
            let point = pixelAt(t).map(screen) ?? Point2(5, 5)
            return GazeSample(timestampSeconds: begin + t, x: point.x, y: point.y, orientation: 3)
        }
    }

    /// Expression samples every step over `[0, seconds)`, `happy` dominant where `happyAt(t)`, else neutral.
    static func expressions(seconds: Double, _ happyAt: (Double) -> Bool) -> [ExpressionSample] {
        (0..<Int(seconds / step)).map { index in
            let t = Double(index) * step
            let values = happyAt(t) ? [0.1, 0.8, 0.02, 0.02, 0.02, 0.02, 0.02] : [0.8, 0.1, 0.02, 0.02, 0.02, 0.02, 0.02]
            return ExpressionSample(timestampSeconds: begin + t, probabilities: ExpressionProbabilities(values: values))
        }
    }

    static func viewing(_ id: String, seconds: Double, gaze: [GazeSample], expressions: [ExpressionSample] = [],
                        blinks: [BlinkEvent] = [], smile: [(timestampSeconds: Double, value: Double)] = []) throws -> StimulusViewing {
        StimulusViewing(sessionID: id, placement: try placement(), startSeconds: begin, endSeconds: begin + seconds, gaze: gaze,
                        detector: FixationDetector(pointsPerDegree: 40), blinks: blinks, expressions: expressions, smile: smile)
    }
}
