import Foundation
import GazeModel
import Testing
import TestSupport
@testable import Recorder
@testable import SessionStore

/// `repairOrphanedVideos` on constructed sessions and files: which videos it links, and which it leaves.
@Suite("Orphaned video links")
struct OrphanedVideoLinkTests {
    func record(_ database: SessionDatabase, id: String, facts: RecordingFacts) throws {
        _ = try RecordingSession(
            database: database, id: id, appID: "test", beginTimeSeconds: 1_790_000_000,
            device: DeviceInfo(model: "cam", screenWidth: 1600, screenHeight: 900, systemName: "Linux", systemVersion: "test"),
            facts: facts, calibration: nil, smoothing: .none, orientation: 3,
            blendShapes: [], recorderPID: 4242, flushIntervalSeconds: 0.25, clock: { 0 })
    }

    @Test("links a titled <id>.mkv to its session naming no video; skips the running one and one naming another file")
    func linksOnlyUnnamedSessionsOfThisDatabase() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = try SessionDatabase(path: folder.path("db.sqlite"))
        let unnamed = "A0000000-0000-0000-0000-000000000001", naming = "A0000000-0000-0000-0000-000000000002"
        var other = RecordingSessionTests.facts
        other.savedVideo = RecordingFacts.SavedVideo(path: folder.path("elsewhere.mkv"), frames: 0, droppedFrames: 0)
        try record(database, id: unnamed, facts: RecordingSessionTests.facts)
        try record(database, id: naming, facts: other)
        try FileManager.default.createDirectory(atPath: folder.path("videos"), withIntermediateDirectories: false)
        for id in [unnamed, naming] {
            try Data(RecordingFacts.SavedVideo.title(sessionID: id).utf8).write(to: URL(fileURLWithPath: folder.path("videos/\(id).mkv")))
        }
        #expect(database.defaultVideoFolder == folder.path("videos"))
        // The running recorder's session is left to its recorder.
        #expect(try database.repairOrphanedVideos(except: unnamed.lowercased()).linked.isEmpty)
        let report = try database.repairOrphanedVideos()
        #expect(report.linked.map(\.id) == [unnamed] && report.unclaimed.isEmpty)
        let videoPath = { (id: String) in try database.summary(id: id).header.gazerecExtension?.recorder?.savedVideo?.path }
        // Named relative to the database's folder, where it lies.
        #expect(try videoPath(unnamed) == "videos/\(unnamed).mkv")
        #expect(try videoPath(naming) == folder.path("elsewhere.mkv"))
        #expect(try database.repairOrphanedVideos().linked.isEmpty, "a linked video is linked once")
    }

    @Test("a database opened by a relative path links its video relative to the database's folder, which resolves to the file from elsewhere")
    func relativeDatabasePathLinksAbsoluteVideo() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        // The same database file named relative to the working directory, as `--database db.sqlite` names it.
        let depth = FileManager.default.currentDirectoryPath.split(separator: "/").count
        let relative = String(repeating: "../", count: depth) + folder.path("db.sqlite").dropFirst()
        let database = try SessionDatabase(path: relative)
        let id = "A0000000-0000-0000-0000-000000000003"
        try record(database, id: id, facts: RecordingSessionTests.facts)
        try FileManager.default.createDirectory(atPath: folder.path("videos"), withIntermediateDirectories: false)
        try Data(RecordingFacts.SavedVideo.title(sessionID: id).utf8).write(to: URL(fileURLWithPath: folder.path("videos/\(id).mkv")))
        #expect(try database.repairOrphanedVideos().linked.map(\.id) == [id])
        let linked = try database.summary(id: id).header.gazerecExtension?.recorder?.savedVideo?.path
        #expect(linked == "videos/\(id).mkv")
        #expect(linked.map(database.resolvedVideoPath) == folder.path("videos/\(id).mkv"))
    }
}
