import Foundation
import GazeModel
import GRDB

/// How a session names its saved video (`recorder.savedVideo.path`), and which videos a database owns.
///
/// A video saved in the database's folder or below is named relative to that folder
/// (`videos/<id>.mkv`), and found there from any working directory; one saved elsewhere by its
/// absolute path. A database owns — and deletes with its session — only a video of its own: one
/// named relative to its folder that stays inside it, or (sessions recorded before relative names)
/// one named by an absolute path inside its own `videos` folder; either way only a file that carries
/// the session's title. A copy of the database in another folder (`backup`, or a copied folder)
/// therefore never deletes the original's videos, and a copied folder's copy deletes its own.
extension SessionDatabase {
    /// The folder the database file at `databasePath` lies in, as an absolute path.
    public static func folder(databasePath: String) -> String {
        absolute(URL(fileURLWithPath: databasePath).deletingLastPathComponent().path)
    }

    /// `folder(databasePath:)` of this database.
    public var folder: String { Self.folder(databasePath: path) }

    /// How a session of this database names the video at `path` (absolute, or relative to the
    /// working directory): relative to the database's folder when it lies in it or below, else absolute.
    public func storedVideoPath(_ path: String) -> String {
        let file = Self.absolute(path)
        guard let relative = Self.relative(file, inside: folder) else { return file }
        return relative
    }

    /// The file a stored `savedVideo.path` names, absolute: a relative path resolved against the
    /// database's folder (never the working directory), an absolute one as it is.
    public func resolvedVideoPath(_ stored: String) -> String {
        stored.hasPrefix("/") ? Self.absolute(stored) : Self.absolute(folder + "/" + stored)
    }

    /// Whether a video named by `stored` lies where this database owns videos (the file's title
    /// is checked apart): named relative to the database's folder and inside it, or named by an
    /// absolute path inside its own video folder.
    func ownsVideoPlace(_ stored: String) -> Bool {
        let resolved = resolvedVideoPath(stored)
        return Self.relative(resolved, inside: stored.hasPrefix("/") ? defaultVideoFolder : folder) != nil
    }

    /// `file` relative to `folder` when it lies below it (both absolute and standardized), else nil.
    static func relative(_ file: String, inside folder: String) -> String? {
        let prefix = folder.hasSuffix("/") ? folder : folder + "/"
        guard file.hasPrefix(prefix), file.count > prefix.count else { return nil }
        return String(file.dropFirst(prefix.count))
    }

    /// The resolved paths of the saved videos this database's sessions own (backup checks them);
    /// a session whose extension cannot be read counts none, so a damaged file can still be copied.
    func ownedVideos() throws -> [String] {
        try read("read the saved videos") { db in
            try SessionTable.rowids(db).flatMap { (try? SessionFiles.named(db, rowid: $0, in: self).owned) ?? [] }
        }
    }

    /// In a copy of `original`, names every saved video by the absolute path the original resolves
    /// it to, so the copy finds the original's videos from any folder and owns none of them outside
    /// its own. A session whose extension cannot be read is left as it is.
    func nameVideosAbsolutely(as original: SessionDatabase) throws {
        try write("name the saved videos in the copy") { db in
            for rowid in try SessionTable.rowids(db) {
                guard let header = try? SessionTable.header(db, rowid: rowid), var mark = header.gazerecExtension,
                      var facts = mark.recorder, var video = facts.savedVideo, !video.path.hasPrefix("/") else { continue }
                video.path = original.resolvedVideoPath(video.path)
                facts.savedVideo = video
                mark.recorder = facts
                try SessionTable.setExtension(db, rowid: rowid, mark)
            }
        }
    }

    /// `gazerecExtension` with its saved video's path resolved (`resolvedVideoPath`): how an export
    /// names the video, so that a reader anywhere finds it.
    func resolvingVideoPath(_ gazerecExtension: SessionExtension?) -> SessionExtension? {
        guard var mark = gazerecExtension, var facts = mark.recorder, var video = facts.savedVideo else { return gazerecExtension }
        video.path = resolvedVideoPath(video.path)
        facts.savedVideo = video
        mark.recorder = facts
        return mark
    }
}
