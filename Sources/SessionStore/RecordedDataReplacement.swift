import Foundation
import GazeModel
import GRDB

extension SessionDatabase {
    /// The stored frames' times of a session, in order (what a re-analysis stamps its frames with).
    public func frameTimestamps(id: String) throws -> [Double] {
        try guarded("read the frames of session \(id)") {
            try writer.read { db in
                guard let rowid = try Self.rowid(db, id: id) else { throw StoreError.unknownSession(id: id, databasePath: path) }
                return try Double.fetchAll(db, sql: "SELECT timestamp FROM frameSample WHERE sessionRowID = ? ORDER BY seq",
                                           arguments: [rowid])
            }
        }
    }

    /// Replaces session `id`'s per-frame data — frames, scan path, blend-shape samples (of the series
    /// it has), blink events — with those of session `sourceID` in the database file `sourcePath`,
    /// and its extension object, in one transaction: on any failure the session stays as it was.
    /// Markers, the session row and its series are kept.
    public func replaceRecordedData(id: String, from sourcePath: String, sourceID: String,
                                    gazerecExtension: SessionExtension) throws {
        try guarded("replace the recorded data of session \(id)") {
            try writer.writeWithoutTransaction { db in
                try db.execute(sql: "ATTACH DATABASE ? AS source", arguments: [sourcePath])
                defer { try? db.execute(sql: "DETACH DATABASE source") }
                try db.inTransaction {
                    guard let rowid = try Self.rowid(db, id: id) else {
                        throw StoreError.unknownSession(id: id, databasePath: path)
                    }
                    guard let sourceRowID = try Int64.fetchOne(db, sql: "SELECT rowid FROM source.session WHERE id = ?",
                                                               arguments: [sourceID]) else {
                        throw StoreError.unknownSession(id: sourceID, databasePath: sourcePath)
                    }
                    for table in ["frameSample", "gazeSample", "blinkEvent"] {
                        try db.execute(sql: "DELETE FROM main.\(table) WHERE sessionRowID = ?", arguments: [rowid])
                        let columns = try Self.columns(db, table: table).filter { $0 != "sessionRowID" }
                        let list = columns.joined(separator: ", ")
                        try db.execute(sql: """
                            INSERT INTO main.\(table) (sessionRowID, \(list))
                            SELECT ?, \(list) FROM source.\(table) WHERE sessionRowID = ?
                            """, arguments: [rowid, sourceRowID])
                    }
                    let series = try Row.fetchAll(db, sql: "SELECT rowid, name FROM main.blendShapeSeries WHERE sessionRowID = ?",
                                                  arguments: [rowid])
                    let columns = try Self.columns(db, table: "blendShapeSample").filter { $0 != "seriesRowID" }
                    let list = columns.joined(separator: ", ")
                    for entry in series {
                        let seriesRowID: Int64 = entry["rowid"]
                        try db.execute(sql: "DELETE FROM main.blendShapeSample WHERE seriesRowID = ?", arguments: [seriesRowID])
                        try db.execute(sql: """
                            INSERT INTO main.blendShapeSample (seriesRowID, \(list))
                            SELECT ?, \(list) FROM source.blendShapeSample WHERE seriesRowID =
                                (SELECT rowid FROM source.blendShapeSeries WHERE sessionRowID = ? AND name = ?)
                            """, arguments: [seriesRowID, sourceRowID, entry["name"] as String])
                    }
                    try db.execute(sql: "UPDATE main.session SET extensionJSON = ? WHERE rowid = ?",
                                   arguments: [gazerecExtension.storedText, rowid])
                    return .commit
                }
            }
        }
    }

    private static func columns(_ db: Database, table: String) throws -> [String] {
        try Row.fetchAll(db, sql: "PRAGMA main.table_info(\(table))").map { $0["name"] as String }
    }
}
