import Foundation
import GazeCore
import GazeModel

/// What is wrong with a seating, most important first (the order of the cases).
public enum SeatingAdvice: Sendable, Equatable {
    /// No face found in the second: not in view, or too far away to be found.
    case noFace
    /// No face found as the picture stands, but one in the picture turned clockwise by this many
    /// degrees (`NoFaceProbe`): the camera is mounted sideways or upside down.
    case pictureTurned(clockwiseDegrees: Int)
    /// No face followed, but one under the detector's window in view: too far from the camera.
    case tooFarToFind
    /// The face (with its margin) leaves the picture at this edge of the picture: "left", "right",
    /// "top", "bottom" (of the picture as analysed, the participant's left on its right).
    case centre(edge: String)
    case faceTheScreen(yawDegrees: Double, pitchDegrees: Double, maximumYaw: Double, maximumPitch: Double)
    case closerForEyes(eyeWidthPixels: Double, wanted: Double)
    case closer(distanceMillimetres: Double, farthest: Double)
    case back(distanceMillimetres: Double, nearest: Double)
    case backlit(face: Double, background: Double)
    case moreLight(brightness: Double, wanted: Double)
    case lessLight(brightness: Double, wanted: Double)
    case flatLight(contrast: Double, wanted: Double)
    case glare(share: Double, allowed: Double)

    /// One line for the participant or the researcher.
    public var text: String {
        switch self {
        case .noFace:
            return "no face found: sit in front of the camera, facing the screen; if you are, come closer "
                + "(a face far from the camera is too small to find)"
        case .pictureTurned(let degrees):
            return "the picture is turned: a face is found only with it turned \(degrees)° clockwise (a camera mounted "
                + "sideways or upside down); turn the camera, or the frames \(degrees)° clockwise"
        case .tooFarToFind:
            return "come closer: a face is in view but too small to follow"
        case let .faceTheScreen(yaw, pitch, maximumYaw, maximumPitch):
            // Yaw is positive turned to the participant's right, pitch positive chin up.
            if abs(yaw) / maximumYaw >= abs(pitch) / maximumPitch {
                return "face the screen: turn your head to your \(yaw > 0 ? "left" : "right"); it is turned "
                    + "\(Self.beyond(abs(yaw), maximumYaw))° to your \(yaw > 0 ? "right" : "left"), more than the "
                    + "\(Self.whole(maximumYaw))° allowed"
            }
            return "face the screen: \(pitch > 0 ? "lower your chin" : "raise your chin"); the head is tilted "
                + "\(Self.beyond(abs(pitch), maximumPitch))° \(pitch > 0 ? "up" : "down"), more than the "
                + "\(Self.whole(maximumPitch))° allowed"
        case let .closerForEyes(width, wanted):
            return "move closer: the eyes are \(Self.whole(width)) px wide, \(Self.whole(wanted)) wanted"
        case let .closer(distance, farthest):
            return "move closer: the head is \(Self.whole(distance)) mm from the camera, \(Self.whole(farthest)) at most"
        case let .back(distance, nearest):
            return "move back: the head is \(Self.whole(distance)) mm from the camera, \(Self.whole(nearest)) at least"
        case .centre(let edge):
            return "centre the face: \(Self.move(awayFrom: edge)); it is too near the picture's \(edge) edge for head turns"
        case let .backlit(face, background):
            return "turn the light towards you: the light is behind you (face \(Self.fraction(face)), "
                + "around it \(Self.fraction(background)))"
        case let .moreLight(brightness, wanted):
            return "turn the light towards you: the face is dark (brightness \(Self.fraction(brightness)), "
                + "\(Self.fraction(wanted)) wanted)"
        case let .lessLight(brightness, wanted):
            return "less light on the face: it is washed out (brightness \(Self.fraction(brightness)), "
                + "\(Self.fraction(wanted)) at most)"
        case let .flatLight(contrast, wanted):
            return "turn the light towards you: the face is flat (contrast \(Self.fraction(contrast)), "
                + "\(Self.fraction(wanted)) wanted)"
        case let .glare(share, allowed):
            return "tilt the screen: the glasses reflect it (\(Self.whole(100 * share)) % of the eyes saturated, "
                + "\(Self.whole(100 * allowed)) % at most)"
        }
    }

    private static func whole(_ value: Double) -> String { String(Int(value.rounded())) }

    /// `value`, which is beyond `limit`, in whole degrees, or with a tenth where whole degrees
    /// would read as the limit itself (25.3 beside a limit of 25, not 25).
    static func beyond(_ value: Double, _ limit: Double) -> String {
        value.rounded() > limit.rounded() ? whole(value) : String(format: "%.1f", value)
    }

