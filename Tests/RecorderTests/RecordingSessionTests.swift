import Foundation
import GazeCalibration
import GazeCore
import GazeModel
import JSONStream
import Testing
@testable import Recorder
@testable import SessionStore

/// The recording session driven by constructed measurements: no camera, no dlib, no fixture.
@Suite("Recording session")
struct RecordingSessionTests {
    /// A calibration whose mapping is x = 800 + 100·zu, y = 450 + 50·zv on standardised pupils.
    static let calibration = AppliedCalibration(
        id: "C0000000-0000-0000-0000-000000000001",
        mapping: GazeMapping(featureMeans: [0.5, 0, 0, 0, 0, 0], featureScales: [0.1, 0.1, 10, 10, 0.1, 0.1],
                             coefficientsX: [800, 100, 0, 0, 0, 0, 0, 0, 0, 0],
                             coefficientsY: [450, 0, 50, 0, 0, 0, 0, 0, 0, 0],
                             eyeDifference: Point2(0.02, 0), ridgePenalty: 0.1),
        screenWidth: 1600, screenHeight: 900, focalLengthPixels: nil,
        reference: CalibrationReference(id: "C0000000-0000-0000-0000-000000000001", name: "constructed",
                                        createdAtSeconds: 1_700_000_000, points: 9, accuracyPoints: 31.25,
                                        accuracyDegrees: nil, viewing: nil))

    static let facts = RecordingFacts(version: GazerecVersion.current, sourceKind: .file, sourceName: "constructed.mp4",
                                      width: 640, height: 480, requestedFramesPerSecond: 30, modelPath: "model.dat")

    /// Frame `index` at 30 fps: a face with pupils moving right, except every 10th frame, which has none.
    static func frame(_ index: Int) -> FrameMeasurement {
        let time = 1_790_000_000 + Double(index) / 30
        guard index % 10 != 9 else { return FrameMeasurement(timestampSeconds: time, trackingState: .missing, confidence: 0) }
        let u = 0.4 + 0.002 * Double(index)
        return FrameMeasurement(
            timestampSeconds: time, trackingState: index < 3 ? .initializing : .normal, confidence: 0.9,
            opennessLeft: 0.8, opennessRight: 0.75, pupilLeft: Point2(u + 0.01, 0.02), pupilRight: Point2(u - 0.01, -0.02),
            headPose: HeadPoseMeasurement(yawDegrees: -2, pitchDegrees: 1, rollDegrees: 0.5, translation: Vector3(-100, 50, 5000)))
    }

    /// A clock advanced by hand.
    final class ManualClock: @unchecked Sendable {
        var seconds = 0.0
    }

    func session(_ database: SessionDatabase, clock: ManualClock, calibration: AppliedCalibration? = Self.calibration)
        throws -> RecordingSession {
        try RecordingSession(
            database: database, id: "A0000000-0000-0000-0000-000000000001", appID: "test", beginTimeSeconds: 1_790_000_000,
            device: DeviceInfo(model: "cam", screenWidth: 1600, screenHeight: 900, systemName: "Linux", systemVersion: "test"),
            facts: Self.facts, calibration: calibration, smoothing: .none, orientation: 3,
            blendShapes: [.eyeBlinkLeft], recorderPID: 4242, flushIntervalSeconds: 0.25, clock: { clock.seconds })
    }

    @Test("commits after the first frame and then every 250 ms of the clock; a reader sees each commit")
    func batching() throws {
        let database = try SessionDatabase()
        let clock = ManualClock()
        let recording = try session(database, clock: clock)
        // Given the session row exists before any frame
        #expect(try database.summary(id: recording.id).header.endTimeSeconds == nil)
        // When the first frame arrives it is committed at once
        try recording.record(Self.frame(0), blendShapeValues: [(.eyeBlinkLeft, 0.2)])
        #expect(try database.frameCount(id: recording.id).count == 1)
        // Then frames within 250 ms wait in the batch
        for index in 1...5 {
            clock.seconds += 0.04
            try recording.record(Self.frame(index))
        }
        #expect(recording.commits == 1)
        #expect(try database.frameCount(id: recording.id).count == 1)
        // And the frame at 0.25 s commits all that waited
        clock.seconds = 0.25
        try recording.record(Self.frame(6))
        #expect(recording.commits == 2)
        #expect(try database.frameCount(id: recording.id).count == 7)
    }

