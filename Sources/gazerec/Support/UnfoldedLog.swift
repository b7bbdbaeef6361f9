import Foundation

/// A database's write-ahead log (`<database>-wal`) holding commits that are not in the database
/// file yet: after a recording on a disk too full for the file to grow (the checkpoint fails), or a
/// process killed outright. The `.sqlite` alone then lacks them (a recording's whole session, or
/// reads as malformed), so `start` and `status` say how to keep the data.
enum UnfoldedLog {
    /// The log's size in bytes, nil when it is absent or empty.
    static func bytes(databasePath: String) -> Int64? {
        var info = stat()
        guard stat(databasePath + "-wal", &info) == 0, info.st_size > 0 else { return nil }
        return Int64(info.st_size)
    }

    /// What `start` says when its recording's log could not be folded into the file.
    static func text(databasePath: String) -> String {
        "the log \(databasePath)-wal could not be folded into \(databasePath) (no room for the file to grow): "
            + "the .sqlite alone lacks this recording and may read as malformed. " + advice(databasePath)
    }

    /// What `status` says when no recorder runs and the log holds `bytes` of commits.
    static func text(databasePath: String, bytes: Int64) -> String {
        "the log \(databasePath)-wal holds \(bytes) bytes of commits not yet in "
            + "\(databasePath): the .sqlite alone lacks them. " + advice(databasePath)
    }

    private static func advice(_ databasePath: String) -> String {
        "Copy both files together, or run 'gazerec backup FILE' once there is room; 'gazerec list' folds the log "
            + "into the file once the disk has room."
    }
}