    /// Which way the participant moves to bring the face away from the picture's `edge`, in the
    /// participant's own left and right: in the picture as analysed (a camera's view, not a
    /// mirror; `--mirror` turns a mirrored one back first) the participant's left is on the right.
    static func move(awayFrom edge: String) -> String {
        switch edge {
        case "left": return "move to your left"
        case "right": return "move to your right"
        case "top": return "move down a little (or aim the camera higher)"
        default: return "move up a little (or aim the camera lower)"
        }
    }
    private static func fraction(_ value: Double) -> String { String(format: "%.2f", value) }
}

/// A second of seating: the medians of its frames with a face, whether it is in range, and why not.
public struct SeatingReport: Sendable {
    /// Seconds from the first frame to the end of the span this report covers.
    public var timeSeconds: Double
    /// The span's length in seconds (1 but for a last, shorter one).
    public var spanSeconds: Double
    /// Whether a face was found in at least half of the span's frames.
    public var face: Bool
    /// Medians over the frames with a face (nil without a face).
    public var faceWidthPixels: Double?
    public var eyeWidthPixels: Double?
    public var distanceMillimetres: Double?
    public var yawDegrees: Double?
    public var pitchDegrees: Double?
    public var brightness: Double?
    public var contrast: Double?
    public var backgroundBrightness: Double?
    public var glare: Double?
    /// The face box of the span's last frame with a face, in pixels.
    public var faceBox: (minX: Double, minY: Double, maxX: Double, maxY: Double)?
    /// The face with its margin inside the picture.
    public var centred: Bool
    /// Everything out of range, most important first (empty: ok).
    public var advice: [SeatingAdvice]

    public var ok: Bool { advice.isEmpty }

    /// Words a second without a face by what the `NoFaceProbe` found in it: a turned picture, or a
    /// face too far away (unchanged without a finding, or for a second with a face).
    public mutating func explainNoFace(_ finding: NoFaceFinding?) {
        guard !face, let finding else { return }
        switch finding {
        case .turned(let degrees): advice = [.pictureTurned(clockwiseDegrees: degrees)]
        case .tooSmall: advice = [.tooFarToFind]
        }
    }
    /// The first advice's line, empty when ok.
    public var adviceText: String { advice.first?.text ?? "" }

    /// The report of a span's measurements (one per frame with a face) out of `frames` frames.
    init(timeSeconds: Double, spanSeconds: Double, frames: Int, measurements: [SeatingMeasurement],
         frameWidth: Int, frameHeight: Int, thresholds: SeatingThresholds) {
        self.timeSeconds = timeSeconds
        self.spanSeconds = spanSeconds
        face = !measurements.isEmpty && 2 * measurements.count >= frames
        if face {
            faceWidthPixels = median(ofPresent: measurements.map(\.faceWidthPixels))
            eyeWidthPixels = median(ofPresent: measurements.map(\.eyeWidthPixels))
            distanceMillimetres = median(ofPresent: measurements.map(\.distanceMillimetres))
            yawDegrees = median(ofPresent: measurements.map(\.yawDegrees))
            pitchDegrees = median(ofPresent: measurements.map(\.pitchDegrees))
            brightness = median(ofPresent: measurements.map(\.brightness))
            contrast = median(ofPresent: measurements.map(\.contrast))
            backgroundBrightness = median(ofPresent: measurements.map(\.backgroundBrightness))
            glare = median(ofPresent: measurements.map(\.glare))
            faceBox = measurements.last?.faceBox
        }
        let edge = faceBox.flatMap { Self.edgeLeft(box: $0, width: frameWidth, height: frameHeight, thresholds: thresholds) }
        centred = face && edge == nil
        advice = []
        advice = face ? Self.advice(self, edge: edge, thresholds: thresholds) : [.noFace]
    }

    /// The picture's edge the face box, grown by its margin, crosses (the one crossed most), or nil.
    static func edgeLeft(box: (minX: Double, minY: Double, maxX: Double, maxY: Double), width: Int, height: Int,
                         thresholds: SeatingThresholds) -> String? {
        let margin = thresholds.marginFaceWidths * (box.maxX - box.minX)
        let overshoot = [("left", -(box.minX - margin)), ("right", box.maxX + margin - Double(width)),
                         ("top", -(box.minY - margin)), ("bottom", box.maxY + margin - Double(height))]
        guard let worst = overshoot.max(by: { $0.1 < $1.1 }), worst.1 > 0 else { return nil }
        return worst.0
    }

