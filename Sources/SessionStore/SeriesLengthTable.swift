import GRDB

/// The `seriesLength` table: how many rows each stored series of a session held when gazerec last
/// wrote it, the writer's own count kept beside the rows.
///
/// A series' numbering (`seq` 0, 1, 2, …) shows rows lost in its middle, but not rows lost from
/// its end: 499 frames numbered 0…498 look whole. The stored length tells them apart. Every write
/// that adds or replaces a session's rows stores the lengths in the same transaction: a recorder's
/// flush, an import, a reanalysis, a new marker. Sessions stored before the table existed (schema
/// migration "v7: series lengths") have no lengths; their series are checked by numbering alone.
///
/// The only code that writes SQL for this table; every function runs in the caller's transaction.
enum SeriesLengthTable {
    /// The key of a session-keyed table's series (`frameSample`, `gazeSample`, …).
    static func key(table: String) -> String { table }

    /// The key of one blend-shape series (`blendShape:eyeBlink_L`).
    static func key(blendShape name: String) -> String { "blendShape:" + name }

    /// The session-keyed tables whose lengths are stored.
    static let tables = ["frameSample", "gazeSample", "blinkEvent", "expressionSample", "marker"]

    /// The stored lengths of session `sessionRowID`'s series, by key (empty for a session stored
    /// before lengths were kept).
    static func lengths(_ db: Database, sessionRowID: Int64) throws -> [String: Int] {
        var lengths: [String: Int] = [:]
        let rows = try Row.fetchCursor(db, sql: "SELECT series, length FROM seriesLength WHERE sessionRowID = ?",
                                       arguments: [sessionRowID])
        while let row = try rows.next() {
            lengths[try row.decode(String.self, atIndex: 0)] = try row.decode(Int.self, atIndex: 1)
        }
        return lengths
    }

    /// Stores the lengths of every series of session `sessionRowID` as its rows now stand (one
    /// more than each series' largest `seq`: two index look-ups per series, no row is counted).
    ///
    /// - Parameter replacing: true after a write that replaced the session's series (an import, a
    ///   reanalysis): the lengths become what is stored now. False after an append (a recorder's
    ///   flush, a marker): a length only grows, so a series that lost rows before the append
    ///   still reads as damaged.
    static func store(_ db: Database, sessionRowID: Int64, replacing: Bool) throws {
        if replacing {
            try db.execute(sql: "DELETE FROM seriesLength WHERE sessionRowID = ?", arguments: [sessionRowID])
        }
        let sessionKeyed = tables.map { table in
            "SELECT '\(key(table: table))', COALESCE((SELECT seq + 1 FROM \(table) WHERE sessionRowID = ?1 ORDER BY seq DESC LIMIT 1), 0)"
        }
        let blendShapes = """
            SELECT '\(key(blendShape: ""))' || name,
                   COALESCE((SELECT seq + 1 FROM blendShapeSample WHERE seriesRowID = s.rowid ORDER BY seq DESC LIMIT 1), 0)
            FROM blendShapeSeries AS s WHERE s.sessionRowID = ?1
            """
        try db.execute(sql: """
            INSERT INTO seriesLength (sessionRowID, series, length)
            SELECT ?1, * FROM (\((sessionKeyed + [blendShapes]).joined(separator: " UNION ALL "))) WHERE true
            ON CONFLICT (sessionRowID, series) DO UPDATE SET length = max(length, excluded.length)
            """, arguments: [sessionRowID])
    }
}
