import Foundation
import GazeCalibration
import GazeCapture
import GazeCore
import GazeModel
import Testing
import TestSupport
@testable import Recorder
@testable import SessionStore

/// The library entry points that hold what the command line used to decide: a recording's set-up,
/// a re-analysis's request, and the closing of dead recordings.
@Suite("Recording set-up, re-analysis request, dead recordings")
struct RecordingSetupTests {
    func setup(_ database: String) -> RecordingSetup {
        RecordingSetup(source: FrameSourceRequest(.file(path: "clip.mp4")),
                       databasePath: database, modelPath: "model.dat", appID: "P01")
    }

    @Test("without a store or a screen: no calibration, the default screen, the default shapes, the focal length given")
    func defaults() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        var setup = setup(folder.path("db.sqlite"))
        setup.focalLengthPixels = 812
        let plan = try setup.plan()
        #expect(plan.calibration == nil && !plan.calibrationFlaggedPoor)
        #expect(plan.configuration.screenWidth == 1920 && plan.configuration.screenHeight == 1080)
        #expect(plan.configuration.blendShapes == BlendShapeName.defaultSet)
        #expect(plan.configuration.focalLengthPixels == 812)
        #expect(plan.configuration.appID == "P01" && plan.configuration.calibration == nil)
        // Choosing created no store.
        #expect(!FileManager.default.fileExists(atPath: folder.path("db.sqlite")))
    }

    @Test("a calibration asked for by id without a store is refused as unknown")
    func unknownCalibration() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        var setup = setup(folder.path("db.sqlite"))
        setup.calibration = .id("NOPE")
        #expect(throws: StoreError.unknownCalibration(id: "NOPE", databasePath: folder.path("db.sqlite"))) { try setup.plan() }
    }

    @Test("the newest calibration is applied, its screen becomes the session's unless one is given; none applies none")
    func latestCalibration() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("db.sqlite")
        var record = try RecalibrationTests().constructedRecord()
        record.focalLengthPixels = 700
        // Another screen than the default, so the session's screen is seen to be the calibration's.
        (record.screenWidth, record.screenHeight) = (1600, 900)
        let database = try SessionDatabase(path: path)
        try database.save(record)
        var setup = setup(path)
        let plan = try setup.plan()
        #expect(plan.calibration?.id == record.id && plan.configuration.calibration?.id == record.id)
        #expect(plan.configuration.screenWidth == 1600 && plan.configuration.screenHeight == 900)
        #expect(plan.configuration.focalLengthPixels == 700)
        #expect(plan.calibrationFlaggedPoor == (record.validation.map {
            $0.quality(screenWidth: record.screenWidth, screenHeight: record.screenHeight) != .acceptable
        } ?? false))
        setup.calibration = .none
        setup.screen = .init(width: 1280, height: 720)
        let none = try setup.plan()
        #expect(none.calibration == nil && none.configuration.screenWidth == 1280 && none.configuration.screenHeight == 720)
        #expect(none.configuration.focalLengthPixels == nil)
    }

    @Test("a session recorded without a video has nothing to re-analyse; a video given is used, with the calibration named")
    func reanalysisRequest() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = try SessionDatabase(path: folder.path("db.sqlite"))
        let record = try RecalibrationTests().constructedRecord()
        try database.save(record)
        let id = try RecalibrationTests().recordedSession(database)
        #expect(throws: ReanalysisError.noVideo(sessionID: id)) {
            try Reanalysis.request(sessionID: id, database: database, modelPath: "model.dat")
        }
        let request = try Reanalysis.request(sessionID: String(id.prefix(8)).lowercased(), database: database,
                                             videoPath: "face.mkv", calibration: record.id, modelPath: "model.dat",
                                             focalLengthPixels: 650)
        #expect(request.sessionID == id && request.videoPath == "face.mkv" && request.calibration?.id == record.id)
        #expect(request.focalLengthPixels == 650 && request.smoothing == .none)
        let without = try Reanalysis.request(sessionID: id, database: database, videoPath: "face.mkv", calibration: "none",
                                             modelPath: "model.dat")
        #expect(without.calibration == nil)
    }

    @Test("closing dead recordings closes the open session and removes the status file a dead recorder left")
    func deadRecordings() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.path("db.sqlite")
        let database = try SessionDatabase(path: path)
        let id = try RecalibrationTests().recordedSession(database, open: true)
        let status = RecorderLock.statusPath(databasePath: path)
        try #"{"sessionID":"\#(id)"}"#.write(toFile: status, atomically: true, encoding: .utf8)
        let cleanup = try DeadRecordings.close(in: database)
        #expect(cleanup.closedSessionIDs == [id] && cleanup.runningSessionID == nil)
        #expect(cleanup.removedFiles == [status] && !FileManager.default.fileExists(atPath: status))
        #expect(try database.summary(id: id).header.endTimeSeconds != nil)
        // Nothing left to close the second time.
        #expect(try DeadRecordings.close(in: database) == DeadRecordings.Cleanup())
    }
}
