import Foundation
import GazeModel
import GRDB
import JSONStream
import Testing
import TestSupport
@testable import SessionStore

/// Stored values no reader can take as data (a number stored as text or a blob, an infinity, a
/// date past year 9999, an end before the begin, a broken extension, a dropped column) are the
/// session's damage: `damage(id:)` names them, every export refuses them worded the same way, and
/// nothing is written before the refusal. On the imported iOS fixture, damaged with SQL.
@Suite("Stored values are checked before they are read")
struct StoredValueDamageTests {
    static let id = "3BE54760-F1E8-4799-A3CB-78806270E72A"

    /// The iOS fixture imported into an empty database, then `sql` run on it behind gazerec's back.
    static func damaged(_ sql: String) throws -> SessionDatabase {
        let store = try SessionDatabase()
        _ = try store.importSessions(from: [.file(Fixtures.iosSession)])
        #expect(try store.damage(id: id) == nil, "the fixture is sound")
        try store.writer.writeWithoutTransaction { db in try db.execute(sql: sql) }
        return store
    }

    /// Every export of the session throws its damage, worded as `damage(id:)` words it, having
    /// written nothing.
    static func expectRefused(_ store: SessionDatabase, detail: String) throws {
        #expect(try store.damage(id: id) == detail)
        let damage = StoreError.damagedSession(id: id, databasePath: store.path, detail: detail)
        let variants: [(String, (MemoryByteSink) throws -> Void)] = [
            ("json", { try store.export(ids: [id], asArray: false, to: $0) }),
            ("csv", { try store.exportCSV(ids: [id], to: $0, movement: true) }),
            ("columns", { _ in _ = try store.sessionColumns(id: id) }),
            ("streams", { _ in _ = try store.recordedStreams(id: id) }),
            ("scan path", { _ in _ = try store.scanPath(id: id, between: []) }),
        ]
        for (name, export) in variants {
            let sink = MemoryByteSink()
            #expect(throws: damage, "\(name)") { try export(sink) }
            #expect(sink.bytes.isEmpty, "\(name) wrote \(sink.bytes.count) bytes before refusing")
        }
    }

    @Test("a wrong-typed, infinite or absurd stored value is damage, never read as a number",
          .enabled(if: Fixtures.available, Fixtures.missingReason),
          arguments: [
            ("UPDATE gazeSample SET x = 'abc' WHERE seq = 7", "x of gaze sample 7 is text where gazerec stores a number"),
            ("UPDATE gazeSample SET y = x'00ff00ff' WHERE seq = 3", "y of gaze sample 3 is a blob where gazerec stores a number"),
            ("UPDATE gazeSample SET x = 9e999 WHERE seq = 5", "x of gaze sample 5 is inf where gazerec stores a finite number"),
            ("UPDATE gazeSample SET x = 1e300 WHERE seq = 5",
             "x of gaze sample 5 is 1e+300, outside ±1000000000 (beyond any recording)"),
            ("UPDATE blendShapeSample SET value = -9e999 WHERE seq = 2",
             "value of blend-shape sample 2 is -inf where gazerec stores a finite number"),
            ("UPDATE session SET beginTime = 'abc'", "beginTime of the session row is text where gazerec stores a number"),
            ("UPDATE session SET beginTime = 1e19",
             "beginTime of the session row is 1e+19, outside ±253402300799 s (the years before 10000) (beyond any recording)"),
            ("UPDATE session SET screenWidth = 'wide'", "screenWidth of the session row is text where gazerec stores a number"),
            ("UPDATE session SET screenHeight = 1e308",
             "screenHeight of the session row is 1e+308, outside (0, 1000000000] (beyond any recording)"),
            ("UPDATE session SET endTime = beginTime - 5",
             "endTime (1595626838.445204) is before beginTime (1595626843.445204); a session cannot end before it begins"),
            ("UPDATE session SET extensionJSON = '{\"formatVersion\": 1, \"recorder'",
             "its \"gazerec\" extension (extensionJSON) is not a JSON object"),
            ("UPDATE session SET id = 'not-a-uuid'", "its id is not a UUID"),
            // A NOT NULL column made nullable behind gazerec's back, as a hand-made copy of the table would.
            ("PRAGMA writable_schema = ON; UPDATE sqlite_schema SET sql = replace(sql, 'appID TEXT NOT NULL', 'appID TEXT') "
             + "WHERE name = 'session'; PRAGMA writable_schema = RESET; UPDATE session SET appID = NULL", "appID of the session row is NULL where gazerec always stores text"),
          ])
    func unsoundValue(sql: String, detail: String) throws {
        let store = try Self.damaged(sql)
        if sql.contains("not-a-uuid") {
            // The session is found by its stored id still, and named damaged instead of unknown.
            #expect(try store.damage(id: "not-a-uuid") == detail)
            return
        }
        try Self.expectRefused(store, detail: detail)
    }

