import Foundation
import GazeModel
import Testing
import TestSupport
@testable import GazeCalibration

/// A frame whose nose base is at (300, 300) with nostrils 40 px apart (31 at x 280, 35 at 320,
/// 32–34 between), its tip (30) `tip` from the base's centre, and both patches a ramp with a dark
/// band on columns 7–8.
private func noseFrame(tip: Point2 = Point2(0, -20), shift: Point2 = Point2(0, 0)) -> GazeFeatures {
    var participant = PatchParticipant(seed: 41)
    var frame = participant.frame(Point2(960, 540), pupil: false, openness: 0.9, steady: true)
    var landmarks = frame.appearance!.landmarks
    func place(_ index: Int, _ point: Point2) {
        landmarks[2 * index] = Float(point.x + shift.x)
        landmarks[2 * index + 1] = Float(point.y + shift.y)
    }
    for (k, index) in (31...35).enumerated() { place(index, Point2(280 + 10 * Double(k), 300)) }
    place(30, Point2(300 + tip.x, 300 + tip.y))
    let width = EyeAppearance.patchWidth
    let patch = (0..<EyeAppearance.patchPixels).map { k in (7...8).contains(k % width) ? UInt8(40) : UInt8(120 + 4 * (k % width)) }
    frame.appearance = EyeAppearance(landmarks: landmarks, patches: patch + patch)
    return frame
}

private func values(_ set: GazeFeatureSet, _ frame: GazeFeatures) -> [Double] {
    set.rawFeatures(frame)!
}

/// `frame` with landmarks `indices` moved by `by` (a rim dragging them).
private func moved(_ frame: GazeFeatures, _ indices: some Sequence<Int>, by: Point2) -> GazeFeatures {
    var copy = frame
    var landmarks = frame.appearance!.landmarks
    for index in indices {
        landmarks[2 * index] += Float(by.x)
        landmarks[2 * index + 1] += Float(by.y)
    }
    copy.appearance = EyeAppearance(landmarks: landmarks, patches: frame.appearance!.patches)
    return copy
}

/// `frame` with its patches changed pixel by pixel.
private func repainted(_ frame: GazeFeatures, _ change: (Int, UInt8) -> UInt8) -> GazeFeatures {
    var copy = frame
    let pixels = frame.appearance!.patches.enumerated().map { change($0.offset % EyeAppearance.patchPixels, $0.element) }
    copy.appearance = EyeAppearance(landmarks: frame.appearance!.landmarks, patches: pixels)
    return copy
}

private func distance(_ a: [Double], _ b: [Double]) -> Double {
    zip(a, b).map { ($0 - $1) * ($0 - $1) }.reduce(0, +).squareRoot()
}

@Suite("Candidate sets for rims and hands")
struct RimRobustFeaturesTests {
    @Test("The nose frame: the head read from the nostrils and the tip, unmoved when rims drag the eyes and the pose")
    func noseHead() {
        let frame = noseFrame(tip: Point2(6, -20))
        let head = Array(values(.patchesNoseFrame, frame).prefix(6))
        // Roll 0° (nostrils level), 40 px apart, centred at (300, 300); the tip 0.15 across, 0.5 up
        #expect(head[0] == 0 && head[1] == 40 && head[2] == 300 && head[3] == 300)
        #expect(abs(head[4] - 0.15) < 1e-12 && abs(head[5] + 0.5) < 1e-12)
        // Given the eye corners and contours dragged 6 px up and the fitted pose nodding by 18°
        var dragged = moved(frame, 36...47, by: Point2(1, -6))
        dragged.pitchDegrees += 18
        // Then `patches`' head terms move, the nose frame's do not, and the patches are read as before
        #expect(values(.patches, dragged).prefix(6) != values(.patches, frame).prefix(6))
        #expect(values(.patchesNoseFrame, dragged) == values(.patchesNoseFrame, frame))
        #expect(Array(values(.patchesNoseFrame, frame).suffix(256)) == Array(values(.patches, frame).suffix(256)))
        // And the whole face moved moves only the base's centre
        let shifted = values(.patchesNoseFrame, noseFrame(tip: Point2(6, -20), shift: Point2(15, -8)))
        #expect(shifted[2] == 315 && shifted[3] == 292 && Array(shifted.suffix(from: 4)) == Array(values(.patchesNoseFrame, frame).suffix(from: 4)))
    }

