import BIDSExport
import GazeAnalysis
import GazeModel

/// A webcam recording made up the way gazerec records one: 30 frames a second with the jitter of
/// a USB camera, gaze dwelling on four targets with saccades between, a blink, a stretch without a
/// face, two markers, and fixations found by the I-DT detector.
enum ConstructedRecording {
    static let begin = 1_764_061_200.125
    static let geometry = ScreenGeometry(widthPoints: 1920, heightPoints: 1080, widthMillimetres: 527,
                                         heightMillimetres: 296, distanceMillimetres: 600)
    static let targets = [Point2(400, 300), Point2(1500, 320), Point2(1480, 820), Point2(420, 800)]

    /// A recording of `seconds` seconds; `seed` varies the jitter and noise.
    static func make(seconds: Double = 12, seed: UInt64 = 7, sessionID: String = "3BE54760-F1E8-4799-A3CB-78806270E72A")
        -> BIDSRecording {
        var random = SplitMix(state: seed)
        var frames: [FrameMeasurement] = []
        var gaze: [GazeSample] = []
        var time = 0.04
        while time < seconds {
            let face = !(5.0..<5.4).contains(time)
            let closed = (3.0..<3.15).contains(time)
            let stamp = begin + time
            let target = targets[min(Int(time / (seconds / 4)), 3)]
            if face {
                let openness = closed ? 0.08 + 0.05 * random.unit() : 0.92 + 0.06 * random.unit()
                let pose = HeadPoseMeasurement(yawDegrees: 2 + random.unit(), pitchDegrees: -3 + random.unit(),
                                               rollDegrees: 0.5 * random.unit(), translation: Vector3(4, -12, 580 + 5 * random.unit()))
                frames.append(FrameMeasurement(
                    timestampSeconds: stamp, trackingState: time < 0.3 ? .initializing : .normal, confidence: 0.93,
                    opennessLeft: openness, opennessRight: openness + 0.01,
                    pupilLeft: closed ? nil : Point2(0.48 + 0.05 * random.unit(), 0.02 * random.unit()),
                    pupilRight: closed ? nil : Point2(0.51 + 0.05 * random.unit(), 0.02 * random.unit()), headPose: pose))
                if !closed {
                    gaze.append(GazeSample(timestampSeconds: stamp, x: target.x + 18 * random.unit(),
                                           y: target.y + 18 * random.unit(), orientation: 0))
                }
            } else {
                frames.append(FrameMeasurement(timestampSeconds: stamp, trackingState: .missing, confidence: 0))
            }
            time += 1.0 / 30 + 0.004 * (random.unit() - 0.5)
        }
        let detector = FixationDetector(pointsPerDegree: geometry.pointsPerDegree)
        return BIDSRecording(
            sessionID: sessionID, appID: "reading-study", beginSeconds: begin, endSeconds: begin + seconds,
            screenWidthPoints: 1920, screenHeightPoints: 1080, geometry: geometry, deviceModel: "Logitech C920",
            nominalFramesPerSecond: 30,
            calibration: BIDSCalibration(count: 1, type: "HV9", averageErrorDegrees: 1.4,
                                         targetPoints: [Point2(96, 54), Point2(960, 540), Point2(1824, 1026)]),
            gaze: gaze, frames: frames,
            blinks: [BlinkEvent(startSeconds: begin + 3.0, endSeconds: begin + 3.16, eyes: .both, kind: .blink, minimumOpenness: 0.08)],
            markers: [Marker(timestampSeconds: begin + 0.5, label: "stimulus A on"),
                      Marker(timestampSeconds: begin + 6.0, label: "stimulus B on", dataJSON: #"{"trial":2}"#)],
            fixations: detector.detect(gaze).fixations)
    }
}

extension ConstructedRecording {
    /// `recording` as recorded with expressions: each frame with a face has the seven probabilities
    /// (summing to 1), and every frame with a face but each tenth one its smile.
    static func withExpressions(_ recording: BIDSRecording, seed: UInt64 = 13) -> BIDSRecording {
        var random = SplitMix(state: seed)
        var with = recording
        for (index, frame) in recording.frames.enumerated() where frame.hasFace {
            let raw = (0..<ExpressionName.allCases.count).map { _ in 0.01 + random.unit() }
            let total = raw.reduce(0, +)
            with.expressions.append(ExpressionSample(timestampSeconds: frame.timestampSeconds,
                                                     probabilities: ExpressionProbabilities(values: raw.map { $0 / total })))
            if index % 10 != 0 { with.smile.append((frame.timestampSeconds, random.unit())) }
        }
        return with
    }
}

/// A small deterministic generator (SplitMix64), so every run constructs the same recording.
struct SplitMix {
    var state: UInt64

    /// A number in [0, 1).
    mutating func unit() -> Double {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Double((z ^ (z >> 31)) >> 11) / Double(1 << 53)
    }
}
