import Foundation
import GazeModel
@testable import SessionStore
import Testing
import TestSupport

/// `repair` finds the videos dead recorders left unnamed by their sessions in the database's
/// `videos` folder: it links those of this database's sessions, so `delete` removes them, and names
/// (never removes) those of sessions it does not hold, which may be another database's.
@Suite("Orphaned videos", .serialized)
struct OrphanedVideoTests {
    typealias Work = RecordingCommandTests.Workspace

    /// Makes the session `id` name no saved video, as a recorder older than the rule left it when it died.
    static func forgetVideo(_ database: String, id: String) throws {
        let store = try SessionDatabase(path: database)
        try store.write("forget the video") { db in
            guard let rowid = try SessionTable.rowid(db, id: id, allowPrefix: false),
                  var mark = try SessionTable.header(db, rowid: rowid).gazerecExtension else { return }
            mark.recorder?.savedVideo = nil
            try SessionTable.setExtension(db, rowid: rowid, mark)
        }
    }

    @Test("a killed recorder's unnamed video is linked by repair and deleted with its session; others' are kept",
          .enabled(if: RecordingCommandTests.ready, RecordingCommandTests.reason))
    func repairLinksAndNamesOrphans() throws {
        let work = try Work()
        defer { work.folder.remove() }
        let id = try work.detachAndKill(["--save-video"])
        let video = work.folder.path("videos/\(id).mkv")
        try Self.forgetVideo(work.database, id: id)
        #expect(try !work.run(["show", id]).stdout.contains("Saved video"))
        // A video of a session this database does not hold (another database's, or one deleted
        // long ago), a file not named by a session id, and one whose header names no session.
        let stranger = UUID().uuidString
        let foreign = work.folder.path("videos/\(stranger).mkv")
        let notes = work.folder.path("videos/notes.mkv")
        let untitled = work.folder.path("videos/\(UUID().uuidString).mkv")
        try Data(("x" + RecordingFacts.SavedVideo.title(sessionID: stranger)).utf8).write(to: URL(fileURLWithPath: foreign))
        try Data(RecordingFacts.SavedVideo.title(sessionID: id).utf8).write(to: URL(fileURLWithPath: notes))
        try Data("no title".utf8).write(to: URL(fileURLWithPath: untitled))

        let repair = try work.run(["repair"])
        #expect(repair.status == 0, "\(repair.stderr)")
        #expect(repair.stderr.contains("linked \(video) to session \(id)"), "\(repair.stderr)")
        #expect(repair.stderr.contains("\(foreign): the video of a session this database does not hold; kept"), "\(repair.stderr)")
        #expect(!repair.stderr.contains(notes) && !repair.stderr.contains(untitled), "\(repair.stderr)")
        let shown = try work.run(["show", id]).stdout
        #expect(shown.contains("Saved video") && shown.contains(video), "\(shown)")
        // A second repair links nothing again.
        #expect(try !work.run(["repair"]).stderr.contains("linked"))

        let deleted = try work.run(["delete", id])
        #expect(deleted.status == 0 && deleted.stderr.contains(video), "\(deleted.stderr)")
        #expect(!FileManager.default.fileExists(atPath: video), "the killed recorder's video stayed after delete")
        for kept in [foreign, notes, untitled] { #expect(FileManager.default.fileExists(atPath: kept), "\(kept) was removed") }
    }
}
