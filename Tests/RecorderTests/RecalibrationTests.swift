import Foundation
import GazeCalibration
import GazeCore
import GazeModel
import Testing
import TestSupport
@testable import Recorder
@testable import SessionStore

/// `recalibrate`'s logic on a session recorded from constructed measurements and a calibration
/// fitted on a constructed participant: no camera, no dlib, no fixture.
@Suite("Recalibration")
struct RecalibrationTests {
    /// A finished scripted procedure on a constructed participant, and its record (a 1920×1080 screen).
    func constructedRecord() throws -> CalibrationRecord {
        let targets = CalibrationProcedure.layoutTargets(.nine, width: 1920, height: 1080).enumerated().map { index, target in
            CalibrationTarget(kind: target.kind, position: target.position, startSeconds: Double(index),
                              endSeconds: Double(index) + 0.9)
        }
        var procedure = CalibrationProcedure(targets: targets, scripted: true, settleSeconds: 0.2, geometry: nil)
        var participant = ConstructedParticipant(generator: SeededGenerator(state: 7), pupilNoise: 0.001)
        var time = 0.0
        while !procedure.isDone && time < 30 {
            let target = targets.first { time >= $0.startSeconds! && time <= $0.endSeconds! }?.position ?? Point2(960, 540)
            var features = participant.samples(at: target, count: 1)[0]
            features.timestampSeconds = time
            procedure.frame(features, faceFound: true, timeSeconds: time)
            time += 1.0 / 30
        }
        return CalibrationRecord(name: "constructed", createdAtSeconds: 1_790_000_000, screenWidth: 1920, screenHeight: 1080,
                                 geometry: nil, sourceKind: "file", sourceName: "constructed.mp4", sourceWidth: 640,
                                 sourceHeight: 480, procedure: procedure, outcome: try #require(procedure.outcome),
                                 gazerecVersion: "test")
    }

    /// A session of `frames` constructed frames recorded without gaze (blend shapes in landscapeRight,
    /// orientation 3) on a 1600×900 screen; closed unless `open`.
    func recordedSession(_ database: SessionDatabase, headPoseModel: String? = HeadPoseModelName.current,
                         frames: Int = 30, open: Bool = false) throws -> String {
        var facts = RecordingSessionTests.facts
        facts.headPoseModel = headPoseModel
        let session = try RecordingSession(
            database: database, id: UUID().uuidString, appID: "test", beginTimeSeconds: 1_790_000_000,
            device: DeviceInfo(model: "cam", screenWidth: 1600, screenHeight: 900, systemName: "Linux", systemVersion: "test"),
            facts: facts, calibration: nil, smoothing: .none, orientation: 3, blendShapes: [.eyeBlinkLeft],
            recorderPID: 4242, flushIntervalSeconds: 0.25, clock: { 0 })
        for index in 0..<frames {
            try session.record(RecordingSessionTests.frame(index), blendShapeValues: [(.eyeBlinkLeft, 0.2)])
        }
        if open { try session.commit() } else { try session.close(endTimeSeconds: 1_790_000_001, facts: facts, endedBy: nil) }
        return session.id
    }

    @Test("the stored frames mapped by the calibration become the scan path; the screen and the extension become the calibration's")
    func recalibrates() throws {
        let database = try SessionDatabase()
        let record = try constructedRecord()
        try database.save(record)
        let id = try recordedSession(database)
        #expect(try database.scanPath(id: id).samples.isEmpty)

        let result = try Recalibration.run(sessionID: id, calibrationID: "latest", smoothing: nil, database: database)

        let expected = AppliedCalibration(record).scanPath(try database.storedFrames(id: id).frames, orientation: 3,
                                                           smoothing: .none)
        #expect(!expected.isEmpty)
        #expect(result.sessionID == id && result.calibration.id == record.id && result.frames == 30)
        #expect(result.gazeSamples == expected.count)
        #expect(try database.scanPath(id: id).samples == expected)
        #expect(result.previousScreen?.width == 1600 && result.previousScreen?.height == 900)
        let header = try database.summary(id: id).header
        #expect(header.deviceInfo.screenWidth == 1920 && header.deviceInfo.screenHeight == 1080)
        let applied = try #require(header.gazerecExtension?.calibration)
        #expect(applied.id == record.id && applied.recalibratedAtSeconds != nil)
        #expect(header.gazerecExtension?.calibrationApplied == true)
    }

    @Test("refused: a session still recording, one without stored frames, one whose head poses another face model measured")
    func refusals() throws {
        let database = try SessionDatabase()
        let record = try constructedRecord()
        try database.save(record)
        let open = try recordedSession(database, open: true)
        #expect(throws: RecalibrationError.stillRecording(sessionID: open)) {
            _ = try Recalibration.run(sessionID: open, calibrationID: record.id, smoothing: nil, database: database)
        }
        let empty = try recordedSession(database, frames: 0)
        #expect(throws: RecalibrationError.noStoredFrames(sessionID: empty)) {
            _ = try Recalibration.run(sessionID: empty, calibrationID: record.id, smoothing: nil, database: database)
        }
        let older = try recordedSession(database, headPoseModel: nil)
        #expect(throws: RecalibrationError.otherHeadPoseModel(sessionID: older, sessionModel: HeadPoseModelName.sixPoint,
                                                              calibrationID: record.id,
                                                              calibrationModel: record.headPoseModel)) {
            _ = try Recalibration.run(sessionID: older, calibrationID: record.id, smoothing: nil, database: database)
        }
        #expect(try database.scanPath(id: older).samples.isEmpty)
    }
}

extension RecalibrationTests {
    @Test("recalibrating a session with the calibration it was recorded with gives back its scan path bit for bit")
    func sameCalibrationSameBits() throws {
        // Given a session recorded live with a calibration (its gaze mapped frame by frame),
        let database = try SessionDatabase()
        let record = try constructedRecord()
        try database.save(record)
        var facts = RecordingSessionTests.facts
        facts.headPoseModel = HeadPoseModelName.current
        let session = try RecordingSession(
            database: database, id: UUID().uuidString, appID: "test", beginTimeSeconds: 1_790_000_000,
            device: DeviceInfo(model: "cam", screenWidth: 1920, screenHeight: 1080, systemName: "Linux", systemVersion: "test"),
            facts: facts, calibration: AppliedCalibration(record), smoothing: .none, orientation: 3,
            blendShapes: [], recorderPID: 4242, flushIntervalSeconds: 0.25, clock: { 0 })
        for index in 0..<30 { try session.record(RecordingSessionTests.frame(index), blendShapeValues: []) }
        try session.close(endTimeSeconds: 1_790_000_001, facts: facts, endedBy: nil)
        let live = try database.scanPath(id: session.id).samples
        try #require(live.count > 20)
        // when it is recalibrated with that same calibration,
        _ = try Recalibration.run(sessionID: session.id, calibrationID: record.id, smoothing: nil, database: database)
        // then every gaze sample is the same to the last bit.
        let again = try database.scanPath(id: session.id).samples
        #expect(again.count == live.count)
        for (after, before) in zip(again, live) {
            let bits: [UInt64] = [after.x.bitPattern, after.y.bitPattern, after.timestampSeconds.bitPattern]
            #expect(bits == [before.x.bitPattern, before.y.bitPattern, before.timestampSeconds.bitPattern])
        }
    }
}
