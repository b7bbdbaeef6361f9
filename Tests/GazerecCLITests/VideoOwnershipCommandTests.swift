import Foundation
import GazeModel
import Recorder
import SessionStore
import Testing
import TestSupport

/// A database deletes only the saved videos that are its own, through the commands: a copy
/// (`backup`, a copied folder) never deletes the original's, and `import --replace` never leaves
/// this database's video of the replaced session behind unnamed.
@Suite("Saved videos of copies and replacements")
struct VideoOwnershipCommandTests {
    static let id = "C0000000-0000-0000-0000-00000000000C"

    /// A station's database in `folder` holding one ended session whose saved video,
    /// `videos/<id>.mkv` beside it, carries the session's title; named `name` (nil: by its absolute
    /// path, as gazerec named it before relative names). Returns the video's path.
    static func station(_ folder: String, name: String? = nil) throws -> String {
        let video = folder + "/videos/\(id).mkv"
        try FileManager.default.createDirectory(atPath: folder + "/videos", withIntermediateDirectories: true)
        try Data(RecordingFacts.SavedVideo.title(sessionID: id).utf8).write(to: URL(fileURLWithPath: video))
        var facts = RecordingFacts(version: "test", sourceKind: .file, sourceName: "clip.mp4", width: 640, height: 480,
                                   requestedFramesPerSecond: 30, modelPath: "model.dat")
        facts.savedVideo = RecordingFacts.SavedVideo(path: name ?? video, frames: 0, droppedFrames: 0)
        let session = try RecordingSession(
            database: try SessionDatabase(path: folder + "/db.sqlite"), id: id, appID: "p01", beginTimeSeconds: 1_790_000_000,
            device: DeviceInfo(model: "cam", screenWidth: 1600, screenHeight: 900, systemName: "Linux", systemVersion: "test"),
            facts: facts, calibration: nil, smoothing: .none, orientation: 3, blendShapes: [], recorderPID: getpid(),
            clock: { 0 })
        try session.close(endTimeSeconds: 1_790_000_010, facts: facts, endedBy: nil)
        return video
    }

    static func run(_ database: String, _ arguments: [String]) throws -> CommandResult {
        try Binary.run(arguments, environment: ["GAZEREC_DATABASE": database])
    }

    @Test("deleting a session in a backup leaves the original's video; a backup beside the original is refused",
          arguments: [false, true])
    func backupNeverDeletesOriginalVideo(legacyAbsolute: Bool) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let live = folder.path("live/db.sqlite")
        let video = try Self.station(folder.path("live"), name: legacyAbsolute ? nil : "videos/\(Self.id).mkv")
        let beside = try Self.run(live, ["backup", folder.path("live/copy.sqlite")])
        #expect(beside.status != 0 && !FileManager.default.fileExists(atPath: folder.path("live/copy.sqlite")),
                "a copy sharing the videos folder would own the original's video: \(beside.stderr)")
        try FileManager.default.createDirectory(atPath: folder.path("usb"), withIntermediateDirectories: false)
        let copy = folder.path("usb/copy.sqlite")
        let backup = try Self.run(live, ["backup", copy])
        try #require(backup.status == 0, "\(backup.stderr)")

        let deleted = try Self.run(copy, ["delete", Self.id])
        #expect(deleted.status == 0, "\(deleted.stderr)")
        #expect(!deleted.stderr.contains("removed"), "\(deleted.stderr)")
        #expect(FileManager.default.fileExists(atPath: video), "deleting in the copy removed the original's video")
        #expect(try Self.run(live, ["show", Self.id]).stdout.contains("Saved video    \(video)"))
        let own = try Self.run(live, ["delete", Self.id])
        #expect(own.stderr.contains("removed \(video)") && !FileManager.default.fileExists(atPath: video), "\(own.stderr)")
    }

    @Test("deleting in a copied folder leaves the original's video, and removes the copy's own when named relative to it",
          arguments: [false, true])
    func copiedFolderDeletesItsOwn(legacyAbsolute: Bool) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let video = try Self.station(folder.path("live"), name: legacyAbsolute ? nil : "videos/\(Self.id).mkv")
        try FileManager.default.copyItem(atPath: folder.path("live"), toPath: folder.path("copy"))
        let copied = folder.path("copy/videos/\(Self.id).mkv")
        let deleted = try Self.run(folder.path("copy/db.sqlite"), ["delete", "--all", "--yes"])
        #expect(deleted.status == 0, "\(deleted.stderr)")
        #expect(FileManager.default.fileExists(atPath: video), "deleting in the copy removed the original's video")
        // A session of an older gazerec in the copy names the original's file, not the copy's: that
        // one is kept and named (docs/Recording.md).
        #expect(FileManager.default.fileExists(atPath: copied) == legacyAbsolute, "\(deleted.stderr)")
        #expect(deleted.stderr.contains("kept \(video)") == legacyAbsolute, "\(deleted.stderr)")
    }

    @Test("import --replace of a session naming another station's video path: deleting it afterwards removes this database's video",
          arguments: [false, true])
    func replaceKeepsVideoOwned(legacyAbsolute: Bool) throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let live = folder.path("live/db.sqlite")
        let video = try Self.station(folder.path("live"), name: legacyAbsolute ? nil : "videos/\(Self.id).mkv")
        let exported = try Self.run(live, ["export", Self.id])
        try #require(exported.status == 0, "\(exported.stderr)")
        let foreign = "/home/station2/gazerec/videos/\(Self.id).mkv"
        let named = exported.stdout.replacingOccurrences(of: #""path":"[^"]*\.mkv""#, with: #""path":"\#(foreign)""#,
                                                         options: .regularExpression)
        try #require(named.contains(foreign))
        let file = folder.path("s3.json")
        try Data(named.utf8).write(to: URL(fileURLWithPath: file))
        let imported = try Self.run(live, ["import", "--replace", file])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stderr.contains("kept \(video)"), "\(imported.stderr)")

        let deleted = try Self.run(live, ["delete", Self.id])
        #expect(deleted.status == 0, "\(deleted.stderr)")
        #expect(!FileManager.default.fileExists(atPath: video), "the replaced session's video was left behind: \(deleted.stderr)")
    }
}
