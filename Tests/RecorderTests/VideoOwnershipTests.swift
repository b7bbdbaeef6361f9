import Foundation
import GazeModel
import JSONStream
import Testing
import TestSupport
@testable import Recorder
@testable import SessionStore

/// Which saved videos a database deletes with its sessions: only its own, never those of the
/// database it was copied from (`backup`, a copied folder), never one an import would orphan.
@Suite("Saved video ownership")
struct VideoOwnershipTests {
    static let id = "B0000000-0000-0000-0000-000000000001"

    /// A database in `folder` holding one session whose saved video, `videos/<id>.mkv` beside it,
    /// carries the session's title, named by `name` (nil: the absolute path, as gazerec named it
    /// before relative names).
    static func station(_ folder: String, name: String? = nil) throws -> String {
        let video = folder + "/videos/\(id).mkv"
        try FileManager.default.createDirectory(atPath: folder + "/videos", withIntermediateDirectories: true)
        try Data(RecordingFacts.SavedVideo.title(sessionID: id).utf8).write(to: URL(fileURLWithPath: video))
        var facts = RecordingSessionTests.facts
        facts.savedVideo = RecordingFacts.SavedVideo(path: name ?? video, frames: 0, droppedFrames: 0)
        let database = try SessionDatabase(path: folder + "/db.sqlite")
        try OrphanedVideoLinkTests().record(database, id: id, facts: facts)
        return video
    }

    @Test("a copied folder's database deletes its own copy of a video named relative to it, never the original's",
          arguments: [false, true])
    func copiedFolderDeletesItsOwn(legacyAbsolute: Bool) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let original = try Self.station(folder.path("live"), name: legacyAbsolute ? nil : "videos/\(Self.id).mkv")
        try FileManager.default.copyItem(atPath: folder.path("live"), toPath: folder.path("copy"))
        let copied = folder.path("copy/videos/\(Self.id).mkv")

        let report = try SessionDatabase(path: folder.path("copy/db.sqlite")).deleteSessions(ids: [Self.id])
        #expect(report.sessionIDs == [Self.id])
        #expect(FileManager.default.fileExists(atPath: original), "the original's video survives a deletion in the copy")
        if legacyAbsolute {
            // The copy's session names the original's file, which is not its own: left, and said so.
            #expect(report.removedFiles.isEmpty && report.keptFiles == [original])
        } else {
            #expect(report.removedFiles == [copied] && !FileManager.default.fileExists(atPath: copied))
        }
        // The original still deletes its own video (the old absolute name included).
        let own = try SessionDatabase(path: folder.path("live/db.sqlite")).deleteSessions(ids: [Self.id])
        #expect(own.removedFiles == [original] && !FileManager.default.fileExists(atPath: original))
    }

    @Test("a backup in another folder names the original's videos and never deletes them; one beside the original is refused",
          arguments: [false, true])
    func backupLeavesOriginalVideos(legacyAbsolute: Bool) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let original = try Self.station(folder.path("live"), name: legacyAbsolute ? nil : "videos/\(Self.id).mkv")
        let live = try SessionDatabase.openForReading(path: folder.path("live/db.sqlite"))
        try FileManager.default.createDirectory(atPath: folder.path("backups"), withIntermediateDirectories: false)
        try live.backUp(to: folder.path("backups/copy.sqlite"))
        #expect(throws: StoreError.self, "a copy sharing the videos folder would own the original's videos") {
            try live.backUp(to: folder.path("live/copy.sqlite"))
        }
        #expect(!FileManager.default.fileExists(atPath: folder.path("live/copy.sqlite")))

        let copy = try SessionDatabase(path: folder.path("backups/copy.sqlite"))
        #expect(try copy.summary(id: Self.id).header.gazerecExtension?.recorder?.savedVideo?.path == original,
                "the copy names the original's video where it lies")
        let report = try copy.deleteSessions(ids: [Self.id])
        #expect(report.sessionIDs == [Self.id] && report.removedFiles.isEmpty && report.keptFiles == [original])
        #expect(FileManager.default.fileExists(atPath: original))
    }

    @Test("import --replace of a session naming another station's video keeps this database's video owned, so deleting it removes it")
    func replacedSessionKeepsItsVideo() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let video = try Self.station(folder.path("live"), name: "videos/\(Self.id).mkv")
        let database = try SessionDatabase(path: folder.path("live/db.sqlite"))
        let sink = MemoryByteSink()
        try database.export(ids: [Self.id], asArray: false, to: sink)
        let foreign = "/home/station2/gazerec/videos/\(Self.id).mkv"
        // The path as the other station exported it, whatever this one wrote there.
        let named = sink.text.replacingOccurrences(of: #""path":"[^"]*\.mkv""#, with: #""path":"\#(foreign)""#,
                                                   options: .regularExpression)
        try #require(named.contains(foreign))

        _ = try database.importSessions(from: [.bytes(Array(named.utf8), name: "s3.json")], existing: .replace)
        #expect(FileManager.default.fileExists(atPath: video))
        let report = try database.deleteSessions(ids: [Self.id])
        #expect(report.removedFiles == [video] && !FileManager.default.fileExists(atPath: video),
                "the replaced session's video goes with it")
    }

    @Test("import --replace by a session without recorder facts removes the replaced session's video with it")
    func replacementWithoutRecorderRemovesVideo() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let video = try Self.station(folder.path("live"), name: "videos/\(Self.id).mkv")
        let database = try SessionDatabase(path: folder.path("live/db.sqlite"))
        let bare = #"{"id":"\#(Self.id)","appID":"test","beginTime":1790000000,"deviceInfo":{"model":"cam","screenSize":[1600,900],"#
            + #""systemName":"Linux","systemVersion":"test"},"scanPath":[],"blendShapes":{}}"#
        let report = try database.importSessions(from: [.bytes(Array(bare.utf8), name: "bare.json")], existing: .replace)
        #expect(report.replaced == [Self.id] && report.removedFiles == [video])
        #expect(!FileManager.default.fileExists(atPath: video))
    }

    @Test("a session names a video in its database's folder relative to it and finds it from any working directory")
    func relativeNames() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = try SessionDatabase(path: folder.path("db.sqlite"))
        #expect(database.storedVideoPath(folder.path("videos/a.mkv")) == "videos/a.mkv")
        #expect(database.storedVideoPath("/elsewhere/a.mkv") == "/elsewhere/a.mkv")
        #expect(database.resolvedVideoPath("videos/a.mkv") == folder.path("videos/a.mkv"))
        #expect(!database.ownsVideoPlace("../other/videos/a.mkv"), "a relative name leaving the folder is not this database's")
        #expect(!database.ownsVideoPlace("/elsewhere/a.mkv") && database.ownsVideoPlace(folder.path("videos/a.mkv")))
    }
}
