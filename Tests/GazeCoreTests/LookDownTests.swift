import Foundation
import GazeModel
import Testing
import TestSupport
@testable import GazeCore

/// Looking down against closing the eyes, on the real frames of the shared webcam clip with an eye
/// closure and blinks (`cap13_blinks_20s`, hand-labelled in Tests/BlinkLabels) and dlib's landmarks
/// of every frame (`reference/dlib_solvepnp_reference.json`).
@Suite("Looking down is not a blink", .enabled(if: Fixtures.available, Fixtures.missingReason))
struct LookDownTests {
    static let clip = "video/cap13_blinks_20s.mp4"
    static let width = 400, height = 300

    /// The clip's frames as gray images (FFmpeg's luma), and each frame's reference landmarks.
    static let footage = Result { () throws -> (images: [GrayImage], landmarks: [Int: FaceLandmarks]) in
        let decoded = try Binary.runProcess("/usr/bin/ffmpeg", ["-v", "error", "-i", Fixtures.path(clip),
                                                               "-f", "rawvideo", "-pix_fmt", "gray", "-"])
        guard decoded.status == 0 else { throw CocoaError(.fileReadCorruptFile) }
        let bytes = [UInt8](decoded.stdoutData), size = width * height
        let images = stride(from: 0, to: bytes.count - size + 1, by: size).map {
            GrayImage(width: width, height: height, pixels: Array(bytes[$0..<($0 + size)]))
        }
        let faces = try ReferenceData.load().faces.filter { $0.source == clip }
        return (images, Dictionary(uniqueKeysWithValues: faces.map { ($0.index, $0.landmarks) }))
    }

    /// Runs frames `range` through the eye features (25 fps), each frame's landmarks passed through
    /// `edit`; returns every frame's features and the events.
    static func run(_ range: Range<Int>, edit: (Int, FaceLandmarks) -> FaceLandmarks = { $1 }) throws
        -> (frames: [FrameFeatures], events: [BlinkEvent]) {
        let (images, landmarks) = try footage.get()
        var extractor = EyeFeatureExtractor(intrinsics: CameraIntrinsics(width: width, height: height))
        var frames: [FrameFeatures] = [], events: [BlinkEvent] = []
        for index in range {
            let face = landmarks[index].map { FaceObservation(landmarks: edit(index, $0), confidence: 1, detected: true) }
            let (features, event) = extractor.process(frameIndex: index, timestampSeconds: Double(index) / 25,
                                                      image: images[index], face: face)
            frames.append(features)
            if let event { events.append(event) }
        }
        if let event = extractor.finish() { events.append(event) }
        return (frames, events)
    }

    /// The landmarks with both upper lids (37, 38, 43, 44) lowered toward the lower lids until the
    /// eye aspect ratio is `fraction` of its own: how the landmarks read a look at the bottom of the
    /// screen, while the pixels still show the open eye.
    static func lowered(_ landmarks: FaceLandmarks, to fraction: Double) -> FaceLandmarks {
        var points = landmarks.points
        for (upper, lower) in [(37, 41), (38, 40), (43, 47), (44, 46)] {
            points[upper] = points[lower] + (points[upper] - points[lower]) * fraction
        }
        return FaceLandmarks(points: points)
    }

    @Test("a look down held 2 s, the lids read as low as the clip's real closure, is no closure: open, pupils found, no event")
    func heldLookDown() throws {
        // Frames 140–340: eyes open, no labelled blink. Lids lowered over frames 200–250 (2 s).
        let held = 200..<250
        let (frames, events) = try Self.run(140..<340) { index, landmarks in
            held.contains(index) ? Self.lowered(landmarks, to: 0.5) : landmarks
        }
        let heldFrames = frames.filter { held.contains($0.frameIndex) }
        let aperture = heldFrames.map { ($0.relativeAperture[.left]! + $0.relativeAperture[.right]!) / 2 }
        print("look down: relative aperture \(aperture.min()!)…\(aperture.max()!), slit contrast "
              + "\(heldFrames.map { min($0.slitContrast[.left]!, $0.slitContrast[.right]!) }.min()!) at least, events \(events)")
        // The landmarks alone say closed: as deep as the real closure (below 0.6 of the open aperture).
        #expect(aperture.max()! < 0.6)
        #expect(events.isEmpty, "\(events)")
        let open = heldFrames.filter { $0.openness[.left]! > 0.2 && $0.openness[.right]! > 0.2 && $0.pupils.count == 2 }
        #expect(open.count == heldFrames.count, "\(open.count) of \(heldFrames.count) held frames open with both pupils")
    }

    @Test("the clip's labelled blinks and its 1.3 s eye closure are still found, and nothing else")
    func labelledEventsFound() throws {
        let (_, events) = try Self.run(0..<500)
        print("events: \(events.map { "\($0.kind) \(Int(($0.startSeconds * 25).rounded()))–\(Int(($0.endSeconds * 25).rounded()))" })")
        // Tests/BlinkLabels/cap13_blinks_20s.tag: 55–64, 94–125 (eyes shut 98–117), 426–429.
        let labels: [(ClosedRange<Int>, BlinkEvent.Kind)] = [(55...64, .blink), (94...125, .longClosure), (426...429, .blink)]
        #expect(events.count == labels.count)
        for (label, kind) in labels {
            let found = events.filter {
                Int(($0.startSeconds * 25).rounded()) <= label.upperBound && Int(($0.endSeconds * 25).rounded()) >= label.lowerBound
            }
            #expect(found.map(\.kind) == [kind], "label \(label): \(found)")
        }
    }

    @Test("the slit contrast of open eyes stays above the visible fraction; of the shut eyes (frames 98–117) below it")
    func slitContrastSeparates() throws {
        let (frames, _) = try Self.run(0..<500)
        func mean(_ frame: FrameFeatures) -> Double { (frame.slitContrast[.left]! + frame.slitContrast[.right]!) / 2 }
        let shut = frames.filter { (98...117).contains($0.frameIndex) }.map(mean)
        // Open: away from every labelled event by 10 frames, after the first second's open level.
        let open = frames.filter { frame in
            frame.frameIndex >= 25 && ![45...74, 84...135, 416...439].contains { $0.contains(frame.frameIndex) }
        }.map(mean).sorted()
        let visible = EyeSlitContrastLevel().visibleFraction
        print("slit contrast: shut \(shut.min()!)…\(shut.max()!), open 1st percentile \(open[open.count / 100]), median \(open[open.count / 2])")
        #expect(shut.filter { $0 < visible }.count >= shut.count * 9 / 10)
        #expect(open.filter { $0 >= visible }.count >= open.count * 99 / 100)
    }
}
