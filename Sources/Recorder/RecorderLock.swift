import Foundation
import JSONStream

/// What a running recorder tells other processes (the lock file's content).
public struct RecorderInfo: Codable, Sendable, Equatable {
    /// The session id reported for a recorder that has not yet published its session.
    public static let unknownSession = "(unknown)"
    public var pid: Int32
    public var sessionID: String
    public var startedAt: Double
}

/// One recording per database: an exclusive `flock` on `<database>.recorder`, held for the
/// recorder's lifetime. The kernel releases it when the process dies, however it dies, so a lock
/// left by a killed recorder is seen as stale (the file still names it) and taken over.
///
/// The holder writes its process id into the file the moment it has the lock (its session id
/// follows once the session exists), and the file is never empty while locked except for the
/// instant between the lock and that write: a reader that finds the lock held and the file not yet
/// readable looks again for a moment, so a `start` racing another names the other's process.
///
/// The holder removes the file when it lets go, while it still holds the lock, so an ended
/// recording leaves nothing beside the database. Another process may have opened the file just
/// before and lock it just after: it then holds a file no longer at the path, while a third could
/// create and lock a new one. So whoever takes the lock checks that the file it locked is still the
/// one at the path (device and inode) and otherwise starts over; a reader that finds a removed file
/// unlocked looks at the path again. A recorder that dies (kill -9) leaves its file and its status
/// file: `removeDeadRecorderFiles` removes them, holding the lock.
public final class RecorderLock {
    public let path: String
    private var descriptor: Int32
    /// The recorder that held this lock before and died without releasing it, if any.
    public let staleInfo: RecorderInfo?

    public static func lockPath(databasePath: String) -> String { databasePath + ".recorder" }
    public static func statusPath(databasePath: String) -> String { databasePath + ".recorder-status" }
    /// Where a detached recorder (`start --detach`) writes its stderr, kept after it ends.
    public static func logPath(databasePath: String) -> String { databasePath + ".recorder.log" }

    /// Takes the lock, or throws `alreadyRecording` naming the live recorder. The database's
    /// folder is created when missing (a first recording into a new place). A recorder
    /// (`announcing`) writes its process id into the file at once; a short change made while
    /// nobody records (`whileNotRecording`) does not, and a `start` meanwhile waits for it briefly.
    public init(databasePath: String, announcing: Bool = true) throws {
        path = Self.lockPath(databasePath: databasePath)
        let folder = (databasePath as NSString).deletingLastPathComponent
        if !folder.isEmpty && !FileManager.default.fileExists(atPath: folder) {
            do {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            } catch {
                throw RecorderError.lockFailed(path: path, reason: "its folder cannot be created: "
                                               + (error as NSError).localizedDescription)
            }
        }
        descriptor = try Self.acquire(path, databasePath: databasePath)
        staleInfo = Self.read(descriptor)
        // Named at once: a racing start must not find the lock held by nobody it can name.
        guard announcing else {
            // A dead recorder's name must not be read as this process's.
            _ = ftruncate(descriptor, 0)
            return
        }
        try publish(RecorderInfo(pid: getpid(), sessionID: RecorderInfo.unknownSession, startedAt: Date().timeIntervalSince1970))
    }

    deinit { release() }

    /// Records the running session in the lock file (written over the old content, then cut to
    /// length, so the file is not empty in between).
    public func publish(_ info: RecorderInfo) throws {
        let data = try JSONDocument.bytes(encoding: info, pretty: false, lineBreak: false)
        guard pwrite(descriptor, [UInt8](data), data.count, 0) == data.count, ftruncate(descriptor, off_t(data.count)) == 0 else {
            throw RecorderError.lockFailed(path: path, reason: String(cString: strerror(errno)))
        }
    }

    /// Empties and removes the file, then unlocks it (also on deinit). The file is removed only
    /// while it is the one at the path, which nobody but the holder can change.
    public func release() {
        guard descriptor >= 0 else { return }
        _ = ftruncate(descriptor, 0)
        if Self.isAtPath(descriptor, path) { unlink(path) }
        flock(descriptor, LOCK_UN)
        close(descriptor)
        descriptor = -1
    }

    /// Opens the file at `path` and takes its lock, or throws `alreadyRecording` naming the
    /// holder. Starts over while the file it locked is no longer the one at `path` (a holder removed
    /// it on letting go, after this process had opened it).
    private static func acquire(_ path: String, databasePath: String) throws -> Int32 {
        for _ in 0..<100 {
            let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else {
                throw RecorderError.lockFailed(path: path, reason: String(cString: strerror(errno)))
            }
            guard take(descriptor) else {
                let info = holder(descriptor)
                close(descriptor)
                throw RecorderError.alreadyRecording(sessionID: info?.sessionID ?? RecorderInfo.unknownSession,
                                                     pid: info?.pid ?? 0, databasePath: databasePath)
            }
            if isAtPath(descriptor, path) { return descriptor }
            flock(descriptor, LOCK_UN)
            close(descriptor)
        }
        throw RecorderError.lockFailed(path: path, reason: "it was removed and made again 100 times while being locked")
    }

