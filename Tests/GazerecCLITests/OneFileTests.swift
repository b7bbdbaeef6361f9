import Foundation
import JSONStream
import Testing
import TestSupport

/// The database is one file: after every command that writes, the `.sqlite` file copied alone
/// (without its `-wal` companion, as people copy "one SQLite file") holds every session whole.
@Suite("One SQLite file", .serialized)
struct OneFileTests {
    typealias Work = RecordingCommandTests.Workspace

    /// Copies the database file alone (no `-wal`, no `-shm`) into a folder of its own; returns its path.
    static func copyAlone(_ work: Work) throws -> String {
        let folder = work.folder.path("copy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        let copy = folder + "/db.sqlite"
        try FileManager.default.copyItem(atPath: work.database, toPath: copy)
        return copy
    }

    /// Expects the copy at `copy` to list what the database lists, and to export `ids` as it does.
    static func expectSame(_ copy: String, as work: Work, ids: [String], after command: String) throws {
        let original = try work.run(["list"])
        let copied = try Binary.run(["list"], environment: ["GAZEREC_DATABASE": copy])
        #expect(copied.status == 0, "after \(command): \(copied.stderr)")
        #expect(copied.stdout == original.stdout, "after \(command), the file alone lists\n\(copied.stdout)\ninstead of\n\(original.stdout)")
        for id in ids {
            let exported = try work.run(["export", id])
            let fromCopy = try Binary.run(["export", id], environment: ["GAZEREC_DATABASE": copy])
            #expect(fromCopy.status == 0 && fromCopy.stdout == exported.stdout,
                    "after \(command), session \(id) differs in the file alone: \(fromCopy.stderr)")
        }
    }

    @Test("start, a killed recorder's repair, import and delete each leave the file alone complete",
          .enabled(if: RecordingCommandTests.ready, RecordingCommandTests.reason))
    func everyWriterLeavesTheFileComplete() throws {
        let work = try Work()
        defer { work.folder.remove() }
        // A recording with a marker.
        let start = try Binary.run(["start", "--input", RecordingCommandTests.clip, "--duration", "4", "--markers-from", "-"],
                                   environment: ["GAZEREC_DATABASE": work.database], stdin: Data("m1\n".utf8))
        #expect(start.status == 0, "\(start.stderr)")
        let recorded = start.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        try Self.expectSame(try Self.copyAlone(work), as: work, ids: [recorded], after: "start")
        // A recorder killed outright, then repaired.
        let killed = try work.detach()
        let status = try work.waitForFrames(30)
        guard case .number(let number)? = status["pid"] else { Issue.record("no pid in \(status)"); return }
        let pid = Int32(number)
        kill(pid, SIGKILL)
        while kill(pid, 0) == 0 { usleep(20_000) }
        let repair = try work.run(["repair"])
        #expect(repair.status == 0 && repair.stdout.contains(killed), "\(repair.stderr)")
        try Self.expectSame(try Self.copyAlone(work), as: work, ids: [recorded, killed], after: "repair")
        // An import, then a deletion.
        #expect(try work.run(["import", Fixtures.iosSession]).status == 0)
        try Self.expectSame(try Self.copyAlone(work), as: work, ids: [recorded, killed, "3BE54760-F1E8-4799-A3CB-78806270E72A"],
                            after: "import")
        #expect(try work.run(["delete", recorded]).status == 0)
        let copy = try Self.copyAlone(work)
        try Self.expectSame(copy, as: work, ids: [killed], after: "delete")
        #expect(try Binary.run(["export", recorded], environment: ["GAZEREC_DATABASE": copy]).status == 66)
    }

    @Test("backup writes a consistent copy while a recorder runs; stop leaves the file alone complete",
          .enabled(if: RecordingCommandTests.ready, RecordingCommandTests.reason))
    func backupWhileRecording() throws {
        let work = try Work()
        defer { work.folder.remove() }
        let running = try work.detach()
        _ = try work.waitForFrames(40)
        let destination = work.folder.path("backup.sqlite")
        let backup = try work.run(["backup", destination])
        #expect(backup.status == 0, "\(backup.stderr)")
        #expect(!FileManager.default.fileExists(atPath: destination + "-wal"))
        let copied = try Binary.run(["export", running], environment: ["GAZEREC_DATABASE": destination])
        #expect(copied.status == 0, "\(copied.stderr)")
        let frames = try JSONValue.parse(Array(copied.stdoutData))["gazerec"]?["frames"]?.arrayValue?.count ?? 0
        #expect(frames >= 30, "40 frames recorded, less at most one commit interval (0.25 s)")
        // An existing destination is refused and left alone.
        let again = try work.run(["backup", destination])
        #expect(again.status == 1 && again.stderr.contains("the file exists"))
        let stop = try work.run(["stop"])
        #expect(stop.status == 0, "\(stop.stderr)")
        try Self.expectSame(try Self.copyAlone(work), as: work, ids: [running], after: "stop")
    }

    @Test("a recorder killed with SIGKILL while saving its video: delete removes the video with the session",
          .enabled(if: RecordingCommandTests.ready, RecordingCommandTests.reason))
    func killedRecordersVideoGoesWithItsSession() throws {
        let work = try Work()
        defer { work.folder.remove() }
        let id = try work.detachAndKill(["--save-video"])
        let video = work.folder.path("videos/\(id).mkv")
        #expect(FileManager.default.fileExists(atPath: video))
        let deleted = try work.run(["delete", id])
        #expect(deleted.status == 0, "\(deleted.stderr)")
        #expect(deleted.stderr.contains(video), "\(deleted.stderr)")
        #expect(!FileManager.default.fileExists(atPath: video), "the video of the deleted session stayed")
        #expect(try FileManager.default.contentsOfDirectory(atPath: work.folder.path("videos")).isEmpty)
    }
}