    @Test("a dropped column or table is damage named before anything is written",
          .enabled(if: Fixtures.available, Fixtures.missingReason),
          arguments: [("ALTER TABLE frameSample DROP COLUMN pupilLeftU", "the column pupilLeftU is missing from the table frameSample"),
                      ("DROP TABLE blinkEvent", "the table blinkEvent is missing from the database")])
    func droppedSchema(sql: String, detail: String) throws {
        try Self.expectRefused(try Self.damaged(sql), detail: detail)
    }

    @Test("check names a damaged session (a non-UUID id too) and goes on to the rest",
          .enabled(if: Fixtures.available, Fixtures.missingReason))
    func checkGoesOn() throws {
        let store = try SessionDatabase()
        _ = try store.importSessions(from: [.file(Fixtures.iosSession)])
        let text = try String(contentsOfFile: Fixtures.iosSession, encoding: .utf8)
        let other = "0D5A33A1-6F0B-4C1E-9A39-2B9D6C8F0E11"
        _ = try store.importSessions(from: [.bytes(Array(text.replacingOccurrences(of: Self.id, with: other).utf8), name: "other")])
        try store.writer.write { db in try db.execute(sql: "UPDATE session SET id = 'not-a-uuid' WHERE id = ?", arguments: [Self.id]) }
        let (sessions, _) = try store.check()
        #expect(sessions == [SessionDatabase.Damage(id: "not-a-uuid", detail: "its id is not a UUID")])
        #expect(try store.damage(id: other) == nil)
    }

    @Test("recalibrating a damaged session is refused and leaves its damage to be seen",
          .enabled(if: Fixtures.available, Fixtures.missingReason))
    func rewriteRefused() throws {
        let store = try Self.damaged("""
            DELETE FROM blendShapeSample WHERE seriesRowID = (SELECT MIN(rowid) FROM blendShapeSeries)
                AND seq = (SELECT MAX(seq) FROM blendShapeSample WHERE seriesRowID = (SELECT MIN(rowid) FROM blendShapeSeries))
            """)
        let detail = try #require(try store.damage(id: Self.id))
        let header = try store.summary(id: Self.id).header
        #expect(throws: StoreError.damagedSession(id: Self.id, databasePath: store.path, detail: detail)) {
            try store.replaceScanPath(id: Self.id, samples: [], gazerecExtension: SessionExtension(),
                                      screenWidth: header.deviceInfo.screenWidth, screenHeight: header.deviceInfo.screenHeight)
        }
        #expect(try store.damage(id: Self.id) == detail, "the stored lengths were not rewritten")
        #expect(try store.scanPath(id: Self.id).samples.count == 380, "the scan path stayed")
    }
}

/// Import refuses what every reader would refuse: values past the bounds no recording reaches,
/// and a key given twice inside a sample, as it refuses one given twice in the session object.
@Suite("Import refuses values no reader can take")
struct ImportBoundsTests {
    /// The iOS fixture with `original` replaced by `replacement` (which must occur in it).
    static func importing(_ original: String, _ replacement: String) throws -> (SessionDatabase, Result<ImportReport, any Error>) {
        let text = try String(contentsOfFile: Fixtures.iosSession, encoding: .utf8)
        #expect(text.contains(original))
        let store = try SessionDatabase()
        let result = Result { try store.importSessions(from: [.bytes(Array(text.replacingOccurrences(of: original, with: replacement).utf8),
                                                                     name: "changed.json")]) }
        return (store, result)
    }

    @Test("a date past year 9999, a 1e308 screen, a position of 1.8e308 or a repeated key in a sample: one line naming it",
          .enabled(if: Fixtures.available, Fixtures.missingReason),
          arguments: [
            ("\"beginTime\": 1595626843.445204", "\"beginTime\": -1e19",
             "beginTime of the session row is -1e+19, outside ±253402300799 s"),
            ("\"screenSize\": [834, 1194]", "\"screenSize\": [1e308, 1e308]", "screenWidth of the session row is 1e+308, outside (0, 1000000000]"),
            ("\"x\": 479.91125732660294", "\"x\": 1.7976931348623157e308", "x of gaze sample 0 is 1.7976931348623157e+308, outside ±1000000000"),
            ("\"x\": 479.91125732660294", "\"x\": 99999, \"x\": 479.91125732660294", "duplicate key"),
          ])
    func refused(original: String, replacement: String, detail: String) throws {
        let (store, result) = try Self.importing(original, replacement)
        #expect(throws: (any Error).self) { try result.get() }
        if case .failure(let error) = result {
            let message = String(describing: error)
            #expect(message.contains(detail), "\(message)")
            #expect(!message.contains("\n"), "one line: \(message)")
        }
        #expect(try store.sessionIDs().isEmpty, "nothing of the session stays")
    }
}
