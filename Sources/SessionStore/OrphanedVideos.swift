import Foundation
import GazeModel
import GRDB

/// What `repairOrphanedVideos` found in a videos folder.
public struct OrphanedVideoReport: Sendable, Equatable {
    /// Videos now named by their session (session id, absolute path): recorded by a gazerec that
    /// named the video only at the end, by a recorder that died before then.
    public var linked: [(id: String, path: String)] = []
    /// Videos of a session this database does not hold (absolute paths), left where they are: a
    /// session deleted before videos went with their sessions, or another database's session
    /// (databases in one folder share its `videos` folder), which nothing here can tell apart.
    public var unclaimed: [String] = []

    public init() {}

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.linked.map(\.id) == rhs.linked.map(\.id) && lhs.linked.map(\.path) == rhs.linked.map(\.path)
            && lhs.unclaimed == rhs.unclaimed
    }
}

extension SessionDatabase {
    /// The folder videos are saved to by default: `videos` beside the database file at
    /// `databasePath`, as an absolute path (a session names a video saved there relative to the
    /// database's folder, `videos/<id>.mkv`: see `storedVideoPath`).
    public static func defaultVideoFolder(databasePath: String) -> String {
        absolute(URL(fileURLWithPath: databasePath).deletingLastPathComponent().appendingPathComponent("videos").path)
    }

    /// `defaultVideoFolder(databasePath:)` of this database.
    public var defaultVideoFolder: String { Self.defaultVideoFolder(databasePath: path) }

    /// `path` made absolute against the working directory, without `.` and `..` parts.
    static func absolute(_ path: String) -> String { URL(fileURLWithPath: path).standardizedFileURL.path }

    /// Finds the videos in `folder` (default: `defaultVideoFolder`) that a dead recorder left
    /// unnamed by their session, and links each to its session when this database holds it.
    ///
    /// Only files named `<session id>.mkv`, the id a UUID, whose header carries that session's
    /// title are considered; `except` is a running recorder's session. A session of this database
    /// that names no video gets this one (frame counts 0: never counted); a session that names
    /// another file is left as it is. A video whose session this database does not hold is never
    /// removed — it may be another database's — only reported.
    public func repairOrphanedVideos(folder: String? = nil, except running: String? = nil) throws -> OrphanedVideoReport {
        let folder = folder.map(Self.absolute) ?? defaultVideoFolder
        let candidates = OrphanedVideos.candidates(in: folder).filter { $0.id.uppercased() != running?.uppercased() }
        guard !candidates.isEmpty else { return OrphanedVideoReport() }
        return try write("link orphaned videos") { db in
            var report = OrphanedVideoReport()
            for candidate in candidates {
                guard let rowid = try SessionTable.rowid(db, id: candidate.id, allowPrefix: false) else {
                    report.unclaimed.append(candidate.path)
                    continue
                }
                if try OrphanedVideos.link(db, rowid: rowid, path: storedVideoPath(candidate.path)) {
                    report.linked.append((candidate.id, candidate.path))
                }
            }
            return report
        }
    }
}

/// The videos a recorder saved under their session's id, and their linking to that session.
enum OrphanedVideos {
    /// The files `<UUID>.mkv` in `folder` that carry the title of the session they are named for,
    /// by name; none when the folder does not exist.
    static func candidates(in folder: String) -> [(id: String, path: String)] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.sorted().compactMap { name -> (id: String, path: String)? in
            let id = String(name.dropLast(4)), path = folder + "/" + name
            guard name.hasSuffix(".mkv"), UUID(uuidString: id) != nil,
                  SessionFiles.carries(path, RecordingFacts.SavedVideo.title(sessionID: id)) else { return nil }
            return (id, path)
        }
    }

    /// Names `path` (as the session stores it: `storedVideoPath`) as the saved video of the session
    /// at `rowid` if the session names none and has its recorder's facts; returns whether it did.
    static func link(_ db: Database, rowid: Int64, path: String) throws -> Bool {
        let header = try SessionTable.header(db, rowid: rowid)
        guard var facts = header.gazerecExtension?.recorder, facts.savedVideo == nil,
              var mark = header.gazerecExtension else { return false }
        facts.savedVideo = RecordingFacts.SavedVideo(path: path, frames: 0, droppedFrames: 0)
        mark.recorder = facts
        try SessionTable.setExtension(db, rowid: rowid, mark)
        return true
    }
}