    @Test("The nose frame's shape: brows and nose (17–35) in nostril distances; a hand moving the jaw and mouth changes nothing")
    func noseFrameShape() {
        let frame = noseFrame()
        let features = values(.appearanceNoseFrame, frame)
        #expect(features.count == 300 && features.allSatisfy(\.isFinite))
        #expect(Array(features.prefix(6)) == Array(values(.patchesNoseFrame, frame).prefix(6)))
        #expect(Array(features.suffix(256)) == Array(values(.patches, frame).suffix(256)))
        // Landmark 31 lies half a nostril distance left of the base's centre, on its line
        let nostril = 6 + 2 * (31 - 17)
        #expect(features[nostril] == -0.5 && features[nostril + 1] == 0)
        let hand = moved(frame, Array(0...16) + Array(48...67), by: Point2(3, -9))
        #expect(values(.appearanceNoseFrame, hand) == features)
        #expect(values(.appearance, hand) != values(.appearance, frame))
    }

    @Test("High-passed patches: a smooth brightness across the patch (a reflection's body) moves them far less than `patches`")
    func highPassed() {
        let frame = noseFrame()
        let features = values(.patchContrast, frame)
        #expect(features.count == 262 && Array(features.prefix(6)) == Array(values(.patches, frame).prefix(6)))
        // Each eye's high-passed patch is normalised: mean 0, standard deviation 1
        for eye in 0..<2 {
            let patch = features[(6 + 128 * eye)..<(6 + 128 * (eye + 1))]
            let mean = patch.reduce(0, +) / 128
            let deviation = (patch.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / 128).squareRoot()
            #expect(abs(mean) < 1e-9 && abs(deviation - 1) < 1e-9)
        }
        // Given a bright glow rising toward the patch's top rows
        let glow = repainted(frame) { k, value in UInt8(min(255, Int(value) + 12 * (7 - k / EyeAppearance.patchWidth))) }
        let plain = distance(values(.patches, glow), values(.patches, frame))
        let contrast = distance(values(.patchContrast, glow), values(.patchContrast, frame))
        #expect(contrast < 0.2 * plain, "patchContrast moved \(contrast), patches \(plain)")
        // And `appearanceContrast` is `appearance`'s head and shape with these patches
        let appearance = values(.appearanceContrast, glow), plainAppearance = values(.appearance, glow)
        #expect(appearance.count == 364 && Array(appearance.prefix(108)) == Array(plainAppearance.prefix(108)))
        #expect(Array(appearance.suffix(256)) == Array(values(.patchContrast, glow).suffix(256)))
    }

    @Test("Inner patches: a rim drawn over the patch's outer columns and rows changes nothing they read")
    func inner() {
        let frame = noseFrame()
        let features = values(.patchInner, frame)
        #expect(features.count == 150 && features.allSatisfy(\.isFinite))
        // The inner 12 × 6 pixels of the left eye, in order, normalised: the dark band is columns 7–8
        let row = Array(features[6..<18])
        #expect(row[5] == row[6] && row[5] < row[4] && row[4] < row[7] && row[5] < 0)
        #expect(Array(features[18..<30]) == row)
        let rim = repainted(frame) { k, value in
            let column = k % EyeAppearance.patchWidth, line = k / EyeAppearance.patchWidth
            return column < 2 || column >= 14 || line == 0 || line == 7 ? 25 : value
        }
        #expect(values(.patchInner, rim) == features)
        #expect(values(.patches, rim) != values(.patches, frame))
    }
}
