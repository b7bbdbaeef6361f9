import Foundation
import GazeModel
import JSONStream
import Recorder
import SessionStore
import Testing
import TestSupport

/// A deletion leaves no trace beside the database: the status file a dead recorder left and a
/// detached recorder's log go with the sessions they name, with every form of `delete`; and the
/// library's `SessionDeletion` deletes exactly as the command does.
@Suite("delete leaves no trace", .serialized)
struct DeletionTraceTests {
    static let modelPath = "/usr/share/dlib/shape_predictor_68_face_landmarks.dat"
    static var ready: Bool { Fixtures.available && FileManager.default.fileExists(atPath: modelPath) }
    static let reason: Comment = "needs ../shared/fixtures and the dlib model (apt-get install libdlib-data)"
    static var clip: String { Fixtures.path("video/cap13_blinks_20s.mp4") }

    /// Every file in the workspace's folder, by name.
    static func files(_ work: Workspace) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: work.folder.url.path).sorted()
    }

    /// Starts a background recorder of the clip as participant P05 and waits for its first frames.
    static func detach(_ work: Workspace, _ extra: [String] = []) throws -> (id: String, pid: Int32) {
        let started = try work.run(["start", "--input", clip, "--app-id", "P05", "--calibration", "none"] + extra + ["--detach"])
        try #require(started.status == 0, "\(started.stderr)")
        let id = started.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            let status = try JSONValue.parse(Array(try work.run(["status", "--json"]).stdoutData))
            if case .number(let frames)? = status["frames"], frames >= 20, case .number(let pid)? = status["pid"] {
                return (id, Int32(pid))
            }
            usleep(100_000)
        }
        Issue.record("the background recorder recorded no 20 frames within 30 s")
        throw CancellationError()
    }

    @Test("a recorder killed outright: every form of delete removes its status file and its log with its session",
          .enabled(if: ready, reason), arguments: ["id", "app-id", "all", "database"])
    func deadRecorderTraces(form: String) throws {
        let work = try Workspace()
        defer { work.folder.remove() }
        // Given a background recorder of P05 killed with kill -9 (its status file names the session and the clip)
        let (id, pid) = try Self.detach(work)
        kill(pid, SIGKILL)
        while kill(pid, 0) == 0 { usleep(20_000) }
        let status = work.database + ".recorder-status", log = work.database + ".recorder.log"
        try #require(try String(contentsOfFile: status, encoding: .utf8).contains(id))
        try #require(FileManager.default.fileExists(atPath: log))

        // When it is deleted
        let arguments: [String] = switch form {
        case "id": ["delete", id]
        case "app-id": ["delete", "--app-id", "P05"]
        case "all": ["delete", "--all", "--yes"]
        default: ["delete", "--database", "--yes"]
        }
        let deleted = try work.run(arguments)
        #expect(deleted.status == 0, "\(form): \(deleted.stderr)")

        // Then nothing beside the database names it: no status file, no log, each one's removal told
        let left = try Self.files(work).filter { $0.hasPrefix("db.sqlite.recorder") }
        #expect(left.isEmpty, "\(form): \(left)")
        #expect(deleted.stderr.contains("removed \(status)") && deleted.stderr.contains("removed \(log)"), "\(form): \(deleted.stderr)")
    }

    @Test("a background recording that ended: delete of its session or its participant removes its log; deleting another session keeps it",
          .enabled(if: ready, reason))
    func endedRecorderLog() throws {
        let work = try Workspace()
        defer { work.folder.remove() }
        let other = try work.storeSession(samples: 10)
        let (id, _) = try Self.detach(work)
        #expect(try work.run(["stop"]).status == 0)
        let log = work.database + ".recorder.log"
        try #require(FileManager.default.fileExists(atPath: log))
        // The log names its session.
        #expect(try String(contentsOfFile: log, encoding: .utf8).contains("recording session \(id)"))

        // Another session's deletion leaves the log of this one.
        #expect(try work.run(["delete", other]).status == 0)
        #expect(FileManager.default.fileExists(atPath: log))

        // The participant's withdrawal removes it.
        let withdrawn = try work.run(["delete", "--app-id", "P05"])
        #expect(withdrawn.status == 0, "\(withdrawn.stderr)")
        #expect(withdrawn.stderr.contains("removed \(log)"), "\(withdrawn.stderr)")
        #expect(try Self.files(work) == ["db.sqlite"])
    }

    /// Two sessions of P05 and P06 with fixed ids, a status file a dead recorder of P05's session
    /// left (with a warning naming the participant), and a detached recorder's log naming it.
    static func station(_ work: Workspace) throws -> (p05: String, p06: String) {
        let p05 = "3BE54760-F1E8-4799-A3CB-78806270E72A", p06 = "7C1F2B90-0A4D-4E55-9B3E-1D2C3B4A5F60"
        let database = try SessionDatabase(path: work.database)
        for (id, appID) in [(p05, "P05"), (p06, "P06")] {
            let writer = try SessionWriter(
                database: database,
                header: SessionHeader(id: id, appID: appID, beginTimeSeconds: 1_700_000_000, endTimeSeconds: nil,
                                      deviceInfo: DeviceInfo(model: "test", screenWidth: 1920, screenHeight: 1080,
                                                             systemName: "Linux", systemVersion: "6")),
                blendShapeNames: [], recorderPID: 999_999)
            var batch = SampleBatchToAppend()
            batch.gaze = (0..<30).map { GazeSample(timestampSeconds: 1_700_000_000 + Double($0) / 30, x: 100, y: 200, orientation: 3) }
            try writer.append(batch)
            try writer.close(endTimeSeconds: 1_700_000_001, gazerecExtension: nil)
        }
        let status = #"{"pid":999999,"sessionID":"\#(p05)","source":"clip","elapsedSeconds":9,"frames":270,"framesWithFace":270,"#
            + #""achievedFramesPerSecond":30,"droppedFrames":0,"blinks":2,"trackingState":"normal","updatedAt":0,"#
            + #""warning":"calibration C (P05) was flagged poor"}"#
        try status.write(toFile: work.database + ".recorder-status", atomically: true, encoding: .utf8)
        try "gazerec: warning: calibration C (P05) was flagged poor\ngazerec: recording session \(p05) in the background\n"
            .write(toFile: work.database + ".recorder.log", atomically: true, encoding: .utf8)
        return (p05, p06)
    }

    @Test("a program deleting a participant through SessionDeletion leaves the station exactly as delete --app-id does")
    func libraryEqualsCommand() throws {
        let byCommand = try Workspace(), byLibrary = try Workspace()
        defer { byCommand.folder.remove(); byLibrary.folder.remove() }
        let (p05, p06) = try Self.station(byCommand)
        _ = try Self.station(byLibrary)

        let command = try byCommand.run(["delete", "--app-id", "P05"])
        try #require(command.status == 0, "\(command.stderr)")
        let outcome = try SessionDeletion(databasePath: byLibrary.database, scope: .participant(appID: "P05")).run()

        #expect(outcome.sessionIDs == [p05])
        #expect(command.stdout == outcome.sessionIDs.map { $0 + "\n" }.joined())
        let told = command.stderr.split(separator: "\n").filter { $0.contains(": removed ") }
            .map { String($0.drop(while: { $0 != "/" })) }
        #expect(told == outcome.removedFiles.map { $0.replacingOccurrences(of: byLibrary.folder.url.path, with: byCommand.folder.url.path) },
                "\(command.stderr) vs \(outcome.removedFiles)")
        #expect(try Self.files(byCommand) == Self.files(byLibrary))
        #expect(try Self.files(byLibrary).filter { $0.hasPrefix("db.sqlite.recorder") }.isEmpty)
        for work in [byCommand, byLibrary] {
            #expect(try SessionDatabase.openForReading(path: work.database).sessionIDs() == [p06])
        }
    }

    @Test("a deletion beside nothing it names keeps the status file and the log")
    func unrelatedTracesKept() throws {
        let work = try Workspace()
        defer { work.folder.remove() }
        let (_, p06) = try Self.station(work)
        let outcome = try SessionDeletion(databasePath: work.database, scope: .sessions([p06])).run()
        #expect(outcome.sessionIDs == [p06] && outcome.removedFiles.isEmpty)
        #expect(FileManager.default.fileExists(atPath: work.database + ".recorder-status"))
        #expect(FileManager.default.fileExists(atPath: work.database + ".recorder.log"))
    }

    @Test("a deleted session's bytes are gone from the database file: its id and app id are found nowhere in it",
          .enabled(if: Fixtures.available, Fixtures.missingReason), arguments: ["id", "app-id"])
    func deletedBytesGone(form: String) throws {
        let work = try Workspace()
        defer { work.folder.remove() }
        // Given the iOS fixture imported beside a session that stays
        let kept = try work.storeSession(samples: 600)
        let imported = try work.run(["import", Fixtures.path("eyetracking/example_data_output.json")])
        try #require(imported.status == 0, "\(imported.stderr)")
        let id = "3BE54760-F1E8-4799-A3CB-78806270E72A", label = "ios-eye-tracking-example"
        let before = try #require(work.bytes(work.database))
        try #require(before.range(of: Data(id.utf8)) != nil && before.range(of: Data(label.utf8)) != nil)

        // When it is deleted
        let deleted = try work.run(form == "id" ? ["delete", id] : ["delete", "--app-id", label])
        try #require(deleted.status == 0, "\(deleted.stderr)")

        // Then neither its id nor its label stands in the file or its log (SQLite would keep them in freed pages)
        for path in [work.database, work.database + "-wal"] {
            guard let bytes = work.bytes(path) else { continue }
            #expect(bytes.range(of: Data(id.utf8)) == nil, "\(path) still holds the deleted session's id")
            #expect(bytes.range(of: Data(label.utf8)) == nil, "\(path) still holds the deleted session's app id")
        }
        #expect(try work.run(["list", "--ids"]).stdout == kept + "\n")
    }
}
