import Foundation
import SessionStore

/// Recordings whose recorder died (kill -9, a crash, a power cut): their sessions closed (`endTime`
/// = the last sample, marked interrupted) and the lock and status files the recorder left removed,
/// never touching a recorder that runs; with no recorder running, a log one could not fold into the
/// file (a full disk then) is folded in. `start` does it as it begins; `list`, `push` and `repair`
/// through `close(in:)`.
public enum DeadRecordings {
    /// What closing dead recordings did.
    public struct Cleanup: Sendable, Equatable {
        /// The sessions closed, oldest first.
        public var closedSessionIDs: [String] = []
        /// The files a dead recorder left that were removed (its status file, and the temporary
        /// one of a write it was in; its lock file goes unnamed as the lock is let go).
        public var removedFiles: [String] = []
        /// The session of the recorder running now, if any: left open.
        public var runningSessionID: String?

        public init() {}
    }

    /// Removes what a dead recorder left beside `database`'s file and closes every open session
    /// but a running recorder's.
    public static func close(in database: SessionDatabase) throws -> Cleanup {
        var cleanup = Cleanup()
        cleanup.runningSessionID = RecorderLock.running(databasePath: database.path)?.sessionID
        if cleanup.runningSessionID == nil {
            cleanup.removedFiles = RecorderLock.removeDeadRecorderFiles(databasePath: database.path)
        }
        cleanup.closedSessionIDs = try database.repairInterruptedSessions(except: cleanup.runningSessionID)
        if cleanup.runningSessionID == nil {
            // A log a recorder could not fold in (a full disk then): folded in now, where there is room.
            _ = database.finishWriting(leftover: true)
        }
        return cleanup
    }

    /// `close(in:)` for the database at `databasePath` when it exists and this process may write it
    /// and its folder; nil otherwise (an archive on a read-only share is left as it is).
    public static func closeIfWritable(databasePath: String) throws -> Cleanup? {
        let folder = (databasePath as NSString).deletingLastPathComponent
        guard FileManager.default.fileExists(atPath: databasePath), access(databasePath, W_OK) == 0,
              access(folder.isEmpty ? "." : folder, W_OK) == 0 else { return nil }
        return try close(in: SessionDatabase(path: databasePath))
    }
}
