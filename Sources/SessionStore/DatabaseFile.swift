import Foundation
import GRDB
import GRDBSQLite

/// The database as one file: its write-ahead log folded back into it when a writer finishes, and
/// a consistent copy of it taken while a recorder writes.
///
/// In WAL mode a commit lands in the `-wal` file beside the database, and SQLite copies it into
/// the main file only from time to time (a checkpoint). A writer that has finished therefore
/// checkpoints and empties the log (`finishWriting`), so that the `.sqlite` file alone holds every
/// session whenever no command runs: the one file a researcher copies. A checkpoint never waits on
/// another process: one that finds a recorder inside a commit, or a reader on an older snapshot,
/// tries again shortly and, after `checkpointPatienceSeconds`, leaves the log to whoever writes
/// last (a recorder checkpoints when it ends). A checkpoint is safe beside a running recorder:
/// SQLite lets the recorder's next commit start the log afresh.
extension SessionDatabase {
    /// How long `finishWriting` keeps trying to fold the log into the file, in seconds.
    static let checkpointPatienceSeconds = 1.0

    /// Copies every committed transaction from the `-wal` file into the database file and empties
    /// the log, if this connection wrote anything (or, with `leftover`, whatever the log holds: one
    /// a recorder could not fold in on a full disk); returns whether the file is now complete (true
    /// also when there was nothing to do). Never blocks another process's commit.
    @discardableResult
    public func finishWriting(leftover: Bool = false) -> Bool {
        guard !isReadOnly, isFile else { return true }
        let deadline = Date().addingTimeInterval(Self.checkpointPatienceSeconds)
        while true {
            let done = (try? writer.writeWithoutTransaction { db -> Bool in
                let connection = db.sqliteConnection
                guard leftover || sqlite3_total_changes64(connection) > 0 else { return true }
                // No busy wait: a checkpoint that waited would hold a recorder's commit back.
                sqlite3_busy_timeout(connection, 0)
                defer { sqlite3_busy_timeout(connection, Int32(Self.busyTimeoutSeconds * 1000)) }
                return sqlite3_wal_checkpoint_v2(connection, nil, SQLITE_CHECKPOINT_TRUNCATE, nil, nil) == SQLITE_OK
            }) ?? false
            if done { return true }
            guard Date() < deadline else { return false }
            usleep(20_000)
        }
    }

    /// Writes a consistent copy of the whole database to `destination` (a new file: an existing
    /// one is refused), as of one moment, while a recorder may go on writing: the copy is one
    /// self-contained file, written beside its destination and renamed into place when complete.
    ///
    /// The copy holds no saved video: its sessions name the videos this database saved by their
    /// absolute paths, which the copy reads but never owns (deleting a session in the copy leaves
    /// the original's video alone). A copy beside this database would share its `videos` folder,
    /// where it would own them, so one is refused while this database owns a saved video. Returns
    /// the number of videos the copy names that way.
    @discardableResult
    public func backUp(to destination: String) throws -> Int {
        if FileManager.default.fileExists(atPath: destination) {
            throw StoreError.io(action: "write the copy", path: destination,
                                reason: "the file exists, and a copy never overwrites one; give a new file name")
        }
        let owned = try ownedVideos()
        if Self.folder(databasePath: destination) == self.folder, !owned.isEmpty {
            throw StoreError.io(action: "write the copy", path: destination, reason: "it would lie beside \(path) and share "
                                + "its videos folder, so deleting a session in the copy would delete the original's saved video "
                                + "(\(owned.count) of them); give the copy a path in another folder")
        }
        let folder = (destination as NSString).deletingLastPathComponent.nonEmpty ?? "."
        let temporary = folder + "/.gazerec-copy-\(getpid())-" + (destination as NSString).lastPathComponent
        unlink(temporary)
        do {
            try guarded("copy the session database") {
                try writer.writeWithoutTransaction { db in try Self.vacuum(db, into: temporary) }
            }
            try SessionDatabase(path: temporary).nameVideosAbsolutely(as: self)
        } catch {
            unlink(temporary)
            throw error
        }
        let descriptor = open(temporary, O_RDONLY | O_CLOEXEC)
        if descriptor >= 0 {
            fsync(descriptor)
            close(descriptor)
        }
        guard link(temporary, destination) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw StoreError.io(action: "write the copy", path: destination, reason: reason)
        }
        unlink(temporary)
        return owned.count
    }
}

extension SessionDatabase {
    /// Removes the database file at `path`, with its `-wal` and `-shm`, that a command created and
    /// then failed to store anything in (a failed import): only while it holds no session and no
    /// calibration, so nothing another process stored meanwhile is lost.
    public static func removeCreatedFile(at path: String) {
        let empty: Bool = {
            // Closed again before the files go.
            guard let database = try? SessionDatabase(path: path, access: .readOnly) else { return false }
            return (try? database.sessionIDs().isEmpty) == true && (try? database.calibrations().isEmpty) == true
        }()
        guard empty else { return }
        for suffix in ["", "-wal", "-shm", "-journal"] { unlink(path + suffix) }
    }
}

extension SessionDatabase {
    /// Runs `body` holding the database's write lock (waiting up to the busy timeout for another
    /// process's write to end), in a transaction that is rolled back: for removing the file itself,
    /// which no other writer may be in the middle of. The log is kept on closing, so closing this
    /// connection never touches a `-wal` file a new database at the same path may have by then.
    func writeLocked(_ action: String, _ body: (Database) throws -> Void) throws {
        try guarded(action) {
            try writer.writeWithoutTransaction { db in
                var persist: Int32 = 1
                sqlite3_file_control(db.sqliteConnection, nil, SQLITE_FCNTL_PERSIST_WAL, &persist)
                try db.inTransaction(.immediate) {
                    try body(db)
                    return .rollback
                }
            }
        }
    }
}
