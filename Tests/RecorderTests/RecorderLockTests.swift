import Foundation
import Testing
import TestSupport
@testable import Recorder

/// The one-recorder lock's file: removed when let go, never at the cost of two holders, and what a
/// dead recorder left removed only while nobody records.
@Suite("Recorder lock file")
struct RecorderLockTests {
    /// The descriptors this process has open on `path` (as /proc/self/fd names them).
    static func openDescriptors(on path: String) -> Int {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return names.filter { (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + $0)) == path }.count
    }

    /// What a thread's attempt to take the lock ended with.
    final class Attempt: @unchecked Sendable {
        private let guardLock = NSLock()
        private var outcome: Result<RecorderLock, any Error>?
        var result: Result<RecorderLock, any Error>? {
            guardLock.lock()
            defer { guardLock.unlock() }
            return outcome
        }
        func finish(_ result: Result<RecorderLock, any Error>) {
            guardLock.lock()
            outcome = result
            guardLock.unlock()
        }
    }

    @Test("letting go of the lock removes its file; taking it again makes a new one")
    func releaseRemovesFile() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = folder.path("db.sqlite")
        let path = RecorderLock.lockPath(databasePath: database)
        let lock = try RecorderLock(databasePath: database)
        #expect(FileManager.default.fileExists(atPath: path))
        lock.release()
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(RecorderLock.running(databasePath: database) == nil)
        // A short change made while nobody records (delete, say) leaves nothing either.
        try RecorderLock.whileNotRecording(databasePath: database, action: "change") {
            #expect(FileManager.default.fileExists(atPath: path))
        }
        #expect(!FileManager.default.fileExists(atPath: path))
        let again = try RecorderLock(databasePath: database)
        defer { again.release() }
        #expect(RecorderLock.running(databasePath: database)?.pid == getpid())
    }

    @Test("a start that opened the file before its holder let go does not hold the removed file: it takes a new one, and no third process can take the lock beside it")
    func racingStartStartsOver() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = folder.path("db.sqlite")
        let path = RecorderLock.lockPath(databasePath: database)
        // Given a short change holding the lock (its file empty: a start waits for it up to a second)
        let holder = try RecorderLock(databasePath: database, announcing: false)
        // and a start that has opened the file and waits for the lock
        let attempt = Attempt()
        let starting = Thread {
            attempt.finish(Result(catching: { try RecorderLock(databasePath: database) }))
        }
        starting.start()
        var waited = 0
        while Self.openDescriptors(on: path) < 2 && waited < 500 {
            usleep(2_000)
            waited += 1
        }
        try #require(Self.openDescriptors(on: path) == 2, "the start never opened the lock file")

        // When the change lets go (removing the file) and the start gets the lock
        holder.release()
        while attempt.result == nil { usleep(2_000) }
        let started = try #require(try attempt.result?.get())
        defer { started.release() }

        // Then the start holds the file at the path, which names it, and a third start is refused
        #expect(FileManager.default.fileExists(atPath: path))
        #expect(RecorderLock.running(databasePath: database)?.pid == getpid())
        #expect(throws: RecorderError.alreadyRecording(sessionID: RecorderInfo.unknownSession, pid: getpid(), databasePath: database)) {
            _ = try RecorderLock(databasePath: database)
        }
    }

    @Test("a dead recorder's status and lock files are removed, and a live recorder's are not")
    func deadRecorderFiles() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let database = folder.path("db.sqlite")
        let lockPath = RecorderLock.lockPath(databasePath: database)
        let statusPath = RecorderLock.statusPath(databasePath: database)
        let status = RecorderStatus(pid: getpid(), sessionID: "S", source: "clip", elapsedSeconds: 1, frames: 30, framesWithFace: 30,
                                    achievedFramesPerSecond: 30, droppedFrames: 0, blinks: 0, trackingState: .frame(.normal),
                                    updatedAt: 1_790_000_000)
        #expect(RecorderLock.removeDeadRecorderFiles(databasePath: database).isEmpty)
        // Given a live recorder and its status: nothing is removed
        let live = try RecorderLock(databasePath: database)
        status.write(databasePath: database)
        #expect(RecorderLock.removeDeadRecorderFiles(databasePath: database).isEmpty)
        #expect(FileManager.default.fileExists(atPath: statusPath) && FileManager.default.fileExists(atPath: lockPath))
        live.release()

        // Given what a recorder killed with kill -9 leaves: its status, and a lock file naming it that nobody holds
        status.write(databasePath: database)
        try Data(#"{"pid":999999,"sessionID":"S","startedAt":1}"#.utf8).write(to: URL(fileURLWithPath: lockPath))
        // When they are removed: both go, and are named
        #expect(RecorderLock.removeDeadRecorderFiles(databasePath: database) == [statusPath, lockPath])
        #expect(!FileManager.default.fileExists(atPath: statusPath) && !FileManager.default.fileExists(atPath: lockPath))
    }
}
