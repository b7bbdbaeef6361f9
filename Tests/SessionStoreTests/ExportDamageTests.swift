import Foundation
import GazeModel
import GRDB
import JSONStream
import Testing
@testable import SessionStore

/// The export checks each session as it reads it: a row missing from any series makes JSON and
/// CSV export throw the session's damage, worded as `damage(id:)` words it, whichever way the
/// series is read (the sample thread, the frame and expression statements, the tables read whole,
/// or a count of its own where the export does not read the series).
@Suite("Export checks the rows it reads")
struct ExportDamageTests {
    /// Exports `id` every way; each must throw the session's damage.
    static func expectRefused(_ store: SessionDatabase, _ id: String, detail: String) {
        let damage = StoreError.damagedSession(id: id, databasePath: store.path, detail: detail)
        let variants: [(String, (MemoryByteSink) throws -> Void)] = [
            ("json", { try store.export(ids: [id], asArray: false, to: $0) }),
            ("pretty", { try store.export(ids: [id], asArray: true, to: $0, options: ExportOptions(pretty: true)) }),
            ("no extension", { try store.export(ids: [id], asArray: false, to: $0, options: ExportOptions(includeExtension: false)) }),
            ("fixations", { try store.export(ids: [id], asArray: false, to: $0, options: ExportOptions(fixations: true)) }),
            ("csv", { try store.exportCSV(ids: [id], to: $0, movement: true) }),
        ]
        for (name, export) in variants {
            #expect(throws: damage, "\(name)") { try export(MemoryByteSink()) }
        }
    }

    @Test("a row missing from frames, expressions, a blend shape or the markers refuses every export",
          arguments: [("frameSample", "sessionRowID", 4, "1 of 10 frames missing"),
                      ("expressionSample", "sessionRowID", 0, "1 of 9 expression samples missing"),
                      ("blendShapeSample", "seriesRowID", 2, "1 of 9 mouthSmile_L samples missing"),
                      ("marker", "sessionRowID", 0, "1 of 2 markers missing")])
    func missingRow(table: String, owner: String, seq: Int, detail: String) throws {
        let (store, id) = try ExpressionStoreTests.store()
        try store.addMarker(Marker(timestampSeconds: ExpressionStoreTests.begin + 0.8, label: "second", dataJSON: nil), sessionID: id)
        let sound = MemoryByteSink()
        try store.export(ids: [id], asArray: false, to: sound)
        try store.exportCSV(ids: [id], to: sound, movement: true)
        try store.writer.write { db in
            let ownerRowID = owner == "seriesRowID"
                ? try Int64.fetchOne(db, sql: "SELECT rowid FROM blendShapeSeries WHERE name = 'mouthSmile_L'")
                : try Int64.fetchOne(db, sql: "SELECT rowid FROM session WHERE id = ?", arguments: [id])
            try db.execute(sql: "DELETE FROM \(table) WHERE \(owner) = ? AND seq = ?", arguments: [ownerRowID, seq])
        }
        #expect(try store.damage(id: id) == detail)
        Self.expectRefused(store, id, detail: detail)
    }
}