    /// Whether `descriptor` is the file at `path` now (same device and inode): not one removed since it was opened.
    static func isAtPath(_ descriptor: Int32, _ path: String) -> Bool {
        var opened = stat(), named = stat()
        return fstat(descriptor, &opened) == 0 && stat(path, &named) == 0
            && opened.st_dev == named.st_dev && opened.st_ino == named.st_ino
    }

    /// Takes the exclusive lock without waiting; a holder that lets go within a second (a short
    /// change made while nobody records) is waited for.
    private static func take(_ descriptor: Int32) -> Bool {
        for _ in 0..<100 {
            if flock(descriptor, LOCK_EX | LOCK_NB) == 0 { return true }
            if read(descriptor) != nil { return false }
            usleep(10_000)
        }
        return false
    }

    /// What a locked file says of its holder; looks again for up to a second while it cannot be
    /// read yet (the holder is between taking the lock and writing its id, or mid-write). Nil
    /// when the lock was released meanwhile or the file never became readable.
    private static func holder(_ descriptor: Int32) -> RecorderInfo? {
        for _ in 0..<100 {
            if let info = read(descriptor) { return info }
            if flock(descriptor, LOCK_SH | LOCK_NB) == 0 {
                flock(descriptor, LOCK_UN)
                return nil
            }
            usleep(10_000)
        }
        return nil
    }

    private static func read(_ descriptor: Int32) -> RecorderInfo? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = pread(descriptor, &buffer, buffer.count, 0)
        guard count > 0 else { return nil }
        return try? JSONDecoder().decode(RecorderInfo.self, from: Data(buffer.prefix(count)))
    }

    /// Holds the lock while `body` changes the database, so no recording starts meanwhile; when a
    /// recorder holds it, throws `recordingInProgress` for `action` unless `allowed` says the
    /// running session is untouched (then `body` runs beside the recorder, as SQLite allows).
    public static func whileNotRecording<T>(databasePath: String, action: String,
                                            allowed: (RecorderInfo) -> Bool = { _ in false },
                                            _ body: () throws -> T) throws -> T {
        try whileNotRecording(databasePath: databasePath, action: action, allowed: allowed) { (_: RecorderInfo?) in try body() }
    }

    /// `whileNotRecording`, telling `body` the recorder it runs beside (nil: this process holds the lock).
    static func whileNotRecording<T>(databasePath: String, action: String, allowed: (RecorderInfo) -> Bool = { _ in false },
                                     _ body: (RecorderInfo?) throws -> T) throws -> T {
        let lock: RecorderLock
        do {
            lock = try RecorderLock(databasePath: databasePath, announcing: false)
        } catch RecorderError.alreadyRecording(let id, let pid, _) {
            let info = RecorderInfo(pid: pid, sessionID: id, startedAt: 0)
            guard allowed(info) else {
                throw RecorderError.recordingInProgress(action: action, sessionID: id, pid: pid, databasePath: databasePath)
            }
            return try body(info)
        }
        defer { lock.release() }
        return try body(nil)
    }

    /// The live recorder of a database, or nil (no lock file, or its lock is free: nobody records).
    /// A file found free but removed meanwhile says nothing of the one at the path now: that is looked at.
    public static func running(databasePath: String) -> RecorderInfo? {
        let path = lockPath(databasePath: databasePath)
        for _ in 0..<100 {
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { return nil }
            defer { close(descriptor) }
            guard flock(descriptor, LOCK_SH | LOCK_NB) == 0 else { return holder(descriptor) }
            flock(descriptor, LOCK_UN)
            if isAtPath(descriptor, path) { return nil }
        }
        return nil
    }

    /// Removes what a recorder that died (kill -9, a crash, a power cut) left beside the database:
    /// its status file (`<database>.recorder-status`, and the temporary one of a write it was in)
    /// and its lock file, which still names it. Done holding the lock, so never while a recorder
    /// runs (the status file is written only by the lock's holder). Returns the paths removed: none
    /// when a recorder runs, when nothing was left, or when the folder cannot be written.
    @discardableResult
    public static func removeDeadRecorderFiles(databasePath: String) -> [String] {
        let status = statusFiles(databasePath: databasePath)
        let left = (status + [lockPath(databasePath: databasePath)]).filter { FileManager.default.fileExists(atPath: $0) }
        guard !left.isEmpty, running(databasePath: databasePath) == nil else { return [] }
        // The lock file goes as the lock is let go (`release`).
        let removed = try? whileNotRecording(databasePath: databasePath, action: "remove a dead recorder's files") {
            for path in status { unlink(path) }
        }
        guard removed != nil else { return [] }
        return left.filter { !FileManager.default.fileExists(atPath: $0) }
    }

    /// The status file and the temporary siblings of status writes a recorder was in when it died
    /// (`<status>.tmp-<pid>`, and `<status>.tmp` of earlier versions), those that exist.
    static func statusFiles(databasePath: String) -> [String] {
        let status = statusPath(databasePath: databasePath)
        let folder = (status as NSString).deletingLastPathComponent
        let name = (status as NSString).lastPathComponent
        let siblings = ((try? FileManager.default.contentsOfDirectory(atPath: folder.isEmpty ? "." : folder)) ?? [])
            .filter { $0.hasPrefix(name + ".tmp") }.sorted()
            .map { folder.isEmpty ? $0 : folder + "/" + $0 }
        return ([status] + siblings).filter { FileManager.default.fileExists(atPath: $0) }
    }
}
