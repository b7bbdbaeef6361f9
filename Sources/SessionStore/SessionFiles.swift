import Foundation
import GazeModel
import GRDB

/// What a deletion removed: the sessions, and the files on disk they owned.
public struct DeletionReport: Sendable, Equatable {
    /// The full ids of the deleted sessions.
    public var sessionIDs: [String] = []
    /// The files removed with them (each session's saved video), absolute paths.
    public var removedFiles: [String] = []
    /// Files the sessions named that were not theirs (an imported session's video path, or a file
    /// without the session's title), left where they are.
    public var keptFiles: [String] = []

    public init(sessionIDs: [String] = [], removedFiles: [String] = [], keptFiles: [String] = []) {
        self.sessionIDs = sessionIDs
        self.removedFiles = removedFiles
        self.keptFiles = keptFiles
    }
}

/// The files a session owns beside its rows, and their removal in the same step as the rows.
///
/// A session owns the video its recording saved (`recorder.savedVideo` in its extension). A
/// deletion first moves each owned file aside (a rename in its folder: atomic and undone by a
/// rename back), then deletes the rows in one transaction, and only once that has committed
/// unlinks the moved files. A file that cannot be moved aside fails the deletion, naming it, with
/// every session and file as it was: no session is ever half deleted. A file already gone is not
/// an error (there is nothing left to remove).
final class SessionFiles {
    private var moved: [(original: String, aside: String)] = []

    /// The files the session at `rowid` of `database` names (its saved video, resolved against the
    /// database's folder), split into those it owns — that lie where `database` owns videos
    /// (`ownsVideoPlace`), exist and carry its title in their header — and those it does not (an
    /// imported session's path, the original's video named by a copy of the database, or a file
    /// put there since), which are left alone.
    static func named(_ db: Database, rowid: Int64, in database: SessionDatabase) throws -> (owned: [String], notOwned: [String]) {
        let header = try SessionTable.header(db, rowid: rowid)
        guard let stored = header.gazerecExtension?.recorder?.savedVideo?.path else { return ([], []) }
        let path = database.resolvedVideoPath(stored)
        guard FileManager.default.fileExists(atPath: path) else { return ([], []) }
        let title = RecordingFacts.SavedVideo.title(sessionID: header.id)
        return database.ownsVideoPlace(stored) && carries(path, title) ? ([path], []) : ([], [path])
    }

    /// Whether the first mebibyte of the file at `path` holds `title` (Matroska keeps it there).
    static func carries(_ path: String, _ title: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: 1 << 20)) ?? Data()
        return head.range(of: Data(title.utf8)) != nil
    }

    /// Moves the owned files of the session at `rowid` aside; returns the files it names but does not own.
    func moveOwned(_ db: Database, rowid: Int64, in database: SessionDatabase) throws -> [String] {
        let files = try Self.named(db, rowid: rowid, in: database)
        for file in files.owned { try moveAside(file) }
        return files.notOwned
    }

    /// Moves `path` aside; throws `StoreError.io` naming it when it cannot.
    func moveAside(_ path: String) throws {
        let aside = (path as NSString).deletingLastPathComponent + "/.gazerec-deleting-\(getpid())-"
            + (path as NSString).lastPathComponent
        guard rename(path, aside) == 0 else {
            let reason = String(cString: strerror(errno))
            throw StoreError.io(action: "delete the session's video", path: path, reason: reason + "; the session was kept")
        }
        moved.append((path, aside))
    }

    /// Puts every moved file back (the deletion did not happen).
    func restore() {
        for file in moved.reversed() { _ = rename(file.aside, file.original) }
        moved = []
    }

    /// Unlinks every moved file (the deletion committed); returns their original paths.
    func finish() -> [String] {
        defer { moved = [] }
        return moved.map { file in
            _ = unlink(file.aside)
            return file.original
        }
    }

    /// Runs `body`, which moves files aside and deletes rows in one transaction (throwing rolls
    /// both back), and removes the moved files once it has returned.
    static func deleting<T>(_ body: (SessionFiles) throws -> T) throws -> (T, [String]) {
        let files = SessionFiles()
        do {
            let result = try body(files)
            return (result, files.finish())
        } catch {
            files.restore()
            throw error
        }
    }
}

extension SessionDatabase {
    /// Deletes the sessions with these ids (or unambiguous prefixes) and the files they own, in
    /// one step: if any id is unknown or any file cannot be removed, nothing is deleted.
    public func deleteSessions(ids: [String]) throws -> DeletionReport {
        var kept: [String] = []
        let (deleted, removed) = try SessionFiles.deleting { files in
            try write("delete sessions") { db in
                let rowids = try ids.map { try sessionRowID(db, id: $0) }
                return try rowids.compactMap { rowid -> String? in
                    kept += try files.moveOwned(db, rowid: rowid, in: self)
                    let id = try SessionTable.id(db, rowid: rowid)
                    try SessionTable.delete(db, rowid: rowid)
                    return id
                }
            }
        }
        return DeletionReport(sessionIDs: deleted, removedFiles: removed, keptFiles: kept)
    }

    /// Deletes every session (the iOS package's `deleteAll()`) and the files they own, in one step.
    public func deleteAllSessions() throws -> DeletionReport {
        var kept: [String] = []
        let (ids, removed) = try SessionFiles.deleting { files in
            try write("delete all sessions") { db in
                for rowid in try SessionTable.rowids(db) { kept += try files.moveOwned(db, rowid: rowid, in: self) }
                let ids = try SessionTable.ids(db)
                try BlendShapeTable.deleteAll(db)
                try GazeSampleTable.deleteAll(db)
                try FrameTable.deleteAll(db)
                try BlinkTable.deleteAll(db)
                try MarkerTable.deleteAll(db)
                try ExpressionTable.deleteAll(db)
                try PresentationTable.deleteAll(db)
                try SessionTable.deleteAll(db)
                return ids
            }
        }
        return DeletionReport(sessionIDs: ids, removedFiles: removed, keptFiles: kept)
    }

    /// Removes the database file, its WAL/SHM companions and every file its sessions own (the iOS
    /// package's `deleteDatabase()`). Call with no other `SessionDatabase` open on the file in this
    /// process. The file goes while this holds its write lock, so a writer in another process (an
    /// import, a deletion) finishes first and what it stored goes too; one that holds the lock
    /// longer than the busy timeout fails the deletion, which then deletes nothing. A file that
    /// cannot be read as a session database is removed all the same (it owns no file we know of).
    public static func deleteDatabase(path: String) throws -> DeletionReport {
        guard (try? SessionDatabase.openForReading(path: path)) != nil else {
            let (_, removed) = try SessionFiles.deleting { _ in try deleteFiles(path: path) }
            return DeletionReport(removedFiles: removed)
        }
        return try SessionDatabase(path: path).deleteOwnFile()
    }

    /// Deletes this database's file and its sessions' own files inside a write transaction that is
    /// never committed (the file is gone when it ends).
    private func deleteOwnFile() throws -> DeletionReport {
        var report = DeletionReport()
        try writeLocked("delete the database") { db in
            // A damaged file is removed all the same, naming what could be read of it.
            let named = (try? SessionTable.rowids(db).map { try SessionFiles.named(db, rowid: $0, in: self) }) ?? []
            report.sessionIDs = (try? SessionTable.ids(db)) ?? []
            report.keptFiles = named.flatMap(\.notOwned)
            (_, report.removedFiles) = try SessionFiles.deleting { files in
                for file in named.flatMap(\.owned) { try files.moveAside(file) }
                try Self.deleteFiles(path: path)
            }
        }
        return report
    }
}