    @Test("closing commits the rest, sets the end time and completes the extension in recorder order")
    func closing() throws {
        let database = try SessionDatabase()
        let clock = ManualClock()
        let recording = try session(database, clock: clock)
        for index in 0..<20 { try recording.record(Self.frame(index)) }
        recording.record(blink: BlinkEvent(startSeconds: 1_790_000_000.2, endSeconds: 1_790_000_000.35, eyes: .both,
                                           kind: .blink, minimumOpenness: 0.05))
        var facts = Self.facts
        facts.frames = recording.frames
        facts.framesWithFace = recording.framesWithFace
        try recording.close(endTimeSeconds: 1_790_000_000 + 19.0 / 30, facts: facts, endedBy: nil)

        let summary = try database.summary(id: recording.id)
        #expect(summary.header.endTimeSeconds == 1_790_000_000 + 19.0 / 30)
        #expect(try database.frameCount(id: recording.id).count == 20)
        #expect(recording.framesWithFace == 18)
        #expect(recording.blinks == 1)
        // 18 frames with a face and pupils: 18 gaze samples.
        #expect(summary.gazeSampleCount == 18)
        let gazerec = try #require(summary.header.gazerecExtension)
        #expect(gazerec.members.map(\.name) == ["formatVersion", "recorder", "calibrationApplied", "calibration", "smoothing", "eyes"])
        #expect(gazerec.eyes?.blinks == 1 && gazerec.eyes?.framesWithFace == 18)
        #expect(gazerec.recorder?.frames == 20)
        #expect(gazerec.recorder?.framesWithFace == 18)
        #expect(gazerec.calibration == Self.calibration.reference)
        #expect(gazerec.smoothing == GazeSmoothing.none)
    }

    @Test("the live path and the stored path give equal features and equal gaze for every frame")
    func liveEqualsStored() throws {
        let database = try SessionDatabase()
        let recording = try session(database, clock: ManualClock())
        var live: [GazeSample?] = []
        for index in 0..<30 { live.append(try recording.record(Self.frame(index))) }
        try recording.close(endTimeSeconds: 1_790_000_001, facts: Self.facts, endedBy: nil)

        // The frames read back are the measurements recorded, value for value.
        let stored = try database.storedFrames(id: recording.id)
        #expect(stored.frames == (0..<30).map(Self.frame))
        // The same frames give the same features on both paths, and recalibration the same gaze.
        for (index, frame) in stored.frames.enumerated() {
            #expect(GazeFeatures(frame) == GazeFeatures(Self.frame(index)))
        }
        let recomputed = Self.calibration.scanPath(stored.frames, orientation: 3, smoothing: .none)
        #expect(recomputed == live.compactMap { $0 })
        #expect(try database.scanPath(id: recording.id).samples == recomputed)
        // Gaze as constructed: u = mean pupil u, x = 800 + 100·(u − 0.5)/0.1.
        let first = try #require(live[0])
        #expect(abs(first.x - (800 + 100 * (0.4 - 0.5) / 0.1)) < 1e-9)
        #expect(first.trackingState == .initializing)
    }

    @Test("without a calibration a session records frames and blend shapes but no gaze")
    func uncalibrated() throws {
        let database = try SessionDatabase()
        let recording = try session(database, clock: ManualClock(), calibration: nil)
        for index in 0..<10 {
            #expect(try recording.record(Self.frame(index), blendShapeValues: [(.eyeBlinkLeft, 0.1)]) == nil)
        }
        try recording.close(endTimeSeconds: 1_790_000_001, facts: Self.facts, endedBy: "camera lost")
        let summary = try database.summary(id: recording.id)
        #expect(summary.gazeSampleCount == 0)
        #expect(summary.blendShapeSampleCounts.map(\.count) == [10])
        #expect(summary.header.gazerecExtension?.calibrationApplied == false)
        #expect(summary.header.gazerecExtension?.endedBy == "camera lost")
    }
}