    /// Every figure out of its range, most important first.
    static func advice(_ report: SeatingReport, edge: String?, thresholds t: SeatingThresholds) -> [SeatingAdvice] {
        // Off centre first: a face near the picture's edge also looks turned to the camera.
        var advice: [SeatingAdvice] = edge.map { [.centre(edge: $0)] } ?? []
        if let yaw = report.yawDegrees, let pitch = report.pitchDegrees,
           abs(yaw) > t.maximumYawDegrees || abs(pitch) > t.maximumPitchDegrees {
            advice.append(.faceTheScreen(yawDegrees: yaw, pitchDegrees: pitch, maximumYaw: t.maximumYawDegrees,
                                         maximumPitch: t.maximumPitchDegrees))
        }
        if let eyes = report.eyeWidthPixels, eyes < t.minimumEyeWidthPixels {
            advice.append(.closerForEyes(eyeWidthPixels: eyes, wanted: t.minimumEyeWidthPixels))
        } else if let distance = report.distanceMillimetres, distance > t.distanceRangeMillimetres.upperBound {
            advice.append(.closer(distanceMillimetres: distance, farthest: t.distanceRangeMillimetres.upperBound))
        }
        if let distance = report.distanceMillimetres, distance < t.distanceRangeMillimetres.lowerBound {
            advice.append(.back(distanceMillimetres: distance, nearest: t.distanceRangeMillimetres.lowerBound))
        }
        advice += lightAdvice(report, thresholds: t)
        if let glare = report.glare, glare > t.maximumGlare { advice.append(.glare(share: glare, allowed: t.maximumGlare)) }
        return advice
    }

    /// Light behind the participant, too little or too much on the face, or flat.
    static func lightAdvice(_ report: SeatingReport, thresholds t: SeatingThresholds) -> [SeatingAdvice] {
        guard let brightness = report.brightness else { return [] }
        var advice: [SeatingAdvice] = []
        if let background = report.backgroundBrightness, background - brightness > t.maximumBacklight {
            advice.append(.backlit(face: brightness, background: background))
        }
        if brightness < t.brightnessRange.lowerBound {
            advice.append(.moreLight(brightness: brightness, wanted: t.brightnessRange.lowerBound))
        } else if brightness > t.brightnessRange.upperBound {
            advice.append(.lessLight(brightness: brightness, wanted: t.brightnessRange.upperBound))
        }
        if let contrast = report.contrast, contrast < t.minimumContrast {
            advice.append(.flatLight(contrast: contrast, wanted: t.minimumContrast))
        }
        return advice
    }
}

/// Gathers a stream's frames into one `SeatingReport` per second of the stream's own time.
///
/// Costs a few thousand pixel reads per frame with a face beside the pipeline's work: every figure
/// comes from the frame's landmarks, head pose and eye patches as the pipeline measured them.
public struct SeatingCheck: Sendable {
    public var thresholds: SeatingThresholds
    public let frameWidth: Int
    public let frameHeight: Int
    private var start: Double?
    private var spanIndex = 0
    private var frames = 0
    private var lastTime = 0.0
    private var measurements: [SeatingMeasurement] = []

    public init(frameWidth: Int, frameHeight: Int, thresholds: SeatingThresholds = SeatingThresholds()) {
        self.frameWidth = frameWidth
        self.frameHeight = frameHeight
        self.thresholds = thresholds
    }

    /// Adds a frame; returns the report of the second it closed, if it closed one.
    public mutating func add(_ features: FrameFeatures) -> SeatingReport? {
        let time = features.timestampSeconds
        let begin = start ?? time
        start = begin
        var closed: SeatingReport?
        let index = Int(((time - begin) / 1).rounded(.down))
        if index > spanIndex {
            if frames > 0 { closed = report(timeSeconds: Double(spanIndex + 1), spanSeconds: 1) }
            spanIndex = index
            frames = 0
            measurements = []
        }
        frames += 1
        lastTime = time - begin
        if let measurement = SeatingMeasurement(features) { measurements.append(measurement) }
        return closed
    }

    /// The report of the last, unfinished second, when it spans half a second or more of frames.
    public mutating func finish() -> SeatingReport? {
        let span = lastTime - Double(spanIndex)
        guard frames > 0, span >= 0.5 else { return nil }
        defer { frames = 0 }
        return report(timeSeconds: lastTime, spanSeconds: span)
    }

    private func report(timeSeconds: Double, spanSeconds: Double) -> SeatingReport {
        SeatingReport(timeSeconds: timeSeconds, spanSeconds: spanSeconds, frames: frames, measurements: measurements,
                      frameWidth: frameWidth, frameHeight: frameHeight, thresholds: thresholds)
    }
}
