import Foundation
import SessionStore
import Testing
import TestSupport

/// Every reader refuses a stored value no reader can take (an infinity, text where a number
/// belongs), and a row missing from a series, in one line naming the damage, with nothing on
/// stdout; `check` names the session; nothing traps. On a recording of the blink clip damaged
/// with SQL as a data-administration trial damaged it.
@Suite("Readers refuse unsound stored values", .serialized)
struct StoredValueReadersTests {
    typealias Work = RecordingCommandTests.Workspace
    static let ready = RecordingCommandTests.ready
    static let reason = RecordingCommandTests.reason

    /// Every reader of session `id`: those of the earlier damage trial, BIDS export and `check`.
    static func readers(_ id: String, _ work: Work) -> [[String]] {
        DamageUnnoticedTests.readers(id, work) + [["export", "--format", "bids", "--subject", "01", "--task", "reading", work.folder.path("bids"), id], ["check"]]
    }

    @Test("an infinity or text in a stored number: every reader refuses in one line naming it, none traps",
          .enabled(if: ready, reason),
          arguments: [("frameSample SET yawDegrees = 9e999 WHERE seq = 5", "yawDegrees of frame 5 is inf where gazerec stores a finite number"),
                      ("frameSample SET tz = 'abc' WHERE seq = 5", "tz of frame 5 is text where gazerec stores a number"),
                      ("blinkEvent SET start = x'00ff00ff' WHERE seq = 1", "start of blink event 1 is a blob where gazerec stores a number"),
                      ("frameSample SET trackingState = 'nor' || char(10) || 'mal' || char(233) WHERE seq = 5",
                       "trackingState of frame 5 is text that is none of normal, initializing, lowConfidence, excessiveMotion, missing "
                       + "(not quoted: it may hold any bytes)")])
    func unsoundValue(change: String, detail: String) throws {
        let (work, id) = try DamageUnnoticedTests.recordedCopy()
        defer { work.folder.remove() }
        // (the clip is recorded without a calibration: its frames, blinks and blend shapes are what it holds)
        try DamageUnnoticedTests.execute(work, "UPDATE \(change)")
        for arguments in Self.readers(id, work) {
            let result = try work.run(arguments)
            #expect(result.status == 1, "\(arguments): exit \(result.status) \(result.stderr)")
            #expect(result.stderr.contains("session \(id) in \(work.database) is damaged: \(detail)"), "\(arguments): \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(arguments): \(result.stderr)")
            #expect(result.stdout == (arguments == ["check"] ? id + "\n" : ""), "\(arguments): \(result.stdout)")
        }
    }

    @Test("BIDS export refuses a session missing a frame, as JSON and CSV export do", .enabled(if: ready, reason))
    func bidsRefusesMissingRow() throws {
        let (work, id) = try DamageUnnoticedTests.recordedCopy()
        defer { work.folder.remove() }
        try DamageUnnoticedTests.execute(work, "DELETE FROM frameSample WHERE seq = 100")
        let result = try work.run(["export", "--format", "bids", "--subject", "01", "--task", "reading", work.folder.path("bids"), id])
        #expect(result.status == 1 && result.stderr.contains("is damaged: 1 of 500 frames missing"),
                "\(result.status) \(result.stderr)")
        let written = (try? FileManager.default.contentsOfDirectory(atPath: work.folder.path("bids"))) ?? []
        #expect(!written.contains { $0.hasPrefix("sub-") }, "no run written: \(written)")
    }

    @Test("export --all names a session with a non-UUID id and exports the sound one", .enabled(if: ready, reason))
    func exportAllGoesOn() throws {
        let (work, id) = try DamageUnnoticedTests.recordedCopy()
        defer { work.folder.remove() }
        #expect(try work.run(["import", Fixtures.iosSession]).status == 0)
        try DamageUnnoticedTests.execute(work, "UPDATE session SET id = 'not-a-uuid' WHERE id = '\(id)'")
        let check = try work.run(["check"])
        #expect(check.status == 1 && check.stdout == "not-a-uuid\n", "\(check.stdout) \(check.stderr)")
        let export = try work.run(["export", "--all"])
        #expect(export.status == 1 && export.stderr.contains("session not-a-uuid in \(work.database) is damaged: its id is not a UUID"),
                "\(export.status) \(export.stderr)")
        #expect(export.stdout.contains(DamagedDatabaseTests.ios) && !export.stdout.contains("not-a-uuid"), "\(export.stdout.prefix(200))")
    }

    @Test("import refuses a date past year 9999, a 1e308 screen or x, and a key repeated inside a sample, in one line",
          .enabled(if: Fixtures.available, Fixtures.missingReason),
          arguments: [("\"beginTime\": 1595626843.445204", "\"beginTime\": -1e19", "beginTime of the session row is -1e+19"),
                      ("\"screenSize\": [834, 1194]", "\"screenSize\": [1e308, 1e308]", "screenWidth of the session row is 1e+308"),
                      ("\"x\": 479.91125732660294", "\"x\": 1.7976931348623157e308", "x of gaze sample 0 is 1.7976931348623157e+308"),
                      ("\"x\": 479.91125732660294", "\"x\": 99999, \"x\": 479.91125732660294", "duplicate key")])
    func importRefuses(original: String, replacement: String, detail: String) throws {
        let work = try Work()
        defer { work.folder.remove() }
        let text = try String(contentsOfFile: Fixtures.iosSession, encoding: .utf8)
        let changed = work.folder.path("changed.json")
        try text.replacingOccurrences(of: original, with: replacement).write(toFile: changed, atomically: true, encoding: .utf8)
        let result = try work.run(["import", changed])
        #expect(result.status != 0 && result.stderr.contains(detail), "\(result.status) \(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1 && result.stdout.isEmpty, "\(result.stdout) \(result.stderr)")
        #expect(try work.run(["list", "--ids"]).stdout.isEmpty, "nothing imported")
    }

    @Test("a calibration row with an infinite or absurd screen size is named as damaged by calibrations list, never a crash")
    func damagedCalibrationRow() throws {
        let work = try Work()
        defer { work.folder.remove() }
        let id = UUID().uuidString
        let summary = CalibrationSummary(id: id, name: "p", createdAtSeconds: 1_700_000_000, screenWidth: 1920, screenHeight: 1080,
                                         pointCount: 9, accuracyPoints: nil, accuracyDegrees: nil)
        try SessionDatabase(path: work.database).saveCalibrations([(summary, "{\"id\":\"\(id)\"}")], replace: false, source: "test")
        #expect(try work.run(["calibrations", "list"]).status == 0)
        for change in ["screenWidth = 9e999", "screenHeight = -1", "screenWidth = 'wide'"] {
            try DamageUnnoticedTests.execute(work, "UPDATE calibration SET \(change)")
            let listed = try work.run(["calibrations", "list"])
            #expect(listed.status == 1 && listed.stdout.isEmpty && listed.stderr.split(separator: "\n").count == 1
                    && listed.stderr.contains("calibration \(id.uppercased()) is damaged"), "\(change): \(listed.status) \(listed.stderr)")
            try DamageUnnoticedTests.execute(work, "UPDATE calibration SET screenWidth = 1920, screenHeight = 1080")
        }
    }
}
